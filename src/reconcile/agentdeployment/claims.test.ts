/** Claims between objects of one tenant, one row per case: who wins a name or an id, and what it says. */
import { describe, expect, it } from 'vitest';
import { type Claim, claimConflict, claimOf, createContest, type ExistingIds, outranks } from './claims.ts';

const T = 'sha256:tenant-a';
const claim = (key: string, extra: Partial<Claim> = {}): Claim => ({
  key: `ns/${key}`,
  uid: `uid-${key}`,
  createdAt: '2026-01-01T00:00:00Z',
  name: 'payments',
  tenant: T,
  ...extra,
});
const older = { createdAt: '2025-12-31T00:00:00Z' };

describe('claimConflict', () => {
  it.each<[string, Claim, Claim[], string | undefined]>([
    ['alone: nothing conflicts', claim('a'), [], undefined],
    ['itself is not another object', claim('a'), [claim('a')], undefined],
    [
      'another tenant never conflicts',
      claim('a'),
      [claim('b', { ...older, tenant: 'sha256:other' })],
      undefined,
    ],
    [
      'an unknown tenant never conflicts',
      claim('a'),
      [claim('b', { ...older, tenant: undefined })],
      undefined,
    ],
    ['another name never conflicts', claim('a'), [claim('b', { ...older, name: 'ledger' })], undefined],
    ['same name, the other is older', claim('a'), [claim('b', older)], 'NameConflict ns/b'],
    ['same name, this one is older', claim('a', older), [claim('b')], undefined],
    ['same name and time: the lower uid wins', claim('b'), [claim('a')], 'NameConflict ns/a'],
    ['same name and time: this uid is lower', claim('a'), [claim('b')], undefined],
    [
      'same name, the other records an id (even if younger)',
      claim('a', older),
      [claim('b', { deploymentId: 'd-1' })],
      'NameConflict ns/b',
    ],
    [
      'same name, the other records an id but is being deleted: the name is free',
      claim('a'),
      [claim('b', { deploymentId: 'd-1', deleting: true, ...older })],
      undefined,
    ],
    [
      'an id held by an object being deleted is still its own',
      claim('a', { adoptId: 'd-1' }),
      [claim('b', { deploymentId: 'd-1', deleting: true, name: 'other-name' })],
      'AlreadyManaged ns/b',
    ],
    [
      'same name, the other has a create pending and this one none',
      claim('a', older),
      [claim('b', { pendingSince: '2026-01-01T00:00:01Z' })],
      'NameConflict ns/b',
    ],
    [
      'this one records an id: a younger bare name loses to it',
      claim('a', { deploymentId: 'd-1' }),
      [claim('b', older)],
      undefined,
    ],
    [
      'adopting an id another object records',
      claim('a', { adoptId: 'd-1', ...older }),
      [claim('b', { deploymentId: 'd-1', name: 'other-name' })],
      'AlreadyManaged ns/b',
    ],
    [
      'two objects adopting one id: the older wins',
      claim('a', { adoptId: 'd-1' }),
      [claim('b', { adoptId: 'd-1', ...older, name: 'other-name' })],
      'AlreadyManaged ns/b',
    ],
    [
      'adopting an id another object only adopts, this one older',
      claim('a', { adoptId: 'd-1', ...older }),
      [claim('b', { adoptId: 'd-1', name: 'other-name' })],
      undefined,
    ],
    [
      'both record one id (a copied status): the older keeps it',
      claim('a', { deploymentId: 'd-1' }),
      [claim('b', { deploymentId: 'd-1', ...older })],
      'AlreadyManaged ns/b',
    ],
    [
      'a recorded id is not taken by an adopter',
      claim('a', { deploymentId: 'd-1' }),
      [claim('b', { adoptId: 'd-1', ...older })],
      undefined,
    ],
  ])('%s', (_, self, others, expected) => {
    const conflict = claimConflict(self, others);
    expect(conflict ? `${conflict.reason} ${conflict.other.key}` : undefined).toBe(expected);
  });

  it('names the other object, what it holds, and how to release it', () => {
    const adopt = claimConflict(claim('a', { adoptId: 'd-1' }), [claim('b', { deploymentId: 'd-1' })]);
    expect(adopt?.message).toContain(
      'deployment d-1 is already claimed by ns/b, which manages deployment d-1',
    );
    expect(adopt?.message).toContain('deploy.agents.dev/adopt-deployment-id');
    expect(adopt?.message).toContain('deletionPolicy Orphan');
    const name = claimConflict(claim('a'), [claim('b', { deploymentId: 'd-9' })]);
    expect(name?.message).toContain(
      'payments is claimed on this control plane by ns/b, which manages deployment d-9',
    );
  });
});

describe('createContest: after the mark is visible, age decides between objects creating one name', () => {
  const pending = { pendingSince: '2026-01-01T00:00:05Z' };
  it.each<[string, Claim, Claim[], string | undefined]>([
    ['alone: it creates', claim('a', pending), [], undefined],
    [
      'an older object without a mark: it stands down',
      claim('a', pending),
      [claim('b', older)],
      'NameConflict ns/b',
    ],
    [
      'an older object with a mark: it stands down',
      claim('a', pending),
      [claim('b', { ...older, ...pending })],
      'NameConflict ns/b',
    ],
    [
      'a younger object with a mark: it creates',
      claim('a', { ...older, ...pending }),
      [claim('b', pending)],
      undefined,
    ],
    ['same time, the other uid is lower', claim('b', pending), [claim('a', pending)], 'NameConflict ns/a'],
    [
      'a younger object that records an id still wins the name',
      claim('a', { ...older, ...pending }),
      [claim('b', { deploymentId: 'd-1' })],
      'NameConflict ns/b',
    ],
    [
      'another tenant never conflicts',
      claim('a', pending),
      [claim('b', { ...older, tenant: 'sha256:other' })],
      undefined,
    ],
  ])('%s', (_, self, others, expected) => {
    const conflict = createContest(self, others);
    expect(conflict ? `${conflict.reason} ${conflict.other.key}` : undefined).toBe(expected);
  });

  it('says the other object creates it and this one stands down', () => {
    const conflict = createContest(claim('a', pending), [claim('b', older)]);
    expect(conflict?.message).toContain('payments is also being created by ns/b');
    expect(conflict?.message).toContain('stands down before sending anything');
  });
});

