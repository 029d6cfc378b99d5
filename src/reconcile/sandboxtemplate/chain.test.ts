/** The SandboxTemplate chain's order is what DEVELOPMENT.md lists. */
import { describe, expect, it } from 'vitest';
import { documentedChain } from '../chain-list.test-support.ts';
import { TEMPLATE_GATES } from './chain.ts';

describe('the SandboxTemplate gate list', () => {
  it('DEVELOPMENT.md names the gates in the chain order', () => {
    expect(documentedChain('SandboxTemplate')).toEqual(TEMPLATE_GATES.map(([name]) => name));
  });
});
