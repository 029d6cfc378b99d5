import { describe, expect, it } from 'vitest';
import type { Claim } from '../../claims.ts';
import { facts, resolved } from '../facts.test-support.ts';
import { claims } from './claims.ts';

const other = (over: Partial<Claim>): Claim => ({
  key: 'team-a/other',
  uid: 'uid-other',
  createdAt: '2025-12-31T00:00:00Z',
  name: 'agent',
  tenant: undefined,
  ...over,
});

describe('gate claims', () => {
  it('not read yet: read the claims', () => {
    const f = facts();
    f.secrets = { byName: new Map() };
    expect(claims(f)).toEqual({ gate: 'claims', kind: 'read', read: 'claims' });
  });

  it.each<[string, (tenant: string) => Claim[], string | undefined]>([
    ['nobody else claims the name', () => [], undefined],
    [
      'an older object of the tenant claims the name: NameConflict',
      (t) => [other({ tenant: t })],
      'NameConflict',
    ],
    [
      'a younger one does not win',
      (t) => [other({ tenant: t, createdAt: '2026-02-01T00:00:00Z' })],
      undefined,
    ],
    ['another tenant: no conflict', () => [other({ tenant: 'sha256:elsewhere' })], undefined],
    [
      'the id it records is recorded by an older object: AlreadyManaged',
      (t) => [other({ tenant: t, name: 'x', deploymentId: 'd-1' })],
      'AlreadyManaged',
    ],
  ])('%s', (_, othersOf, reason) => {
    const f = resolved(facts({ status: reason === 'AlreadyManaged' ? { deploymentId: 'd-1' } : {} }));
    const tenant = f.credentials?.ok ? f.credentials.tenant : '';
    f.claims = { claims: () => othersOf(tenant) };
    const verdict = claims(f);
    if (reason === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'claims', kind: 'stall', reason });
  });
});
