/**
 * `namespace/secret` -> keys of the objects that read it, kept current by the object informer: the
 * Secrets cache holds the values of these Secrets only. Of an object assigned to another replica (a
 * projection), only its credentials Secret is read here (its claims' identity).
 */
import { joinKey, objectKey } from '../../../runtime/keys.ts';
import { referencedSecretNames } from '../../../translate/secrets.ts';
import { type CachedAgentDeployment, isProjection } from './projection.ts';

/** The objects that read a Secret, and the list of that Secret alone, shared by each that reads only it. */
interface Readers {
  keys: Set<string>;
  only: readonly string[];
}

export class SecretIndex {
  readonly #readers = new Map<string, Readers>();
  readonly #reads = new Map<string, readonly string[]>();
  readonly #told: { firstReader(secretKey: string): void; lastReaderGone(secretKey: string): void };

  /** Told when a Secret gains its first reader, and when its last reader goes. */
  constructor(told: { firstReader(secretKey: string): void; lastReaderGone(secretKey: string): void }) {
    this.#told = told;
  }

  set(obj: CachedAgentDeployment): void {
    const key = objectKey(obj);
    const before = this.#reads.get(key) ?? [];
    const ns = obj.metadata.namespace ?? '';
    // Of an object assigned to another replica, only its credentials are read here (its claims' identity).
    const names = isProjection(obj)
      ? [obj.spec.credentialsSecretRef?.name ?? []].flat()
      : referencedSecretNames(obj.spec);
    const secrets = names.map((name) => joinKey(ns, name));
    // Most updates read the same Secrets: left as they are (dropping and adding each reader again
    // would leave holes in the Maps and Sets, which V8 grows to twice their room).
    if (secrets.length === before.length && secrets.every((s, i) => s === before[i])) return;
    this.#drop(key);
    for (const s of secrets) {
      const readers = this.#readers.get(s);
      if (readers) readers.keys.add(key);
      else {
        this.#readers.set(s, { keys: new Set([key]), only: Object.freeze([s]) });
        this.#told.firstReader(s);
      }
    }
    // Most objects read no Secret: no entry for them. Most others read one (a projection, its
    // credentials): they share its list, where each held an array and a string of its own.
    const [one, ...more] = secrets;
    if (one !== undefined)
      this.#reads.set(key, more.length === 0 ? (this.#readers.get(one)?.only ?? secrets) : secrets);
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
    return [...(this.#readers.get(secretKey)?.keys ?? [])];
  }

  /** The Secrets an object reads, as held (for tests). */
  secretsReadBy(key: string): readonly string[] {
    return this.#reads.get(key) ?? [];
  }

  isRead(secretKey: string): boolean {
    return (this.#readers.get(secretKey)?.keys.size ?? 0) > 0;
  }

  #drop(key: string): void {
    for (const s of this.#reads.get(key) ?? []) this.#readers.get(s)?.keys.delete(key);
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
