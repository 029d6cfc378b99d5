/** The one chain runner, on a toy chain: who gathers a read, what bookkeeping does, what ends the run. */
import { describe, expect, it } from 'vitest';
import { type ChainProgram, decideChain, type GateList, runChain } from './chain-runner.ts';

interface Facts {
  world?: number;
  /** What the facts learned from the world read. */
  learned?: number;
  derived?: number;
  counted: number;
}
type Verdict =
  | { kind: 'read'; read: 'world' | 'derived' }
  | { kind: 'count' }
  | { kind: 'done'; value: number };
type Count = Extract<Verdict, { kind: 'count' }>;

const GATES: GateList<Facts, Verdict> = [
  ['world', (f) => (f.world === undefined ? { kind: 'read', read: 'world' } : undefined)],
  ['derived', (f) => (f.derived === undefined ? { kind: 'read', read: 'derived' } : undefined)],
  ['count', (f) => (f.counted < 2 ? { kind: 'count' } : undefined)],
  ['done', (f) => ({ kind: 'done', value: (f.derived ?? 0) + f.counted })],
];

const PROGRAM: ChainProgram<Facts, Verdict, Count, 'derived'> = {
  gates: GATES,
  isDerived: (read): read is 'derived' => read === 'derived',
  derive: (f) => {
    f.derived = (f.learned ?? 0) * 10;
  },
  learn: (f) => {
    f.learned = f.world;
  },
  isBookkeeping: (v): v is Count => v.kind === 'count',
  advance: (f) => {
    f.counted += 1;
  },
};

describe('runChain', () => {
  it('reads through the port (the facts learn from it), derives the rest, acts on bookkeeping, returns', async () => {
    const calls: string[] = [];
    const facts: Facts = { counted: 0 };
    const verdict = await runChain(facts, PROGRAM, {
      async read(read, f) {
        calls.push(`read ${read}`);
        f.world = 4;
      },
      async act(v, f) {
        calls.push(`act ${v.kind} at ${f.counted}`);
      },
    });
    expect(calls).toEqual(['read world', 'act count at 0', 'act count at 1']);
    expect(verdict).toEqual({ kind: 'done', value: 42 });
  });

  it('without bookkeeping kinds, every verdict but a read is final', async () => {
    const verdict = await runChain<Facts, Verdict>(
      { counted: 0, world: 1, derived: 1 },
      { gates: GATES },
      { read: async () => {} },
    );
    expect(verdict).toEqual({ kind: 'count' });
  });
});

describe('decideChain', () => {
  it.each<[string, Facts, Verdict['kind']]>([
    ['the first gate with a verdict decides', { counted: 0 }, 'read'],
    ['gates without one let the next decide', { counted: 2, world: 1, derived: 1 }, 'done'],
  ])('%s', (_, facts, kind) => {
    expect(decideChain(facts, GATES).kind).toBe(kind);
  });

  it('a chain where no gate decides is a bug', () => {
    expect(() => decideChain({ counted: 0 }, [])).toThrow(/no gate decided/);
  });
});
