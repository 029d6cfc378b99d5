/**
 * A figure counted over a cache, counted again only once what it reads has changed: `changes` returns
 * counters that each move whenever one thing the figure reads changes (an informer's cache, the view
 * of the shard members). A scrape then walks the cache only after a change, not every time: at 10,000
 * objects each walk cost tens of milliseconds under the image's baseline compiler, several per scrape.
 */
export function memoByChanges<T>(changes: () => readonly number[], count: () => T): () => T {
  let seen: readonly number[] | undefined;
  let value: T;
  return () => {
    const now = changes();
    if (seen === undefined || now.length !== seen.length || now.some((c, i) => c !== seen?.[i])) {
      value = count();
      seen = now;
    }
    return value;
  };
}