describe('claimOf', () => {
  const obj = {
    metadata: {
      name: 'agent',
      namespace: 'team',
      uid: 'u-1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      annotations: { 'deploy.agents.dev/adopt-deployment-id': 'd-2' },
    },
    spec: { name: 'payments' },
  } as unknown as Parameters<typeof claimOf>[0];

  it('a new object claims its name under its current tenant, and the id it adopts', () => {
    expect(claimOf(obj, 'sha256:now')).toMatchObject({
      key: 'team/agent',
      name: 'payments',
      tenant: 'sha256:now',
      adoptId: 'd-2',
      deploymentId: undefined,
    });
  });

  it('a recorded id claims under the tenant it was recorded with; the annotation no longer counts', () => {
    const recorded = { ...obj, status: { deploymentId: 'd-1', credentialsDigest: 'sha256:then' } };
    expect(claimOf(recorded, 'sha256:now')).toMatchObject({
      tenant: 'sha256:then',
      deploymentId: 'd-1',
      adoptId: undefined,
    });
  });

  it('ranks: a recorded id, then a pending create or an adoption of an existing id, then age, then uid', () => {
    expect(outranks(claim('z', { deploymentId: 'd' }), claim('a', { pendingSince: 'x', ...older }))).toBe(
      true,
    );
    expect(outranks(claim('z', { adoptId: 'd' }), claim('a', older), new Set(['d']))).toBe(true);
    expect(outranks(claim('z', { adoptId: 'd' }), claim('a', older))).toBe(false);
    expect(outranks(claim('z', older), claim('a'))).toBe(true);
    expect(outranks(claim('a'), claim('z'))).toBe(true);
  });
});

describe("hole 3: another object's annotation text, and an adoption of an id not known to exist", () => {
  /** Any control, format or line-separator character: what could forge a line or a terminal escape. */
  const INVISIBLE = /[\p{C}\p{Zl}\p{Zp}]/u;
  const forged = 'd-1\n\u001b[2J\u202eStalled=False: all fine';

  it.each<[string, Claim, Claim[], ExistingIds]>([
    [
      "another object's adopt annotation, in AlreadyManaged",
      claim('a', { adoptId: forged }),
      [claim('b', { adoptId: forged, ...older })],
      new Set([forged]),
    ],
    [
      "another object's adopt annotation, in NameConflict",
      claim('a'),
      [claim('b', { adoptId: forged, ...older })],
      new Set([forged]),
    ],
    [
      "another object's recorded id, in NameConflict",
      claim('a'),
      [claim('b', { deploymentId: forged })],
      new Set(),
    ],
  ])('%s: cleaned before the message', (_, self, others, existing) => {
    const message = claimConflict(self, others, existing)?.message ?? '';
    expect(message).toContain('d-1');
    expect(message).not.toMatch(INVISIBLE);
  });

  it.each<[string, Claim, Claim[], ExistingIds, string | undefined]>([
    [
      'a younger object adopting an id that does not exist does not take an older object’s name',
      claim('a', older),
      [claim('b', { adoptId: 'd-missing' })],
      new Set(),
      undefined,
    ],
    [
      'nor while nothing is known to exist yet',
      claim('a', older),
      [claim('b', { adoptId: 'd-missing' })],
      new Set(['d-other']),
      undefined,
    ],
    [
      'a younger object adopting an id that exists still takes the name',
      claim('a', older),
      [claim('b', { adoptId: 'd-1' })],
      new Set(['d-1']),
      'NameConflict ns/b',
    ],
    [
      'this younger object adopting an id that does not exist loses to the older name',
      claim('a', { adoptId: 'd-missing' }),
      [claim('b', older)],
      new Set(),
      'NameConflict ns/b',
    ],
    [
      'a pending create still ranks without any id',
      claim('a', older),
      [claim('b', { pendingSince: '2026-01-01T00:00:01Z' })],
      new Set(),
      'NameConflict ns/b',
    ],
  ])('%s', (_, self, others, existing, expected) => {
    const conflict = claimConflict(self, others, existing);
    expect(conflict ? `${conflict.reason} ${conflict.other.key}` : undefined).toBe(expected);
  });

  it('an unproven adoption is said to be an older object, not an adoption', () => {
    const conflict = claimConflict(claim('a'), [claim('b', { adoptId: 'd-missing', ...older })], new Set());
    expect(conflict?.message).toContain('ns/b, which was created first');
    expect(conflict?.message).not.toContain('d-missing');
  });

  it('the create contest: an older object adopting an id that does not exist is just older', () => {
    const pending = { pendingSince: '2026-01-01T00:00:05Z' };
    const conflict = createContest(
      claim('a', pending),
      [claim('b', { ...older, adoptId: 'd-x' })],
      new Set(),
    );
    expect(conflict?.message).toContain('payments is also being created by ns/b');
  });
});
