/**
 * Connection pools for the control plane: one undici Pool per origin, shared by every client of that
 * origin whatever its credentials (authentication is per request, not per connection).
 */
import { Pool } from '../lib/undici.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import { ControlPlaneClient, type ControlPlaneClientOptions, DEFAULT_TIMEOUTS } from './client.ts';
import { type Credentials, credentialsKey, parseCredentials } from './credentials.ts';
import { IdentityLimitError } from './errors.ts';
import { RequestLimiter } from './limiter.ts';

export type ClientOptions = Omit<
  ControlPlaneClientOptions,
  'credentials' | 'dispatcher' | 'limiter' | 'namespaceOwned'
> & {
  /**
   * The namespace whose credentials Secret named these credentials: counted against its limit of
   * identities (namespaceIdentities), and what it sends counts toward their circuit breaker
   * (circuit-breaker.ts). Unset for the controller's own credentials, which every namespace may share.
   */
  namespace?: string;
};

/** The flag that sets namespaceIdentities, named where a namespace passes it. */
export const NAMESPACE_IDENTITIES_SETTING = '--namespace-credential-identities';
export const DEFAULT_NAMESPACE_IDENTITIES = 8;

export type ControlPlanePoolsOptions = {
  /** Connections per origin. Default 8. */
  connections?: number;
  /** How long an idle connection is kept. Default 30 s. */
  keepAliveTimeoutMs?: number;
  /** Default 5 s. */
  connectTimeoutMs?: number;
  /** Defaults for every client; clientFor's options override them. */
  clientDefaults?: ClientOptions;
  /** Per-credential limits shared by all clients of one credential. Default: unlimited rate, 16 in flight. */
  limits?: { rps: number; concurrency: number };
  /** Per-credential circuit breakers (circuit-breaker.ts); default threshold 3, first opening 5 s. */
  breaker?: { threshold?: number; baseOpenMs?: number; maxOpenMs?: number };
  /**
   * Told when a credential's circuit opens or closes: the credential as its identity digest
   * (credentialsKey, never its values) and the origin of its control plane.
   */
  onCircuit?: (credentialsId: string, state: 'open' | 'closed', origin: string) => void;
  /**
   * A credential's limiter, or an origin's pool, not asked for in this long and idle is dropped: tenants
   * come and go (a namespace deleted, a Secret rotated). Default 10 minutes.
   */
  idleMs?: number;
  /**
   * Credential identities one namespace's Secrets may bring in (issue 32): each costs a limiter, a
   * breaker, a poll group and a template snapshot. Default DEFAULT_NAMESPACE_IDENTITIES.
   */
  namespaceIdentities?: number;
  /**
   * How long a namespace's identity keeps its place unused (unless inUse says otherwise). Default 30
   * minutes.
   */
  namespaceIdentityIdleMs?: number;
  /**
   * Whether `namespace` still uses the identity though no client was asked for (the batched poll lists
   * a Ready object's deployment with it between passes hours apart): such an identity keeps its place.
   */
  inUse?: (namespace: string, identity: string) => boolean;
  now?: () => number;
};

export class ControlPlanePools {
  readonly #pools = new Map<string, { pool: Pool; usedAt: number }>();
  readonly #limiters = new Map<
    string,
    { limiter: RequestLimiter; breaker: CircuitBreaker; usedAt: number }
  >();
  readonly #now: () => number;
  readonly #idleMs: number;
  readonly #options: ControlPlanePoolsOptions;
  /** Per namespace, the identities its Secrets brought in, each with when it was last asked for. */
  readonly #namespaceIdentities = new Map<string, Map<string, number>>();
  /** Aborted by close(): cancels every call still in flight, whoever made it. */
  readonly #closing = new AbortController();
  #closed = false;

