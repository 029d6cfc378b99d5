/**
 * Namespaces sync independently. Workers start once every watched namespace has either been listed or
 * failed to be (a namespace the controller may not list, say, answers 403 forever); objects of a
 * namespace are reconciled only once every informer has listed it (an object whose Secrets are not
 * listed yet would look like it waits for them). Namespaces that cannot be listed are reported.
 */
import type { NamespaceState } from './informer.ts';

export interface NamespaceSource {
  namespaceStates(): NamespaceState[];
}

export class NamespaceSync {
  readonly #sources: readonly NamespaceSource[];

  constructor(sources: readonly NamespaceSource[]) {
    this.#sources = sources;
  }

  /** Every namespace of every informer. */
  states(): NamespaceState[] {
    return this.#sources.flatMap((s) => s.namespaceStates());
  }

  /** Every namespace listed or failing: nothing more is worth waiting for before starting work. */
  settled(): boolean {
    return this.states().every((s) => s.synced || s.error !== undefined);
  }

  /** Whether objects of this namespace may be reconciled: every informer watching it has listed it. */
  ready(namespace: string): boolean {
    return this.states().every((s) => s.synced || (s.namespace !== '' && s.namespace !== namespace));
  }

  /** Namespaces not listed (yet), with why, one entry per namespace and informer. */
  unsynced(): NamespaceState[] {
    return this.states().filter((s) => !s.synced);
  }

  /** For /readyz: one line per namespace that is not listed, or undefined when all are. */
  detail(): string | undefined {
    const lines = this.unsynced().map(
      (s) =>
        `namespace ${s.namespace || '(all)'} not synced for ${s.informer}${s.error ? `: ${s.error}` : ''}`,
    );
    return lines.length > 0 ? lines.join('\n') : undefined;
  }
}
