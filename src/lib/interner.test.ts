import { describe, expect, it } from 'vitest';
import { Interner } from './interner.ts';

/** A string with the same value and a different identity (JSON.parse makes one per occurrence). */
const copyOf = (s: string) => JSON.parse(JSON.stringify(s)) as string;

describe('Interner', () => {
  it('keeps one entry per value, however many copies come (identity shows only in a heap snapshot)', () => {
    const interner = new Interner();
    for (let i = 0; i < 3; i++)
      expect(interner.intern(copyOf('deploy.agents.dev/v1alpha1'))).toBe('deploy.agents.dev/v1alpha1');
    expect(interner.size).toBe(1);
  });

  it.each([undefined, 42, null, true])('passes %s through', (value) => {
    expect(new Interner().intern(value)).toBe(value);
  });

  it('interns only the named fields, in place', () => {
    const interner = new Interner();
    const a = { kind: copyOf('AgentDeployment'), uid: copyOf('u-1') };
    const b = { kind: copyOf('AgentDeployment'), uid: copyOf('u-1') };
    interner.fields(a, ['kind']);
    interner.fields(b, ['kind']);
    expect(b.kind).toBe(a.kind);
    expect(interner.size).toBe(1);
    interner.fields(undefined, []);
  });

  it('drops the table whole at its cap, and keeps working', () => {
    const interner = new Interner(2);
    interner.intern('a');
    interner.intern('b');
    expect(interner.size).toBe(2);
    interner.intern('c');
    expect(interner.size).toBe(1);
  });
});
