/**
 * A circuit breaker per credential identity: after `threshold` failures in a row that say the server is
 * broken (no answer in time, a dropped connection, a 5xx), the credential is
 * parked: its calls fail at once with CircuitOpenError carrying when to come back, so an object of that
 * tenant ends its pass and is requeued for then instead of holding a worker until a deadline. The
 * breaker probes the server itself, on its own timer and with exponential backoff, and closes on the
 * first probe that succeeds: no worker ever waits on a parked server.
 */
import { timerDelay } from '../lib/timer-delay.ts';
import { CircuitOpenError, UnavailableError } from './errors.ts';

export interface CircuitBreakerOptions {
  /** Failures in a row that open the circuit. Default 3. */
  threshold?: number;
  /** How long the first opening lasts; doubled on each failed probe. Default 5 s. */
  baseOpenMs?: number;
  /** Longest opening. Default 5 minutes. */
  maxOpenMs?: number;
  /** One cheap call that proves the server answers again; resolves or throws. */
  probe: () => Promise<void>;
  now?: () => number;
  onChange?: (state: 'open' | 'closed') => void;
}

/**
 * Whether a failure says the server (not one request or one resource) is broken: no answer in time, a
 * dropped connection, a 5xx. A malformed answer about one deployment, an answer past its size bound or a
 * listing past its budget is that call's problem: the tenant's other objects go on. (A body past its
 * bound may be the objects of one namespace: a namespace must not park the credential of all of them.)
 *
 * `fromOneNamespace`: the request carried what one namespace chose (a body from its spec, its deployment
 * name or adopt annotation, a write to its deployment: Call.namespaceChosen) on credentials every
 * namespace may share (the controller's own). A 5xx or a timeout once such a request was sent may be the
 * server's answer to that content, so it counts only when nothing was sent (no connection:
 * UnavailableError.unsent). The controller's own reads (the polls by recorded id, a revision, the template
 * listing) count as before, so a server that is down still parks the credential.
 */
export function breaksCircuit(err: unknown, fromOneNamespace = false): boolean {
  return err instanceof UnavailableError && (!fromOneNamespace || err.unsent);
}

export class CircuitBreaker {
  readonly #threshold: number;
  readonly #baseOpenMs: number;
  readonly #maxOpenMs: number;
  readonly #probe: () => Promise<void>;
  readonly #now: () => number;
  readonly #onChange: ((state: 'open' | 'closed') => void) | undefined;
  #failures = 0;
  #openings = 0;
  #openUntil = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(options: CircuitBreakerOptions) {
    this.#threshold = options.threshold ?? 3;
    this.#baseOpenMs = options.baseOpenMs ?? 5_000;
    this.#maxOpenMs = options.maxOpenMs ?? 5 * 60_000;
    this.#probe = options.probe;
    this.#now = options.now ?? Date.now;
    this.#onChange = options.onChange;
  }

  get open(): boolean {
    return this.#openings > 0;
  }

  /** Throws CircuitOpenError while the circuit is open. */
  admit(operation: string): void {
    if (!this.open) return;
    const leftMs = Math.max(this.#openUntil - this.#now(), 1_000);
    // No time in the message: it lands in a condition, which must not change on every pass.
    throw new CircuitOpenError(
      operation,
      `calls to this control plane are paused after ${this.#threshold} failures in a row; the controller probes it and resumes when it answers`,
      leftMs,
    );
  }

  /** The outcome of a call that was admitted (`fromOneNamespace`: see breaksCircuit). */
  record(err: unknown, fromOneNamespace = false): void {
    if (this.open) return; // calls admitted before the opening end as they may; the probe decides
    if (err === undefined) {
      this.#failures = 0;
      return;
    }
    if (!breaksCircuit(err, fromOneNamespace)) return;
    this.#failures += 1;
    if (this.#failures >= this.#threshold) this.#openFor();
  }

  /** Stops probing (the credential was dropped, or the controller stops). */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #openFor(): void {
    const ms = Math.min(this.#maxOpenMs, this.#baseOpenMs * 2 ** this.#openings);
    if (this.#openings === 0) this.#onChange?.('open');
    this.#openings += 1;
    this.#openUntil = this.#now() + ms;
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#probe().then(
        () => this.#reset(),
        () => this.#openFor(),
      );
    }, timerDelay(ms));
    this.#timer.unref?.();
  }

  #reset(): void {
    this.#failures = 0;
    this.#openings = 0;
    this.#openUntil = 0;
    this.#onChange?.('closed');
  }
}
