import { describe, expect, it } from 'vitest';
import { KeyScores, type MemberClaim, mayWork, ownerOf, standbyOf, unclaimed } from './shard-ownership.ts';

const keys = Array.from({ length: 3000 }, (_, i) => `ns-${i % 7}/object-${i}`);

describe('ownerOf (rendezvous hashing)', () => {
  it('gives every key one owner, the same for any order of the members', () => {
    for (const key of keys.slice(0, 200)) {
      expect(ownerOf(key, ['a', 'b', 'c'])).toBe(ownerOf(key, ['c', 'a', 'b']));
    }
    expect(ownerOf('ns/x', [])).toBeUndefined();
    expect(ownerOf('ns/x', ['only'])).toBe('only');
  });

  it.each([
    { members: 3, maxOverMean: 1.08 },
    { members: 4, maxOverMean: 1.08 },
    { members: 5, maxOverMean: 1.1 },
  ])('spreads 3,000 keys evenly over $members members', ({ members, maxOverMean }) => {
    const names = Array.from({ length: members }, (_, i) => `controller-7d9f-${i}_a1b2c3d4`);
    const counts = new Map<string, number>();
    for (const key of keys) {
      const owner = ownerOf(key, names) as string;
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    const max = Math.max(...counts.values());
    expect(max / (keys.length / members)).toBeLessThan(maxOverMean);
  });

  it('moves only the keys the new member wins when one joins (about a quarter from 3 to 4)', () => {
    const three = ['r-0', 'r-1', 'r-2'];
    const four = [...three, 'r-3'];
    const moved = keys.filter((k) => ownerOf(k, three) !== ownerOf(k, four));
    expect(moved.every((k) => ownerOf(k, four) === 'r-3')).toBe(true);
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
  ])('%s: the owner once the owner is gone, never the owner itself', (_name, members) => {
    for (const key of keys.slice(0, 300)) {
      const owner = ownerOf(key, members);
      const standby = standbyOf(key, members);
      expect(standby).toBe(
        ownerOf(
          key,
          members.filter((m) => m !== owner),
        ),
      );
      if (members.length > 1) expect(standby).not.toBe(owner);
    }
  });
});

describe('mayWork', () => {
  const key = keys.find((k) => ownerOf(k, ['a', 'b']) === 'b' && ownerOf(k, ['a']) === 'a') as string;
  const claim = (identity: string, acknowledged: string[]): MemberClaim => ({ identity, acknowledged });

  it.each([
    {
      why: 'the owner under every list, no other claim',
      self: { identity: 'b', claims: [['a', 'b']], target: ['a', 'b'] },
      others: [claim('a', ['a', 'b'])],
      may: true,
    },
    {
      why: 'a joined member before it published its list: it holds nothing yet',
      self: { identity: 'b', claims: [[]], target: ['a', 'b'] },
      others: [claim('a', ['a'])],
      may: false,
    },
    {
      why: 'the previous owner has not acknowledged the new member yet',
      self: { identity: 'b', claims: [['a', 'b']], target: ['a', 'b'] },
      others: [claim('a', ['a'])],
      may: false,
    },
    {
      why: 'the previous owner acknowledged: it let go',
      self: { identity: 'b', claims: [['a', 'b']], target: ['a', 'b'] },
      others: [claim('a', ['a', 'b'])],
      may: true,
    },
    {
      why: 'losing the key under the list it moves to: it stops at once, before acknowledging',
      self: { identity: 'a', claims: [['a']], target: ['a', 'b'] },
      others: [],
      may: false,
    },
    {
      why: 'the previous owner is dead (not live, so not among the others)',
      self: { identity: 'b', claims: [['b']], target: ['b'] },
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
          const a = mayWork(k, { identity: 'a', claims: [la], target: la }, [claim('b', lb)]);
          const b = mayWork(k, { identity: 'b', claims: [lb], target: lb }, [claim('a', la)]);
          expect(a && b).toBe(false);
        }
      }
    }
  });

  it('unclaimed: no live member claims the key under its published list', () => {
    expect(unclaimed(key, [claim('a', ['a', 'b']), claim('b', ['a'])])).toBe(true);
    expect(unclaimed(key, [claim('a', ['a', 'b']), claim('b', ['a', 'b'])])).toBe(false);
  });
});

describe('mayWork with a write whose outcome is unknown', () => {
  it('holds only what it owns under every list its Lease may show', () => {
    const k = keys.find((x) => ownerOf(x, ['a']) === 'a' && ownerOf(x, ['a', 'b']) === 'b') as string;
    // It wrote ['a', 'b'] (giving k away) and does not know whether the write landed: not k.
    expect(mayWork(k, { identity: 'a', claims: [['a'], ['a', 'b']], target: ['a'] }, [])).toBe(false);
    expect(mayWork(k, { identity: 'a', claims: [['a']], target: ['a'] }, [])).toBe(true);
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
  const referenceOwner = (key: string, members: readonly string[]) =>
    [...members].sort().reduce<string | undefined>((best, m) => {
      if (best === undefined) return m;
      return referenceScore(m, key) > referenceScore(best, key) ? m : best;
    }, undefined);

  // Replicas of different versions share one group during a rolling update: the owner of a key must
  // be the one every version computes.
  it.each([
    { members: ['a', 'b', 'c'] },
    { members: ['controller-7d9f-0_a1b2c3d4', 'controller-7d9f-1_e5f6a7b8', 'controller-7d9f-2_0c1d2e3f'] },
    { members: ['ünïcode-0', 'ünïcode-1', '\u{1F600}-2', ''] },
  ])('gives each key the owner of the hash over the whole text ($members)', ({ members }) => {
    const all = [...keys, 'ns/ünïcode', 'ns/\u{1F600}', ''];
    expect(all.filter((key) => ownerOf(key, members) !== referenceOwner(key, members))).toEqual([]);
  });

  it('checks one key against several lists with the same answers as one list at a time', () => {
    for (const key of keys.slice(0, 500)) {
      const scores = new KeyScores(key);
      for (const list of [['a', 'b'], ['b', 'c'], ['a', 'b', 'c'], ['c']])
        expect(scores.ownerOf(list)).toBe(ownerOf(key, list));
    }
  });
});
