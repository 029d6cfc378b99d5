/** The ownership verdict, row by row: what it asks to read next, and what it decides. */
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../controlplane/schemas.ts';
import { type OwnershipFacts, type OwnershipVerdict, ownership } from './ownership.ts';

const NOW = new Date('2026-01-01T00:01:00Z');
const d = (id: string, extra: Partial<Deployment> = {}): Deployment => ({
  id,
  name: 'agent',
  source: 'external_image',
  source_config: {},
  source_revision_config: {},
  secrets: [],
  created_at: '2026-01-01T00:00:30Z',
  updated_at: '2026-01-01T00:00:30Z',
  status: 'READY',
  latest_revision_id: null,
  active_revision_id: null,
  ...extra,
});

const facts = (extra: Partial<OwnershipFacts>): OwnershipFacts => ({
  name: 'agent',
  tenant: 'sha256:t',
  claimedBy: () => undefined,
  statusKnown: true,
  now: NOW,
  revisionPollMs: 5_000,
  ...extra,
});

const kindOf = (v: OwnershipVerdict) =>
  v.kind === 'read'
    ? `read ${v.read}`
    : v.kind === 'owned'
      ? `owned ${v.how} ${v.deployment.id}`
      : v.kind === 'stall' || v.kind === 'wait'
        ? `${v.kind} ${v.reason}`
        : v.kind;

describe('ownership', () => {
  it.each<[string, Partial<OwnershipFacts>, string]>([
    ['a recorded id is read first', { recordedId: 'd-1' }, 'read recorded'],
    ['a recorded id found: owned', { recordedId: 'd-1', recorded: d('d-1') }, 'owned recorded d-1'],
    [
      'a recorded id and an adopt annotation naming another',
      { recordedId: 'd-1', adoptId: 'd-2' },
      'stall AdoptionConflict',
    ],
    [
      'an adopt annotation naming the recorded id is no conflict',
      { recordedId: 'd-1', adoptId: 'd-1', recorded: d('d-1') },
      'owned recorded d-1',
    ],
    [
      'a recorded id gone under the same credentials: forgotten',
      { recordedId: 'd-1', recordedTenant: 'sha256:t', recorded: 'missing' },
      'forget',
    ],
    [
      'a recorded id gone under other credentials',
      { recordedId: 'd-1', recordedTenant: 'sha256:then', recorded: 'missing' },
      'stall CredentialsChanged',
    ],
    [
      'a recorded id gone, observe-only: nothing to observe, never created again',
      { recordedId: 'd-1', recordedTenant: 'sha256:t', recorded: 'missing', observeOnly: true },
      'none',
    ],
    ['an adoption is read', { adoptId: 'd-2' }, 'read adopted'],
    ['an adoption of a missing deployment', { adoptId: 'd-2', adopted: 'missing' }, 'stall AdoptionFailed'],
    [
      'an adoption of a deployment of another name',
      { adoptId: 'd-2', adopted: d('d-2', { name: 'other' }) },
      'stall AdoptionFailed',
    ],
    ['an adoption accepted', { adoptId: 'd-2', adopted: d('d-2') }, 'owned adopted d-2'],
    ['owning nothing, the name is looked up', {}, 'read byName'],
    ['the name free: create', { byName: {} }, 'none'],
    [
      'a live deployment of the name, no create pending',
      { byName: { live: d('d-3') } },
      'stall NameConflict',
    ],
    [
      'a live deployment made after the pending create: found',
      { byName: { live: d('d-3') }, pendingSince: '2026-01-01T00:00:10Z' },
      'owned found d-3',
    ],
    [
      'a live deployment made before the pending create',
      { byName: { live: d('d-3') }, pendingSince: '2026-01-01T00:00:50Z' },
      'stall CreateUnconfirmed',
    ],
    [
      'a live deployment made after the pending create, claimed by another object',
      { byName: { live: d('d-3') }, pendingSince: '2026-01-01T00:00:10Z', claimedBy: () => 'ns/other' },
      'stall NameConflict',
    ],
    [
      'a live deployment, status unknown (a plan without a cluster): assumed',
      { byName: { live: d('d-3') }, statusKnown: false },
      'owned assumed d-3',
    ],
    [
      'the name held by a deployment being deleted',
      { byName: { deleting: d('d-4', { status: 'AWAITING_DELETE' }) } },
      'wait WaitingForName',
    ],
    [
      'observe-only: the deployment of its name is observed, not owned',
      { byName: { live: d('d-3') }, observeOnly: true },
      'owned observed d-3',
    ],
    ['observe-only: nothing of its name', { byName: {}, observeOnly: true }, 'none'],
  ])('%s: %s', (_case, extra, expected) => {
    expect(kindOf(ownership(facts(extra)))).toBe(expected);
  });
});
