import { describe, expect, it } from 'vitest';
import {
  assigneeOf,
  KeyScores,
  type LiveMember,
  mayWork,
  standbyOf,
  unassigned,
} from './shard-assignment.ts';

const keys = Array.from({ length: 3000 }, (_, i) => `ns-${i % 7}/object-${i}`);

describe('assigneeOf (rendezvous hashing)', () => {
  it('gives every key one assignee, the same for any order of the members', () => {
    for (const key of keys.slice(0, 200)) {
      expect(assigneeOf(key, ['a', 'b', 'c'])).toBe(assigneeOf(key, ['c', 'a', 'b']));
    }
    expect(assigneeOf('ns/x', [])).toBeUndefined();
    expect(assigneeOf('ns/x', ['only'])).toBe('only');
  });

  it.each([
    { members: 3, maxOverMean: 1.08 },
    { members: 4, maxOverMean: 1.08 },
    { members: 5, maxOverMean: 1.1 },
  ])('spreads 3,000 keys evenly over $members members', ({ members, maxOverMean }) => {
    const names = Array.from({ length: members }, (_, i) => `controller-7d9f-${i}_a1b2c3d4`);
    const counts = new Map<string, number>();
    for (const key of keys) {
      const assignee = assigneeOf(key, names) as string;
      counts.set(assignee, (counts.get(assignee) ?? 0) + 1);
    }
    const max = Math.max(...counts.values());
    expect(max / (keys.length / members)).toBeLessThan(maxOverMean);
  });

  it('moves only the keys the new member wins when one joins (about a quarter from 3 to 4)', () => {
    const three = ['r-0', 'r-1', 'r-2'];
    const four = [...three, 'r-3'];
    const moved = keys.filter((k) => assigneeOf(k, three) !== assigneeOf(k, four));
    expect(moved.every((k) => assigneeOf(k, four) === 'r-3')).toBe(true);
    expect(moved.length / keys.length).toBeLessThan(0.3);
  });
});

describe('standbyOf', () => {
  it.each([
    ['no members', []],
    ['one member: none', ['a']],
    ['two members: the other', ['a', 'b']],
    ['three members', ['a', 'b', 'c']],
    ['four members', ['r-0', 'r-1', 'r-2', 'r-3']],
  ])('%s: the assignee once the assignee is gone, never the assignee itself', (_name, members) => {
    for (const key of keys.slice(0, 300)) {
      const assignee = assigneeOf(key, members);
      const standby = standbyOf(key, members);
      expect(standby).toBe(
        assigneeOf(
          key,
          members.filter((m) => m !== assignee),
        ),
      );
      if (members.length > 1) expect(standby).not.toBe(assignee);
    }
  });
});

describe('mayWork', () => {
  const key = keys.find((k) => assigneeOf(k, ['a', 'b']) === 'b' && assigneeOf(k, ['a']) === 'a') as string;
  const member = (identity: string, acknowledged: string[]): LiveMember => ({ identity, acknowledged });

  it.each([
    {
      why: 'assigned under every list, no other member has it',
      self: { identity: 'b', published: [['a', 'b']], target: ['a', 'b'] },
      others: [member('a', ['a', 'b'])],
      may: true,
    },
    {
      why: 'a joined member before it published its list: it holds nothing yet',
      self: { identity: 'b', published: [[]], target: ['a', 'b'] },
      others: [member('a', ['a'])],
      may: false,
    },
    {
      why: 'the previous assignee has not acknowledged the new member yet',
      self: { identity: 'b', published: [['a', 'b']], target: ['a', 'b'] },
      others: [member('a', ['a'])],
      may: false,
    },
    {
      why: 'the previous assignee acknowledged: it let go',
      self: { identity: 'b', published: [['a', 'b']], target: ['a', 'b'] },
      others: [member('a', ['a', 'b'])],
      may: true,
    },
    {
      why: 'losing the key under the list it moves to: it stops at once, before acknowledging',
      self: { identity: 'a', published: [['a']], target: ['a', 'b'] },
      others: [],
      may: false,
    },
    {
      why: 'the previous assignee is dead (not live, so not among the others)',
      self: { identity: 'b', published: [['b']], target: ['b'] },
      others: [],
      may: true,
    },
  ])('$why: $may', ({ self, others, may }) => {
    expect(mayWork(key, self, others)).toBe(may);
  });

  it('never lets two members pass for one key, whatever lists they published', () => {
    const lists = [[], ['a'], ['b'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'c'], ['b', 'c']];
    for (const k of keys.slice(0, 100)) {
      for (const la of lists) {
        for (const lb of lists) {
          const a = mayWork(k, { identity: 'a', published: [la], target: la }, [member('b', lb)]);
          const b = mayWork(k, { identity: 'b', published: [lb], target: lb }, [member('a', la)]);
          expect(a && b).toBe(false);
        }
      }
    }
  });

  it('unassigned: no live member has the key assigned under its published list', () => {
    expect(unassigned(key, [member('a', ['a', 'b']), member('b', ['a'])])).toBe(true);
    expect(unassigned(key, [member('a', ['a', 'b']), member('b', ['a', 'b'])])).toBe(false);
  });
});

describe('mayWork with a write whose outcome is unknown', () => {
  it('holds only what is assigned to it under every list its Lease may show', () => {
    const k = keys.find((x) => assigneeOf(x, ['a']) === 'a' && assigneeOf(x, ['a', 'b']) === 'b') as string;
    // It wrote ['a', 'b'] (giving k away) and does not know whether the write landed: not k.
    expect(mayWork(k, { identity: 'a', published: [['a'], ['a', 'b']], target: ['a'] }, [])).toBe(false);
    expect(mayWork(k, { identity: 'a', published: [['a']], target: ['a'] }, [])).toBe(true);
  });
});

describe('scores', () => {
  /** The hash as first written: FNV-1a over the whole `${member}\u0000${key}`, murmur3's finalizer. */
  function referenceScore(member: string, key: string): number {
    let h = 0x811c9dc5;
    const text = `${member}\u0000${key}`;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
  }
  const referenceAssignee = (key: string, members: readonly string[]) =>
    [...members].sort().reduce<string | undefined>((best, m) => {
      if (best === undefined) return m;
      return referenceScore(m, key) > referenceScore(best, key) ? m : best;
    }, undefined);

  // Replicas of different versions share one group during a rolling update: the assignee of a key must
  // be the one every version computes.
  it.each([
    { members: ['a', 'b', 'c'] },
    { members: ['controller-7d9f-0_a1b2c3d4', 'controller-7d9f-1_e5f6a7b8', 'controller-7d9f-2_0c1d2e3f'] },
    { members: ['ünïcode-0', 'ünïcode-1', '\u{1F600}-2', ''] },
  ])('gives each key the assignee of the hash over the whole text ($members)', ({ members }) => {
    const all = [...keys, 'ns/ünïcode', 'ns/\u{1F600}', ''];
    expect(all.filter((key) => assigneeOf(key, members) !== referenceAssignee(key, members))).toEqual([]);
  });

  it('checks one key against several lists with the same answers as one list at a time', () => {
    for (const key of keys.slice(0, 500)) {
      const scores = new KeyScores(key);
      for (const list of [['a', 'b'], ['b', 'c'], ['a', 'b', 'c'], ['c']])
        expect(scores.assigneeOf(list)).toBe(assigneeOf(key, list));
    }
  });
});
