import { describe, expect, it } from 'vitest';
import type { Claim } from '../claims.ts';
import { decidedBy, deploymentOf, facts, resolved } from '../facts.test-support.ts';
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
    const verdict = decidedBy(claims, f);
    if (reason === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'claims', kind: 'stall', reason });
  });

  it('asks for the claims met once the claims are read, then decides on that fact alone', () => {
    const f = resolved(facts());
    let asked = 0;
    f.claims = {
      claims: () => {
        asked += 1;
        return [];
      },
    };
    expect(claims(f)).toEqual({ gate: 'claims', kind: 'read', read: 'claimsMet' });
    expect(decidedBy(claims, f)).toBeUndefined();
    // The chain runs again after every later read: the claims are not asked again.
    expect(claims(f)).toBeUndefined();
    expect(asked).toBe(1);
  });
});

describe('hole 3: an adoption ranks only once the name lookup shows its id', () => {
  /** The facts of an object of name `agent` and no id, met by a younger object that adopts `adoptId`. */
  const metByYoungerAdopter = (adoptId: string) => {
    const f = resolved(facts());
    const tenant = f.credentials?.ok ? f.credentials.tenant : '';
    f.claims = {
      claims: () => [other({ tenant, key: 'team-b/younger', createdAt: '2026-02-01T00:00:00Z', adoptId })],
    };
    return f;
  };

  it('first reads the deployments of its name (the controller and the plan both do)', () => {
    expect(decidedBy(claims, metByYoungerAdopter('d-missing'))).toEqual({
      gate: 'claims',
      kind: 'read',
      read: 'byName',
    });
  });

  it('an id the lookup does not show: the older object keeps its name', () => {
    const f = metByYoungerAdopter('d-missing');
    f.byName = {};
    expect(decidedBy(claims, f)).toBeUndefined();
  });

  it('an id the lookup shows: the adoption holds the name', () => {
    const f = metByYoungerAdopter('d-1');
    f.byName = { live: deploymentOf(f) };
    expect(decidedBy(claims, f)).toMatchObject({ gate: 'claims', kind: 'stall', reason: 'NameConflict' });
  });

  it('a recorded id meets an adoption: nothing turns on the lookup, nothing is read', () => {
    const f = metByYoungerAdopter('d-9');
    f.object.status.deploymentId = 'd-1';
    expect(decidedBy(claims, f)).toBeUndefined();
  });
});
