import { describe, expect, it } from 'vitest';
import { assigneeOf, mayWork, standbyOf, unassigned } from './shard-assignment.ts';
import {
  ASSIGNED,
  MAY_WORK,
  type MembersView,
  ShardVerdicts,
  STANDS_BY,
  UNASSIGNED,
} from './shard-verdicts.ts';

const keys = Array.from({ length: 500 }, (_, i) => `ns-${i % 5}/object-${i}`);

const views: [string, MembersView][] = [
  [
    'settled: everyone acknowledged the same list',
    {
      identity: 'a',
      published: [['a', 'b', 'c']],
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
      published: [['a', 'b']],
      target: ['a', 'b'],
      others: [{ identity: 'b', acknowledged: ['a', 'b', 'c'] }],
      lost: false,
    },
  ],
  [
    'a write of unknown outcome: two lists published',
    {
      identity: 'a',
      published: [
        ['a', 'b', 'c'],
        ['a', 'b'],
      ],
      target: ['a', 'b'],
      others: [{ identity: 'b', acknowledged: ['a', 'b'] }],
      lost: false,
    },
  ],
  [
    'd left: b acknowledged, c not yet, a write of unknown outcome',
    {
      identity: 'b',
      published: [
        ['a', 'b', 'c', 'd'],
        ['a', 'b', 'c'],
      ],
      target: ['a', 'b', 'c'],
      others: [
        { identity: 'a', acknowledged: ['a', 'b', 'c'] },
        { identity: 'c', acknowledged: ['a', 'b', 'c', 'd'] },
      ],
      lost: false,
    },
  ],
  [
    'd joins: nothing acknowledged yet, the others on the list before it',
    {
      identity: 'd',
      published: [],
      target: ['a', 'b', 'c', 'd'],
      others: [
        { identity: 'a', acknowledged: ['a', 'b', 'c'] },
        { identity: 'b', acknowledged: ['a', 'b', 'c', 'd'] },
        { identity: 'c', acknowledged: ['a', 'b', 'c'] },
      ],
      lost: false,
    },
  ],
  [
    'membership lost',
    {
      identity: 'a',
      published: [['a', 'b']],
      target: ['a', 'b'],
      others: [{ identity: 'b', acknowledged: ['a', 'b'] }],
      lost: true,
    },
  ],
];

describe('ShardVerdicts', () => {
  it.each(views)('%s: the verdicts are those of shard-assignment.ts, asked twice or once', (_name, view) => {
    const verdicts = new ShardVerdicts(view);
    const published = [
      { identity: view.identity, acknowledged: view.published.at(-1) ?? [] },
      ...view.others,
    ];
    for (const key of keys) {
      const expected =
        (unassigned(key, published) ? UNASSIGNED : 0) |
        (view.lost
          ? 0
          : (assigneeOf(key, view.target) === view.identity ? ASSIGNED : 0) |
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

  it('counts the views it judged by: a new view moves views, the same view again does not', () => {
    const [[, before], [, after]] = views as [[string, MembersView], [string, MembersView]];
    const verdicts = new ShardVerdicts(before);
    const first = verdicts.views;
    verdicts.judgeBy({ ...before, target: [...before.target] });
    expect(verdicts.views).toBe(first);
    verdicts.judgeBy(after);
    expect(verdicts.views).toBe(first + 1);
    verdicts.judgeBy(before);
    expect(verdicts.views).toBe(first + 2);
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

describe('ShardVerdicts over a life of member changes', () => {
  /** The verdicts by shard-assignment.ts's rules alone, scored afresh. */
  const byTheRules = (key: string, view: MembersView) => {
    const published = [
      { identity: view.identity, acknowledged: view.published.at(-1) ?? [] },
      ...view.others,
    ];
    return (
      (unassigned(key, published) ? UNASSIGNED : 0) |
      (view.lost
        ? 0
        : (assigneeOf(key, view.target) === view.identity ? ASSIGNED : 0) |
          (mayWork(key, view, view.others) ? MAY_WORK : 0) |
          (standbyOf(key, view.target) === view.identity ? STANDS_BY : 0))
    );
  };
  /** Replica `a`'s views while members join, die one by one or two at once, and acknowledge in turn. */
  const life: MembersView[] = [];
  const seen = (target: string[], acknowledgedBy: Record<string, string[]>, published = [target]) =>
    life.push({
      identity: 'a',
      published,
      target,
      others: Object.entries(acknowledgedBy).map(([identity, acknowledged]) => ({ identity, acknowledged })),
      lost: false,
    });
  const abc = ['a', 'b', 'c'];
  const abcd = ['a', 'b', 'c', 'd'];
  seen(abc, { b: abc, c: abc });
  seen(abcd, { b: abc, c: abc, d: [] }, [abc]); // d joins, a not yet acknowledged
  seen(abcd, { b: abcd, c: abc, d: [] }, [abc, abcd]);
  seen(abcd, { b: abcd, c: abcd, d: abcd });
  seen(abc, { b: abcd, c: abcd }, [abcd]); // d killed: seen dead
  seen(abc, { b: abc, c: abcd });
  seen(['a', 'b'], { b: abc }, [abc]); // c killed while b still on the list before
  seen(['a'], {}, [['a', 'b']]); // b too: two gone from the ranked members
  seen(['a', 'e', 'f'], { e: ['a'], f: [] }, [['a']]); // new members: ranked anew
  seen(['a', 'e', 'f'], { e: ['a', 'e', 'f'], f: ['a', 'e', 'f'] });
  life.push({ ...(life.at(-1) as MembersView), lost: true });

  it('answers every key as the rules do, at every step, judged from one table', () => {
    const verdicts = new ShardVerdicts(life[0] as MembersView);
    for (const view of life) {
      verdicts.judgeBy(view);
      for (const key of keys)
        expect(verdicts.of(key), `${key} under ${JSON.stringify(view)}`).toBe(byTheRules(key, view));
    }
  });

  it('keeps rankings of held keys only: a key deleted meanwhile is ranked anew, and right', () => {
    const held = new Set(keys);
    const asked: string[] = [];
    const [before, after] = [life[3], life[4]] as [MembersView, MembersView]; // d killed: no member new
    const verdicts = new ShardVerdicts(before, (key) => {
      asked.push(key);
      return held.has(key) ? key : undefined;
    });
    for (const key of keys) verdicts.of(key);
    const deleted = keys.slice(0, 100);
    for (const key of deleted) held.delete(key);
    asked.length = 0;
    verdicts.judgeBy(after);
    for (const key of keys) expect(verdicts.of(key)).toBe(byTheRules(key, after));
    // The held: asked by the sweep only (their rankings kept); the deleted: swept, then ranked anew.
    expect(asked.filter((key) => held.has(key))).toEqual(keys.slice(100));
    expect(asked.filter((key) => !held.has(key))).toEqual([...deleted, ...deleted]);
  });

  it('never answers a verdict of another view that had the same number (they come round every 63)', () => {
    const [a, b] = [life[0], life[1]] as [MembersView, MembersView];
    const verdicts = new ShardVerdicts(a);
    for (let change = 1; change <= 64; change++) {
      const view = change % 2 === 1 ? b : a;
      verdicts.judgeBy(view);
      // Judged under view number 1 (b), then asked under view number 1 again (a), 63 changes later.
      if (change === 1 || change === 64)
        for (const key of keys) expect(verdicts.of(key)).toBe(byTheRules(key, view));
    }
  });
});
