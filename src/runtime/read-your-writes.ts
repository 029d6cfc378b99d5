/**
 * Read-your-writes over an informer cache. After the controller writes an object (status, finalizer),
 * the informer may still hold the version from before the write for a moment; a reconcile that ran on
 * it would redo the work (a second PATCH of the same secrets, say). The written version stands in for
 * the cached one while the cache still shows exactly the version that was written over; as soon as the
 * cache moves on (to our write or anything newer), the cache wins again. resourceVersions are compared
 * only for equality, as the API asks.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from './keys.ts';

export class ReadYourWrites<T extends KubernetesObject> {
  readonly #written = new Map<string, { overwrittenVersion: string | undefined; object: T }>();

  remember(before: T, after: T): void {
    this.#written.set(objectKey(after), {
      overwrittenVersion: before.metadata?.resourceVersion,
      object: after,
    });
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
    if (
      written.overwrittenVersion !== undefined &&
      cached.metadata?.resourceVersion === written.overwrittenVersion
    ) {
      return written.object;
    }
    this.#written.delete(key);
    return cached;
  }
}
