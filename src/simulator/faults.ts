/** Fault injection: which rule applies to a request, and how a response body is spoiled. */
import { z } from 'zod';

const Latency = z.union([
  z.number().nonnegative(),
  z.object({ min: z.number().nonnegative(), max: z.number().nonnegative() }).strict(),
]);
export type Latency = z.infer<typeof Latency>;
export { Latency as LatencySchema };

export const FaultRuleSchema = z
  .object({
    method: z.string().optional(),
    route: z.string().optional(),
    times: z.number().int().positive().optional(),
    probability: z.number().min(0).max(1).optional(),
    status: z.number().int().min(100).max(599).optional(),
    retryAfterSeconds: z.number().nonnegative().optional(),
    latencyMs: Latency.optional(),
    dropConnection: z.boolean().optional(),
    /**
     * The request is carried out but its answer never arrives (the connection drops): 'after-commit'
     * commits it at once, like a response lost on the way back; 'commit-before-next' holds it and commits
     * it just before the next request of the same method and route is handled, like a request that timed
     * out on the client and committed later; 'commit-later' commits it `commitAfterMs` later, whatever
     * came meanwhile, like a server that applies a change late (after a newer one, maybe).
     */
    dropResponse: z.enum(['after-commit', 'commit-before-next', 'commit-later']).optional(),
    /** With dropResponse 'commit-later': how long after the request its change is applied. */
    commitAfterMs: z.number().int().positive().max(60_000).optional(),
    malformed: z.enum(['not-json', 'missing-fields', 'wrong-types']).optional(),
  })
  .strict();
export type FaultRule = z.infer<typeof FaultRuleSchema>;

type ActiveRule = { id: number; rule: FaultRule; remaining: number };

export class FaultBook {
  #rules: ActiveRule[] = [];
  #nextId = 1;
  readonly #random: () => number;

  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  add(rule: FaultRule): number {
    const id = this.#nextId++;
    this.#rules.push({ id, rule, remaining: rule.times ?? Number.POSITIVE_INFINITY });
    return id;
  }

  remove(id: number): void {
    this.#rules = this.#rules.filter((r) => r.id !== id);
  }

  clear(): void {
    this.#rules = [];
  }

  list(): Array<FaultRule & { id: number }> {
    return this.#rules.map(({ id, rule }) => ({ id, ...rule }));
  }

  /**
   * The first rule matching the request that fires (its probability drawn), used up by one; a rule
   * whose times run out is removed. `route` matches the route template or the literal path.
   */
  take(method: string, route: string, path: string): FaultRule | undefined {
    for (const active of this.#rules) {
      const { rule } = active;
      if (rule.method && rule.method.toUpperCase() !== method.toUpperCase()) continue;
      if (rule.route && rule.route !== route && rule.route !== path) continue;
      if (this.#random() >= (rule.probability ?? 1)) continue;
      active.remaining -= 1;
      if (active.remaining <= 0) this.remove(active.id);
      return rule;
    }
    return undefined;
  }
}

export function pickLatency(latency: Latency | undefined, random: () => number = Math.random): number {
  if (latency === undefined) return 0;
  if (typeof latency === 'number') return latency;
  const low = Math.min(latency.min, latency.max);
  return low + random() * Math.abs(latency.max - latency.min);
}

/** Keys a client relies on; 'missing-fields' removes them wherever they appear at the top level. */
const IMPORTANT_KEYS = [
  'id',
  'name',
  'source',
  'status',
  'resources',
  'templates',
  'offset',
  'latest_revision_id',
  'source_config',
  'source_revision_config',
  'detail',
];

function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return 'not-a-number';
  if (typeof value === 'boolean') return 'yes';
  if (Array.isArray(value)) return 'not-an-array';
  if (value !== null && typeof value === 'object') return 'not-an-object';
  return 7;
}

/** The raw bytes of a spoiled response body. */
export function spoilBody(kind: NonNullable<FaultRule['malformed']>, body: unknown): string {
  if (kind === 'not-json') return '<html><body>502 Bad Gateway</body></html';
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return JSON.stringify(kind === 'wrong-types' ? wrongType(body) : {});
  }
  const entries = Object.entries(body);
  const spoiled =
    kind === 'missing-fields'
      ? entries.filter(([key]) => !IMPORTANT_KEYS.includes(key))
      : entries.map(([key, value]) => [key, wrongType(value)]);
  return JSON.stringify(Object.fromEntries(spoiled));
}
