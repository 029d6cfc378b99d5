import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../src/simulator/index.ts';
import { pollStartAfter } from './calls.ts';

const list = (at: number): RequestRecord => ({
  method: 'GET',
  route: '/v2/deployments',
  path: '/v2/deployments',
  query: { deployment_ids: 'a,b' },
  status: 200,
  at,
});
const lookup = (at: number): RequestRecord => ({ ...list(at), query: { name_contains: 'x' } });
const revision = (at: number): RequestRecord => ({
  ...list(at),
  route: '/v2/deployments/{deployment_id}/revisions/{revision_id}',
  path: '/v2/deployments/d/revisions/r',
  query: {},
});

describe('pollStartAfter', () => {
  it.each([
    ['no calls', [], 0, undefined],
    ['the first list of all', [list(100), list(150)], 0, 100],
    [
      'not the middle of a poll that began before `since`',
      [list(100), list(150), list(200), list(5000)],
      120,
      5000,
    ],
    ['the first poll of several', [list(100), list(200), list(2000), list(2050)], 0, 100],
    ['the next poll when since falls in a quiet gap', [list(100), list(2000), list(2050)], 500, 2000],
    ['none while the poll that began before `since` is still going', [list(100), list(600)], 300, undefined],
    [
      'name lookups and revision reads are not polls',
      [list(100), lookup(1500), revision(1600)],
      200,
      undefined,
    ],
    ['a lookup inside the quiet gap does not break it', [list(100), lookup(1500), list(1700)], 200, 1700],
  ] as const)('%s', (_, records, since, expected) => {
    expect(pollStartAfter(records, since, 1000)).toBe(expected);
  });
});
