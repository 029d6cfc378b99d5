/**
 * Values computed once per input, by the input's text, for inputs a process sees few of (credentials,
 * tenants): past `max` entries the table is emptied, not evicted one by one, so a flood of distinct
 * inputs costs recomputation, never memory.
 */
export class BoundedMemo<T> {
  readonly #values = new Map<string, T>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** The value kept for `text`, or `compute()`'s, kept. */
  get(text: string, compute: () => T): T {
    const known = this.#values.get(text);
    if (known !== undefined) return known;
    const value = compute();
    if (this.#values.size >= this.#max) this.#values.clear();
    this.#values.set(text, value);
    return value;
  }
}
