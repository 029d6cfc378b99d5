/**
 * Connection pools for the control plane: one undici Pool per origin, shared by every client of that
 * origin whatever its credentials (authentication is per request, not per connection).
 */
import { Pool } from 'undici';
import { ControlPlaneClient, type ControlPlaneClientOptions, DEFAULT_TIMEOUTS } from './client.ts';
import { type Credentials, credentialsKey, parseCredentials } from './credentials.ts';
import { RequestLimiter } from './limiter.ts';

export type ClientOptions = Omit<ControlPlaneClientOptions, 'credentials' | 'dispatcher' | 'limiter'>;

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
};

export class ControlPlanePools {
  readonly #pools = new Map<string, Pool>();
  readonly #limiters = new Map<string, RequestLimiter>();
  readonly #options: ControlPlanePoolsOptions;
  /** Aborted by close(): cancels every call still in flight, whoever made it. */
  readonly #closing = new AbortController();
  #closed = false;

  constructor(options: ControlPlanePoolsOptions = {}) {
    this.#options = options;
  }

  /** A client on the shared pool of the credentials' origin. Throws CredentialsConfigError. */
  clientFor(credentials: Credentials, opts: ClientOptions = {}): ControlPlaneClient {
    if (this.#closed) throw new Error('ControlPlanePools is closed');
    const origin = new URL(parseCredentials(credentials).baseUrl).origin;
    const signal = opts.signal ? AbortSignal.any([this.#closing.signal, opts.signal]) : this.#closing.signal;
    return new ControlPlaneClient({
      ...this.#options.clientDefaults,
      ...opts,
      signal,
      credentials,
      dispatcher: this.#poolFor(origin),
      limiter: this.#limiterFor(credentials),
    });
  }

  /** Cancels the calls still in flight and closes every pool. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }

  #limiterFor(credentials: Credentials): RequestLimiter {
    const key = credentialsKey(credentials);
    let limiter = this.#limiters.get(key);
    if (limiter === undefined) {
      const limits = this.#options.limits ?? { rps: Number.POSITIVE_INFINITY, concurrency: 16 };
      limiter = new RequestLimiter(limits);
      this.#limiters.set(key, limiter);
    }
    return limiter;
  }

  #poolFor(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, {
        connections: this.#options.connections ?? 8,
        keepAliveTimeout: this.#options.keepAliveTimeoutMs ?? 30_000,
        connect: { timeout: this.#options.connectTimeoutMs ?? DEFAULT_TIMEOUTS.connectMs },
      });
      this.#pools.set(origin, pool);
    }
    return pool;
  }
}
