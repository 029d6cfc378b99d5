/**
 * Waits until an informer has delivered a given version of an object. A watch delivers a resource's
 * events in the order they were written, so once the event of this object's own write has arrived, so
 * has every object written before it: a decision taken then sees every object that existed when the
 * write was made (the create guard's name contest relies on it). resourceVersions are compared only for
 * equality, as the API asks.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from './keys.ts';

interface Waiter {
  resourceVersion: string;
  arrived: () => void;
}

export class CacheArrivals<T extends KubernetesObject> {
  readonly #waiting = new Map<string, Set<Waiter>>();
  readonly #cached: (key: string) => T | undefined;

  /** `cached`: what the informer holds for a key now. */
  constructor(cached: (key: string) => T | undefined) {
    this.#cached = cached;
  }

  /** To be called with every object the informer delivers (add and update). */
  delivered(obj: T): void {
    const waiters = this.#waiting.get(objectKey(obj));
    if (!waiters) return;
    for (const waiter of waiters) {
      if (waiter.resourceVersion === obj.metadata?.resourceVersion) waiter.arrived();
    }
  }

  /**
   * Resolves true once the informer delivered this version of the object, false when it has not within
   * `timeoutMs` (or a newer write of someone else's arrived first and hid it) or the signal aborts.
   */
  until(obj: T, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const key = objectKey(obj);
    const resourceVersion = obj.metadata?.resourceVersion;
    if (!resourceVersion) return Promise.resolve(false);
    if (this.#cached(key)?.metadata?.resourceVersion === resourceVersion) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiters = this.#waiting.get(key) ?? new Set<Waiter>();
      this.#waiting.set(key, waiters);
      const finish = (arrived: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        waiters.delete(waiter);
        if (waiters.size === 0) this.#waiting.delete(key);
        resolve(arrived);
      };
      const aborted = () => finish(false);
      const waiter: Waiter = { resourceVersion, arrived: () => finish(true) };
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal?.addEventListener('abort', aborted, { once: true });
      waiters.add(waiter);
    });
  }
}
