/**
 * One shared copy of each string value that many objects repeat. JSON.parse makes a new string for
 * every value it reads, so 10,000 cached objects carry 10,000 copies of their apiVersion, namespace,
 * listener id, image and condition reasons: about 40% of each cached object. Only values known to
 * repeat are interned (by the caller's choice of fields), and the table is dropped whole when it grows
 * past its cap, so values of objects long gone are not kept for ever.
 */
export class Interner {
  readonly #table = new Map<string, string>();
  readonly #cap: number;

  constructor(cap = 50_000) {
    this.#cap = cap;
  }

  intern<T>(value: T): T {
    if (typeof value !== 'string') return value;
    const known = this.#table.get(value);
    if (known !== undefined) return known as T;
    if (this.#table.size >= this.#cap) this.#table.clear();
    this.#table.set(value, value);
    return value;
  }

  /** Interns the string values of these fields of `obj`, in place. */
  fields<T extends object>(obj: T | null | undefined, names: readonly (keyof T)[]): void {
    if (!obj) return;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as keyof T;
      const value = obj[name];
      if (typeof value === 'string') obj[name] = this.intern(value);
    }
  }

  get size(): number {
    return this.#table.size;
  }
}
