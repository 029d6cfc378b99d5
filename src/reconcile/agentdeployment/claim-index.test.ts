/** The claim index over the informer cache: what a query returns, by name, id and tenant. */
import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import { ClaimIndex } from './claim-index.ts';

const obj = (
  ns: string,
  name: string,
  extra: { specName?: string; status?: object; adopt?: string; tenant?: string; key?: string } = {},
): AgentDeployment =>
  ({
    metadata: {
      name,
      namespace: ns,
      uid: `uid-${ns}-${name}`,
      creationTimestamp: '2026-01-01T00:00:00Z',
      annotations: extra.adopt ? { 'deploy.agents.dev/adopt-deployment-id': extra.adopt } : {},
      labels: { tenant: extra.tenant ?? 'sha256:a', key: extra.key ?? 'k1' },
    },
    spec: extra.specName ? { name: extra.specName } : {},
    status: extra.status,
  }) as unknown as AgentDeployment;

/** The "current credentials" of an object, for the test: labels (the identity is the tenant and key). */
const byLabels = (o: AgentDeployment) => {
  const tenant = o.metadata.labels?.tenant;
  return tenant ? { tenant, identity: `${tenant}+${o.metadata.labels?.key}` } : undefined;
};

/**
 * The index over a cache kept as the informer keeps it: `set` caches the new version and tells the
 * index the one it replaces, `delete` drops the cached version and tells the index.
 */
const index = (identityOf = byLabels) => {
  const cached = new Map<string, AgentDeployment>();
  const ix = new ClaimIndex(identityOf, cached);
  return {
    cached,
    set(o: AgentDeployment) {
      const key = `${o.metadata.namespace}/${o.metadata.name}`;
      ix.set(o, cached.get(key));
      cached.set(key, o);
    },
    delete(key: string) {
      const o = cached.get(key);
      if (!o) return;
      cached.delete(key);
      ix.delete(o);
    },
    claims: (query: Parameters<ClaimIndex['claims']>[0]) => ix.claims(query),
    keysNamed: (name: string) => ix.keysNamed(name),
  };
};
const keys = (claims: { key: string }[]) => claims.map((c) => c.key).sort();

