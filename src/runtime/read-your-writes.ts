/**
 * Read-your-writes over an informer cache. After the controller writes an object (status, finalizer),
 * the informer may still hold a version from before the write for a moment; a reconcile that ran on it
 * would redo the work (a second PATCH of the same secrets, say). The written version stands in for the
 * cached one while the cache still shows a version that was written over (one pass may write twice:
 * both versions before its last write are stale); as soon as the cache moves on (to our write or
 * anything newer), the cache wins again and the written copy is dropped. resourceVersions are compared
 * only for equality, as the API asks.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from './keys.ts';

export class ReadYourWrites<T extends KubernetesObject> {
  readonly #written = new Map<string, { stale: Set<string | undefined>; object: T }>();
  readonly #cached: (key: string) => T | undefined;

  /** `cached`: what the informer holds for a key now. */
  constructor(cached: (key: string) => T | undefined) {
    this.#cached = cached;
  }

  remember(before: T, after: T): void {
    const key = objectKey(after);
    const earlier = this.#written.get(key);
    // Written over our own earlier write: the versions that one stood in for are stale too.
    const stale = new Set(
      earlier?.object.metadata?.resourceVersion === before.metadata?.resourceVersion ? earlier?.stale : [],
    );
    stale.add(before.metadata?.resourceVersion);
    // Under load the watch often delivers a write before its own answer is read: nothing to stand in for.
    const current = this.#cached(key);
    if (current && !stale.has(current.metadata?.resourceVersion)) {
      this.#written.delete(key);
      return;
    }
    this.#written.set(key, { stale, object: after });
  }

  forget(key: string): void {
    this.#written.delete(key);
  }

  /**
   * The informer delivered this version: a write it supersedes is dropped now, not at the object's next
   * read (a Ready object is read again only at its resync; until then every object written would be
   * held twice).
   */
  delivered(cached: T): void {
    this.read(cached);
  }

  read(cached: T | undefined): T | undefined {
    if (!cached) return cached;
    const key = objectKey(cached);
    const written = this.#written.get(key);
    if (!written) return cached;
    if (written.stale.has(cached.metadata?.resourceVersion)) return written.object;
    this.#written.delete(key);
    return cached;
  }

  /** Objects held (for tests). */
  get size(): number {
    return this.#written.size;
  }
}
