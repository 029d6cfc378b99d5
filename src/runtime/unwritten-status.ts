/**
 * What a pass applied, kept in memory when its status write failed. Status is where a pass records what
 * it did to the platform (deployment id, digests of the secrets sent); if that write fails and the next
 * pass read the old status, it would send the same change again, a new revision each time, and forever
 * when the write fails for good. What the pass meant to change stands in until a write succeeds or the
 * object goes: kept as the merge patch from the status it read, and shown applied to the status stored
 * now, so a change someone else made meanwhile (a write refused because the object moved on) is not
 * hidden. The write itself is still computed against the stored status.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from './keys.ts';
import { applyMergePatch, statusMergePatch } from './status-patch.ts';

interface Unwritten {
  uid: string | undefined;
  /** The merge patch from the status the pass read to the one it meant to write. */
  patch: object;
}

export class UnwrittenStatus<T extends KubernetesObject & { status?: unknown }> {
  readonly #byKey = new Map<string, Unwritten>();
  /** The stored object behind each object handed out with a status of ours in it. */
  readonly #stored = new WeakMap<T, T>();

  /** The object with the status its last pass meant to write, when that write failed. */
  overlay(obj: T | undefined): T | undefined {
    if (!obj) return obj;
    const entry = this.#byKey.get(objectKey(obj));
    if (!entry) return obj;
    if (entry.uid !== obj.metadata?.uid) {
      // Another object of the same name: what the old one applied is not its.
      this.#byKey.delete(objectKey(obj));
      return obj;
    }
    const shown = {
      ...obj,
      status: applyMergePatch((obj.status as object | undefined) ?? {}, entry.patch),
    } as T;
    this.#stored.set(shown, obj);
    return shown;
  }

  /** Writes through `write` against the stored object; remembers the status if the write fails. */
  async write<R>(obj: T, status: unknown, write: (stored: T) => Promise<R>): Promise<R> {
    const stored = this.#stored.get(obj) ?? obj;
    try {
      const written = await write(stored);
      this.#byKey.delete(objectKey(stored));
      return written;
    } catch (err) {
      this.#byKey.set(objectKey(stored), {
        uid: stored.metadata?.uid,
        patch: statusMergePatch((stored.status as object | undefined) ?? {}, status as object),
      });
      throw err;
    }
  }

  /** The stored object behind one overlay() returned; undefined for an object shown as stored. */
  stored(obj: T): T | undefined {
    return this.#stored.get(obj);
  }

  forget(key: string): void {
    this.#byKey.delete(key);
  }

  get size(): number {
    return this.#byKey.size;
  }
}
