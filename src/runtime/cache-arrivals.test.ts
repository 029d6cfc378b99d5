import { describe, expect, it } from 'vitest';
import { CacheArrivals } from './cache-arrivals.ts';

const obj = (rv: string | undefined) => ({ metadata: { namespace: 'ns', name: 'a', resourceVersion: rv } });

describe('CacheArrivals', () => {
  it('resolves at once when the cache already holds that version', async () => {
    const arrivals = new CacheArrivals(() => obj('7'));
    await expect(arrivals.until(obj('7'), 10_000)).resolves.toBe(true);
  });

  it('resolves when the informer delivers that version, not before', async () => {
    const arrivals = new CacheArrivals(() => obj('6'));
    const waiting = arrivals.until(obj('7'), 10_000);
    let settled = false;
    void waiting.then(() => {
      settled = true;
    });
    arrivals.delivered(obj('6'));
    arrivals.delivered({ metadata: { namespace: 'ns', name: 'b', resourceVersion: '7' } });
    await Promise.resolve();
    expect(settled).toBe(false);
    arrivals.delivered(obj('7'));
    await expect(waiting).resolves.toBe(true);
  });

  it.each<[string, (abort: AbortController) => void]>([
    ['the timeout passes', () => {}],
    ['the signal aborts', (abort) => abort.abort()],
  ])('resolves false when %s', async (_, act) => {
    const arrivals = new CacheArrivals<ReturnType<typeof obj>>(() => undefined);
    const abort = new AbortController();
    const waiting = arrivals.until(obj('7'), 20, abort.signal);
    act(abort);
    await expect(waiting).resolves.toBe(false);
  });

  it('an object without a resourceVersion cannot be waited for', async () => {
    const arrivals = new CacheArrivals(() => obj(undefined));
    await expect(arrivals.until(obj(undefined), 10_000)).resolves.toBe(false);
  });
});
