import { describe, expect, it } from 'vitest';
import { mayWork, ownerOf, standbyOf, unclaimed } from './shard-ownership.ts';
import { MAY_WORK, type MembersView, OWNS, ShardVerdicts, STANDS_BY, UNCLAIMED } from './shard-verdicts.ts';

const keys = Array.from({ length: 500 }, (_, i) => `ns-${i % 5}/object-${i}`);

const views: [string, MembersView][] = [
  [
    'settled: everyone acknowledged the same list',
    {
      identity: 'a',
      claims: [['a', 'b', 'c']],
      target: ['a', 'b', 'c'],
      others: [
        { identity: 'b', acknowledged: ['a', 'b', 'c'] },
        { identity: 'c', acknowledged: ['a', 'b', 'c'] },
      ],
      lost: false,
    },
  ],
  [
    'c died: a acknowledged, b not yet',
    {
      identity: 'a',
      claims: [['a', 'b']],
      target: ['a', 'b'],
      others: [{ identity: 'b', acknowledged: ['a', 'b', 'c'] }],
      lost: false,
    },
  ],
  [
    'a write of unknown outcome: two claims',
    {
      identity: 'a',
      claims: [
        ['a', 'b', 'c'],
        ['a', 'b'],
      ],
      target: ['a', 'b'],
      others: [{ identity: 'b', acknowledged: ['a', 'b'] }],
      lost: false,
    },
  ],
  [
    'membership lost',
    {
      identity: 'a',
      claims: [['a', 'b']],
      target: ['a', 'b'],
      others: [{ identity: 'b', acknowledged: ['a', 'b'] }],
      lost: true,
    },
  ],
];

describe('ShardVerdicts', () => {
  it.each(views)('%s: the verdicts are those of shard-ownership.ts, asked twice or once', (_name, view) => {
    const verdicts = new ShardVerdicts(view);
    const published = [{ identity: view.identity, acknowledged: view.claims.at(-1) ?? [] }, ...view.others];
    for (const key of keys) {
      const expected =
        (unclaimed(key, published) ? UNCLAIMED : 0) |
        (view.lost
          ? 0
          : (ownerOf(key, view.target) === view.identity ? OWNS : 0) |
            (mayWork(key, view, view.others) ? MAY_WORK : 0) |
            (standbyOf(key, view.target) === view.identity ? STANDS_BY : 0));
      expect(verdicts.of(key)).toBe(expected);
      expect(verdicts.of(key)).toBe(expected);
    }
  });

  it('judges by a new view at once: nothing of the one before is answered', () => {
    const [[, before], [, after]] = views as [[string, MembersView], [string, MembersView]];
    const verdicts = new ShardVerdicts(before);
    for (const key of keys) verdicts.of(key);
    verdicts.judgeBy(after);
    const fresh = new ShardVerdicts(after);
    const changed = keys.filter((key) => new ShardVerdicts(before).of(key) !== fresh.of(key));
    expect(changed.length).toBeGreaterThan(0);
    for (const key of keys) expect(verdicts.of(key)).toBe(fresh.of(key));
  });

  it('keeps a verdict under the copy of the key held elsewhere, and none for a key not held', () => {
    const [[, view]] = views as [[string, MembersView]];
    const held = new Set(keys.slice(0, 250));
    const asked: string[] = [];
    const verdicts = new ShardVerdicts(view, (key) => {
      asked.push(key);
      return held.has(key) ? key : undefined;
    });
    const fresh = new ShardVerdicts(view);
    for (const key of keys) expect(verdicts.of(key)).toBe(fresh.of(key));
    expect(asked).toEqual(keys);
    // Asked again: the held keys' verdicts were kept, the others are judged (and not kept) anew.
    asked.length = 0;
    for (const key of keys) expect(verdicts.of(key)).toBe(fresh.of(key));
    expect(asked).toEqual(keys.slice(250));
  });
});
