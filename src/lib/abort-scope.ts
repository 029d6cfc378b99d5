/**
 * The signal of work with a known end (a call, a pass): aborted when one of its sources aborts (with
 * that source's reason), at its deadline (a TimeoutError, as AbortSignal.timeout's), or by abort();
 * end() removes its listeners from the sources and clears the deadline's timer, once the work is over.
 *
 * Not AbortSignal.any: that follows its sources through weak references and a FinalizationRegistry,
 * which only a full collection clears; the young generation's collector keeps what they reach alive,
 * so every call's signals, and the request state listening on them, would be promoted to the old
 * generation and marked there (about a tenth of what enters the old generation per object converged).
 * Not AbortSignal.timeout: its timer fires at its deadline whether or not the work is over.
 */
import { timerDelay } from './timer-delay.ts';

export class AbortScope {
  readonly #controller = new AbortController();
  readonly #sources: AbortSignal[] = [];
  readonly #onSourceAbort = (event: Event) => this.abort((event.target as AbortSignal).reason);
  #timer: NodeJS.Timeout | undefined;
  #timedOut = false;

  /** `sources` undefined are left out; `deadlineMs` undefined: no deadline. */
  constructor(sources: readonly (AbortSignal | undefined)[], deadlineMs?: number) {
    for (const source of sources) {
      if (!source) continue;
      if (source.aborted) {
        this.abort(source.reason);
        return;
      }
      source.addEventListener('abort', this.#onSourceAbort);
      this.#sources.push(source);
    }
    if (deadlineMs === undefined) return;
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timerDelay(deadlineMs));
    this.#timer.unref();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the scope's own deadline aborted it (not a source, not abort()). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  abort(reason?: unknown): void {
    if (this.#controller.signal.aborted) return;
    this.end();
    this.#controller.abort(reason);
  }

  /** The work is over: nothing aborts the signal from now on. */
  end(): void {
    for (const source of this.#sources) source.removeEventListener('abort', this.#onSourceAbort);
    this.#sources.length = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