describe('ClaimIndex', () => {
  it('finds claims by deployment name, recorded id and adopted id, within one tenant', () => {
    const ix = index();
    ix.set(obj('a', 'payments'));
    ix.set(obj('b', 'other', { specName: 'payments' }));
    ix.set(obj('c', 'elsewhere', { specName: 'payments', tenant: 'sha256:b' }));
    ix.set(obj('d', 'owner', { status: { deploymentId: 'd-1', credentialsDigest: 'sha256:a' } }));
    ix.set(obj('e', 'adopter', { adopt: 'd-1' }));
    expect(
      keys(ix.claims({ tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true, name: 'payments' })),
    ).toEqual(['a/payments', 'b/other']);
    expect(
      keys(ix.claims({ tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true, ids: ['d-1'] })),
    ).toEqual(['d/owner', 'e/adopter']);
    expect(
      keys(ix.claims({ tenant: 'sha256:b', identity: 'sha256:b+k1', tenanted: true, name: 'payments' })),
    ).toEqual(['c/elsewhere']);
  });

  it('a recorded id claims under the digest recorded with it, whatever the credentials say now', () => {
    const ix = index();
    ix.set(
      obj('d', 'owner', {
        tenant: 'sha256:now',
        status: { deploymentId: 'd-1', credentialsDigest: 'sha256:then' },
      }),
    );
    expect(
      keys(ix.claims({ tenant: 'sha256:then', identity: 'sha256:then+k1', tenanted: true, ids: ['d-1'] })),
    ).toEqual(['d/owner']);
    expect(
      ix.claims({ tenant: 'sha256:now', identity: 'sha256:now+k1', tenanted: true, ids: ['d-1'] }),
    ).toEqual([]);
  });

  it('an update replaces the old claims; a delete removes them', () => {
    const ix = index();
    ix.set(obj('a', 'x', { adopt: 'd-1' }));
    ix.set(obj('a', 'x', { status: { deploymentId: 'd-2', credentialsDigest: 'sha256:a' } }));
    expect(ix.claims({ tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true, ids: ['d-1'] })).toEqual(
      [],
    );
    expect(
      keys(ix.claims({ tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true, ids: ['d-2'] })),
    ).toEqual(['a/x']);
    expect(ix.keysNamed('x')).toEqual(['a/x']);
    ix.delete('a/x');
    expect(
      ix.claims({ tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true, name: 'x', ids: ['d-2'] }),
    ).toEqual([]);
    expect(ix.keysNamed('x')).toEqual([]);
  });

  it.each([
    {
      change: 'another deployment name',
      before: { specName: 'old' },
      after: { specName: 'new' },
      names: { old: [], new: ['a/x'] },
      ids: {},
    },
    {
      change: 'an id recorded beside the adopted one',
      before: { adopt: 'd-1' },
      after: { adopt: 'd-1', status: { deploymentId: 'd-2', credentialsDigest: 'sha256:a' } },
      names: { x: ['a/x'] },
      ids: { 'd-1': ['a/x'], 'd-2': ['a/x'] },
    },
    {
      change: 'the adopted id dropped, the recorded one kept',
      before: { adopt: 'd-1', status: { deploymentId: 'd-2', credentialsDigest: 'sha256:a' } },
      after: { status: { deploymentId: 'd-2', credentialsDigest: 'sha256:a' } },
      names: { x: ['a/x'] },
      ids: { 'd-1': [], 'd-2': ['a/x'] },
    },
    {
      change: 'nothing the index reads',
      before: { status: { deploymentId: 'd-2', credentialsDigest: 'sha256:a' } },
      after: { status: { deploymentId: 'd-2', credentialsDigest: 'sha256:a' } },
      names: { x: ['a/x'] },
      ids: { 'd-2': ['a/x'] },
    },
  ])('an update to $change re-indexes only what changed', ({ before, after, names, ids }) => {
    const ix = index();
    ix.set(
      obj('b', 'other', { specName: 'new', status: { deploymentId: 'd-2', credentialsDigest: 'sha256:a' } }),
    );
    ix.set(obj('a', 'x', before));
    ix.set(obj('a', 'x', after));
    for (const [name, expected] of Object.entries(names))
      expect(ix.keysNamed(name).filter((k) => k.startsWith('a/'))).toEqual(expected);
    const tenant = { tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true };
    for (const [id, expected] of Object.entries(ids))
      expect(keys(ix.claims({ ...tenant, ids: [id] })).filter((k) => k.startsWith('a/'))).toEqual(expected);
    // The other object sharing the name and an id is untouched by a's updates.
    expect(ix.keysNamed('new')).toContain('b/other');
    expect(keys(ix.claims({ ...tenant, ids: ['d-2'] }))).toContain('b/other');
  });

  it('one name shared by three objects: each leaves in turn, the others stay found', () => {
    const ix = index();
    for (const ns of ['a', 'b', 'c']) ix.set(obj(ns, 'shared'));
    expect(ix.keysNamed('shared').sort()).toEqual(['a/shared', 'b/shared', 'c/shared']);
    ix.delete('b/shared');
    expect(ix.keysNamed('shared').sort()).toEqual(['a/shared', 'c/shared']);
    ix.delete('a/shared');
    expect(ix.keysNamed('shared')).toEqual(['c/shared']);
    // Set again (an update) with only one holder left: still one, not two.
    ix.set(obj('c', 'shared'));
    expect(ix.keysNamed('shared')).toEqual(['c/shared']);
    ix.set(obj('a', 'shared'));
    expect(ix.keysNamed('shared').sort()).toEqual(['a/shared', 'c/shared']);
  });

  it('a claim without a recorded id counts only for the same credential identity; a recorded one for the tenant', () => {
    const ix = index();
    // Another namespace names the victim tenant's base URL and tenant id with a junk key.
    ix.set(obj('attacker', 'squat', { specName: 'payments', key: 'junk' }));
    ix.set(
      obj('attacker', 'pending', { specName: 'billing', key: 'junk', status: { createPendingSince: 't' } }),
    );
    ix.set(obj('attacker', 'adopts', { adopt: 'd-9', key: 'junk' }));
    const victim = { tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true };
    expect(ix.claims({ ...victim, name: 'payments' })).toEqual([]);
    expect(ix.claims({ ...victim, name: 'billing' })).toEqual([]);
    expect(ix.claims({ ...victim, ids: ['d-9'] })).toEqual([]);
    // A recorded id proves the credentials reached the tenant: it counts whatever key made it.
    ix.set(
      obj('team', 'owner', { key: 'k2', status: { deploymentId: 'd-1', credentialsDigest: 'sha256:a' } }),
    );
    expect(keys(ix.claims({ ...victim, ids: ['d-1'] }))).toEqual(['team/owner']);
  });

  it("without a tenant id, another account's recorded ids hold no name and no id here (issue 32)", () => {
    const ix = index();
    // Another namespace, another platform account (its own key) on the same base URL, no tenant id.
    ix.set(
      obj('attacker', 'squat', {
        specName: 'payments',
        key: 'other-account',
        status: { deploymentId: 'd-theirs', credentialsDigest: 'sha256:a' },
      }),
    );
    const victim = { tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: false };
    expect(ix.claims({ ...victim, name: 'payments' })).toEqual([]);
    expect(ix.claims({ ...victim, ids: ['d-theirs'] })).toEqual([]);
    // The same identity's recorded id still holds (another object on the same key and URL).
    ix.set(
      obj('team', 'owner', {
        specName: 'billing',
        status: { deploymentId: 'd-1', credentialsDigest: 'sha256:a' },
      }),
    );
    expect(keys(ix.claims({ ...victim, name: 'billing', ids: ['d-1'] }))).toEqual(['team/owner']);
    // With a tenant id the workspace is named: a recorded id counts whatever key made it.
    expect(keys(ix.claims({ ...victim, tenanted: true, name: 'payments' }))).toEqual(['attacker/squat']);
  });

  it('an object whose credentials are not allowed (no identity) claims nothing', () => {
    const ix = index(() => undefined);
    ix.set(obj('a', 'payments'));
    expect(
      ix.claims({ tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true, name: 'payments' }),
    ).toEqual([]);
  });

  it('an observe-only object claims no name, but still the id it asks to adopt', () => {
    const ix = index();
    const watching = obj('watcher', 'payments');
    watching.spec = { ...watching.spec, managementPolicies: ['Observe'] } as AgentDeployment['spec'];
    ix.set(watching);
    const adopting = obj('watcher', 'adopts', { adopt: 'd-7' });
    adopting.spec = { ...adopting.spec, managementPolicies: ['Observe'] } as AgentDeployment['spec'];
    ix.set(adopting);
    const q = { tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true };
    expect(ix.claims({ ...q, name: 'payments' })).toEqual([]);
    expect(keys(ix.claims({ ...q, ids: ['d-7'] }))).toEqual(['watcher/adopts']);
  });

  it('reads each object where it is kept: one gone from the cache claims nothing', () => {
    const ix = index();
    ix.set(obj('a', 'payments'));
    const q = { tenant: 'sha256:a', identity: 'sha256:a+k1', tenanted: true, name: 'payments' };
    expect(keys(ix.claims(q))).toEqual(['a/payments']);
    ix.cached.delete('a/payments');
    expect(ix.claims(q)).toEqual([]);
  });

  it('names an object by its latest deployment name until it is dropped', () => {
    const ix = index();
    ix.set(obj('a', 'x'));
    ix.set(obj('a', 'x', { specName: 'renamed', status: { deploymentId: 'd-1' } }));
    expect(ix.keysNamed('renamed')).toEqual(['a/x']);
    ix.delete('a/x');
    expect(ix.keysNamed('renamed')).toEqual([]);
  });
});
