import { describe, expect, it } from 'vitest';
import { assigneeOf, mayWork, standbyOf, unassigned } from './shard-assignment.ts';
import { ASSIGNED, MAY_WORK, type MembersView, ShardView, STANDS_BY, UNASSIGNED } from './shard-view.ts';

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

describe('ShardView', () => {
  it.each(views)('%s: the answers are those of shard-assignment.ts', (_name, view) => {
    const shardView = new ShardView(view);
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
      expect(shardView.of(key)).toBe(expected);
    }
  });

  it('answers by a new view at once: nothing of the one before is answered', () => {
    const [[, before], [, after]] = views as [[string, MembersView], [string, MembersView]];
    const shardView = new ShardView(before);
    for (const key of keys) shardView.of(key);
    shardView.set(after);
    const fresh = new ShardView(after);
    const changed = keys.filter((key) => new ShardView(before).of(key) !== fresh.of(key));
    expect(changed.length).toBeGreaterThan(0);
    for (const key of keys) expect(shardView.of(key)).toBe(fresh.of(key));
  });

  it('counts the views set: a new view moves views, the same view again does not', () => {
    const [[, before], [, after]] = views as [[string, MembersView], [string, MembersView]];
    const shardView = new ShardView(before);
    const first = shardView.views;
    shardView.set({ ...before, target: [...before.target] });
    expect(shardView.views).toBe(first);
    shardView.set(after);
    expect(shardView.views).toBe(first + 1);
    shardView.set(before);
    expect(shardView.views).toBe(first + 2);
  });
});

describe('ShardView over a life of member changes', () => {
  /** The answers by shard-assignment.ts's rules alone. */
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
  seen(['a'], {}, [['a', 'b']]); // b too
  seen(['a', 'e', 'f'], { e: ['a'], f: [] }, [['a']]); // new members
  seen(['a', 'e', 'f'], { e: ['a', 'e', 'f'], f: ['a', 'e', 'f'] });
  life.push({ ...(life.at(-1) as MembersView), lost: true });

  it('answers every key as the rules do, at every step', () => {
    const shardView = new ShardView(life[0] as MembersView);
    for (const view of life) {
      shardView.set(view);
      for (const key of keys)
        expect(shardView.of(key), `${key} under ${JSON.stringify(view)}`).toBe(byTheRules(key, view));
    }
  });
});
