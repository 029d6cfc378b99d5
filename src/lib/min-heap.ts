/** A binary min-heap of items ordered by a numeric priority (smallest first). */
export class MinHeap<T> {
  readonly #items: Array<{ priority: number; item: T }> = [];

  get size(): number {
    return this.#items.length;
  }

  push(priority: number, item: T): void {
    const items = this.#items;
    items.push({ priority, item });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as { priority: number }).priority <= priority) break;
      [items[i], items[parent]] = [
        items[parent] as (typeof items)[number],
        items[i] as (typeof items)[number],
      ];
      i = parent;
    }
  }

  /** The smallest priority, without removing it. */
  peek(): { priority: number; item: T } | undefined {
    return this.#items[0];
  }

  pop(): { priority: number; item: T } | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (
        left < items.length &&
        (items[left] as typeof last).priority < (items[smallest] as typeof last).priority
      )
        smallest = left;
      if (
        right < items.length &&
        (items[right] as typeof last).priority < (items[smallest] as typeof last).priority
      )
        smallest = right;
      if (smallest === i) break;
      [items[i], items[smallest]] = [items[smallest] as typeof last, items[i] as typeof last];
      i = smallest;
    }
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }
}
