import { describe, expect, it } from 'vitest';
import { AcknowledgedLists } from './acknowledged-lists.ts';

describe('AcknowledgedLists', () => {
  it.each<{ name: string; writes: string[][]; confirm?: number; all: string[][]; settledOn: string[] }>([
    { name: 'nothing written', writes: [], all: [[]], settledOn: [] },
    { name: 'one list, unconfirmed', writes: [['a']], all: [[], ['a']], settledOn: ['a'] },
    { name: 'one list, confirmed', writes: [['a']], confirm: 1, all: [['a']], settledOn: ['a'] },
    { name: 'a renewal keeps one entry', writes: [['a'], ['a']], confirm: 2, all: [['a']], settledOn: ['a'] },
    {
      name: 'a listing after an older write keeps the newer lists',
      writes: [['a'], ['a', 'b']],
      confirm: 1,
      all: [['a'], ['a', 'b']],
      settledOn: ['a', 'b'],
    },
    {
      name: 'a listing after the newest write keeps it alone',
      writes: [['a'], ['a', 'b']],
      confirm: 2,
      all: [['a', 'b']],
      settledOn: ['a', 'b'],
    },
  ])('$name', ({ writes, confirm, all, settledOn }) => {
    const lists = new AcknowledgedLists();
    for (const list of writes) lists.write(list);
    if (confirm !== undefined) lists.confirm(confirm);
    expect(lists.all()).toEqual(all);
    expect(lists.last()).toEqual(all.at(-1));
    expect(lists.unconfirmed()).toBe(all.length > 1);
    expect(lists.settledOn(settledOn)).toBe(all.length === 1);
  });

  it('numbers each write', () => {
    const lists = new AcknowledgedLists();
    expect([lists.write(['a']), lists.write(['a']), lists.write(['a', 'b'])]).toEqual([1, 2, 3]);
  });
});
