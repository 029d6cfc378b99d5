/**
 * A child logger made when first used, not before: a pass makes one per object (its key, its id, its
 * kind), and pino's child serialises and redacts its bindings at once, about a seventh of the CPU of
 * a pass that logs nothing. Logging at a level that is off, or asking the level, makes nothing (nor in
 * a lazy parent); anything else (a message, `child`) makes the child and asks it.
 */
import type { Bindings, Logger } from 'pino';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const noop = () => {};

export function lazyChild(parent: Logger, bindings: () => Bindings): Logger {
  let child: Logger | undefined;
  // An empty target: the proxy answers every property from the child, so none of the parent's own
  // (non-configurable) properties may pin what it answers.
  return new Proxy({} as Logger, {
    get(_, prop) {
      if (child === undefined) {
        // A child's level is its parent's: asked of a lazy parent, these make nothing there either.
        if (prop === 'level') return parent.level;
        if (prop === 'isLevelEnabled') return (level: string) => parent.isLevelEnabled(level);
        if (typeof prop === 'string' && LEVELS.has(prop) && !parent.isLevelEnabled(prop)) return noop;
      }
      child ??= parent.child(bindings());
      const value: unknown = Reflect.get(child, prop, child);
      return typeof value === 'function' ? value.bind(child) : value;
    },
  });
}
