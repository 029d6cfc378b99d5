/**
 * `namespace/secret` -> keys of the objects that read it, kept current by the object informer: the
 * Secrets cache holds the values of these Secrets only. Of an object another replica owns (a
 * projection), only its credentials Secret is read here (its claims' identity).
 */
import { joinKey, objectKey } from '../../runtime/keys.ts';
import { referencedSecretNames } from '../../translate/secrets.ts';
import { type CachedAgentDeployment, isProjection } from './projection.ts';

export class SecretIndex {
  readonly #readers = new Map<string, Set<string>>();
  readonly #reads = new Map<string, string[]>();
  readonly #told: { firstReader(secretKey: string): void; lastReaderGone(secretKey: string): void };

  /** Told when a Secret gains its first reader, and when its last reader goes. */
  constructor(told: { firstReader(secretKey: string): void; lastReaderGone(secretKey: string): void }) {
    this.#told = told;
  }

  set(obj: CachedAgentDeployment): void {
    const key = objectKey(obj);
    const before = this.#reads.get(key) ?? [];
    const ns = obj.metadata.namespace ?? '';
    // Of an object another replica owns, only its credentials are read here (its claims' identity).
    const names = isProjection(obj)
      ? [obj.spec.credentialsSecretRef?.name ?? []].flat()
      : referencedSecretNames(obj.spec);
    const secrets = names.map((name) => joinKey(ns, name));
    // Most updates read the same Secrets: left as they are (dropping and adding each reader again
    // would leave holes in the Maps and Sets, which V8 grows to twice their room).
    if (secrets.length === before.length && secrets.every((s, i) => s === before[i])) return;
    this.#drop(key);
    // Most objects read no Secret: no entry for them.
    if (secrets.length > 0) this.#reads.set(key, secrets);
    for (const s of secrets) {
      const readers = this.#readers.get(s);
      if (readers) {
        readers.add(key);
        continue;
      }
      this.#readers.set(s, new Set([key]));
      this.#told.firstReader(s);
    }
    this.#releaseUnread(before);
  }

  delete(key: string): void {
    const before = this.#reads.get(key) ?? [];
    this.#drop(key);
    this.#releaseUnread(before);
  }

  /** Secrets with readers, for tests. */
  get size(): number {
    return this.#readers.size;
  }

  readersOf(secretKey: string): string[] {
    return [...(this.#readers.get(secretKey) ?? [])];
  }

  isRead(secretKey: string): boolean {
    return (this.#readers.get(secretKey)?.size ?? 0) > 0;
  }

  #drop(key: string): void {
    for (const s of this.#reads.get(key) ?? []) this.#readers.get(s)?.delete(key);
    this.#reads.delete(key);
  }

  #releaseUnread(secretKeys: readonly string[]): void {
    for (const s of secretKeys) {
      if (this.isRead(s)) continue;
      this.#readers.delete(s);
      this.#told.lastReaderGone(s);
    }
  }
}
