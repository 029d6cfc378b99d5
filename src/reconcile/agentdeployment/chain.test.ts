/**
 * The chain's order is what DEVELOPMENT.md lists: one line per gate, in order, naming its module.
 * (What the order does is the equivalence test's and each gate's own table.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_DEPLOYMENT_GATES } from './chain.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

describe('the gate list', () => {
  const listed = [
    ...readFileSync(join(ROOT, 'DEVELOPMENT.md'), 'utf8').matchAll(/^\d+\. `(\w+)` \(`([\w-]+\.ts)`\)/gm),
  ];

  it('DEVELOPMENT.md names the gates in the chain order', () => {
    expect(listed.map((m) => m[1])).toEqual(AGENT_DEPLOYMENT_GATES.map(([name]) => name));
  });

  it.each(listed.map((m) => [m[1], m[2]]))('%s points at its module (%s)', (_, file) => {
    expect(existsSync(join(import.meta.dirname, 'gates', file as string))).toBe(true);
  });
});