  constructor(options: ControlPlanePoolsOptions = {}) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#idleMs = options.idleMs ?? 10 * 60_000;
  }

  /** Limiters and pools held, for tests and metrics. */
  get size(): { pools: number; limiters: number } {
    return { pools: this.#pools.size, limiters: this.#limiters.size };
  }

  /**
   * A client on the shared pool of the credentials' origin. Throws CredentialsConfigError, or
   * IdentityLimitError when `namespace` already uses as many other identities as it may.
   */
  clientFor(credentials: Credentials, opts: ClientOptions = {}): ControlPlaneClient {
    if (this.#closed) throw new Error('ControlPlanePools is closed');
    this.#prune();
    const origin = new URL(parseCredentials(credentials).baseUrl).origin;
    const { namespace, ...clientOptions } = opts;
    if (namespace !== undefined) this.#admit(namespace, credentialsKey(credentials));
    const { limiter, breaker } = this.#guardsFor(credentials);
    return new ControlPlaneClient({
      ...this.#options.clientDefaults,
      ...clientOptions,
      signal: opts.signal,
      closing: this.#closing.signal,
      credentials,
      dispatcher: this.#poolFor(origin),
      limiter,
      breaker,
      namespaceOwned: namespace !== undefined,
    });
  }

  /** Whether the credential's circuit is open (its calls fail at once until a probe succeeds). */
  parked(credentials: Credentials): boolean {
    return this.#limiters.get(credentialsKey(credentials))?.breaker.open ?? false;
  }

  /** Cancels the calls still in flight and closes every pool. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    for (const entry of this.#limiters.values()) entry.breaker.close();
    this.#limiters.clear();
    await Promise.all(pools.map((p) => p.pool.close()));
  }

  /**
   * Counts `identity` for `namespace`: one it uses already keeps its place; a new one takes a free place,
   * after those unused for namespaceIdentityIdleMs are let go, or is refused. First come, first served:
   * the identities a namespace uses keep working whatever it adds.
   */
  #admit(namespace: string, identity: string): void {
    const now = this.#now();
    let held = this.#namespaceIdentities.get(namespace);
    if (held === undefined) {
      held = new Map();
      this.#namespaceIdentities.set(namespace, held);
    }
    if (!held.has(identity)) {
      const limit = this.#options.namespaceIdentities ?? DEFAULT_NAMESPACE_IDENTITIES;
      const before = now - (this.#options.namespaceIdentityIdleMs ?? 30 * 60_000);
      for (const [other, usedAt] of held) {
        if (usedAt < before && !this.#options.inUse?.(namespace, other)) held.delete(other);
      }
      if (held.size >= limit) throw new IdentityLimitError(namespace, limit, NAMESPACE_IDENTITIES_SETTING);
    }
    held.set(identity, now);
  }

  /** Drops limiters and pools nobody asked for within idleMs and with nothing under way. */
  #prune(): void {
    const before = this.#now() - this.#idleMs;
    for (const [key, entry] of this.#limiters) {
      if (entry.usedAt < before && entry.limiter.idle() && !entry.breaker.open) {
        entry.breaker.close();
        this.#limiters.delete(key);
      }
    }
    for (const [origin, entry] of this.#pools) {
      // The pool's stats only for a pool idle long enough: they are counted afresh on each read, and
      // every client made (one per pass) prunes.
      if (entry.usedAt >= before) continue;
      const { running, pending } = entry.pool.stats;
      if (running === 0 && pending === 0) {
        this.#pools.delete(origin);
        void entry.pool.close().catch(() => undefined);
      }
    }
  }

  /** The credential's limiter and circuit breaker, shared by all its clients. */
  #guardsFor(credentials: Credentials): { limiter: RequestLimiter; breaker: CircuitBreaker } {
    const key = credentialsKey(credentials);
    let entry = this.#limiters.get(key);
    if (entry === undefined) {
      const limits = this.#options.limits ?? { rps: Number.POSITIVE_INFINITY, concurrency: 16 };
      const limiter = new RequestLimiter(limits);
      const breaker = new CircuitBreaker({
        ...this.#options.breaker,
        // The probe goes around the breaker (it decides whether to close it) but through the limiter.
        probe: async () => {
          const probing = new ControlPlaneClient({
            ...this.#options.clientDefaults,
            getRetries: 0,
            signal: this.#closing.signal,
            credentials,
            dispatcher: this.#poolFor(new URL(credentials.baseUrl).origin),
            limiter,
          });
          await probing.listDeployments({ limit: 1 });
        },
        onChange: (state) => this.#options.onCircuit?.(key, state, new URL(credentials.baseUrl).origin),
      });
      entry = { limiter, breaker, usedAt: 0 };
      this.#limiters.set(key, entry);
    }
    entry.usedAt = this.#now();
    return entry;
  }

  #poolFor(origin: string): Pool {
    let entry = this.#pools.get(origin);
    if (entry === undefined) {
      const pool = new Pool(origin, {
        connections: this.#options.connections ?? 8,
        keepAliveTimeout: this.#options.keepAliveTimeoutMs ?? 30_000,
        connect: { timeout: this.#options.connectTimeoutMs ?? DEFAULT_TIMEOUTS.connectMs },
      });
      entry = { pool, usedAt: 0 };
      this.#pools.set(origin, entry);
    }
    entry.usedAt = this.#now();
    return entry.pool;
  }
}
