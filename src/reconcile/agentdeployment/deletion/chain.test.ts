/** The deletion chain, row by row (chain.ts, gate by gate): each read, action and verdict. */
import { describe, expect, it } from 'vitest';
import { documentedChain } from '../../chain-list.test-support.ts';
import { DELETION_GATES } from './chain.ts';
import { ago, base, credentials, deployment, read } from './facts.test-support.ts';
import { type DeletionFacts, LATE_COMMIT_WINDOW_MS } from './facts.ts';
import { deletion } from './program.ts';
import type { DeletionVerdict } from './verdict.ts';

const rows: [string, DeletionFacts, Partial<DeletionVerdict> & { kind: DeletionVerdict['kind'] }][] = [
  [
    '1. deleted without the finalizer: let go',
    { ...base, hasFinalizer: false },
    { kind: 'release', how: 'noFinalizer' },
  ],
  [
    '2. never allowed the default credentials, nothing recorded: release, nothing read',
    { ...base, recordedId: undefined, defaultCredentialsRefused: 'not allowed here' },
    { kind: 'release', how: 'orphaned' },
  ],
  [
    '3. deletionPolicy Orphan: release, the deployment left (event)',
    { ...base, policy: 'Orphan' },
    {
      kind: 'release',
      how: 'orphaned',
      leftId: 'd-1',
      event: { reason: 'Orphaned', message: 'left deployment d-1 on the control plane' },
    },
  ],
  [
    '3. observe-only: release, the deployment left, said so',
    { ...base, policy: 'Orphan', observeOnly: true },
    {
      kind: 'release',
      how: 'orphaned',
      leftId: 'd-1',
      event: { reason: 'Orphaned', message: 'left deployment d-1 on the control plane (observe-only)' },
    },
  ],
  [
    '4. a recorded id under default credentials no longer allowed: waits, looked at again',
    { ...base, defaultCredentialsRefused: 'not allowed here' },
    { kind: 'wait', why: 'defaultCredentialsNotAllowed', reason: 'DefaultCredentialsNotAllowed' },
  ],
  ['5. credentials first', base, { kind: 'read', read: 'credentials' }],
  [
    '5. a copied status another object wins (AlreadyManaged): release, nothing deleted',
    read({ credentials: credentials({ conflict: { reason: 'AlreadyManaged', message: 'x manages d-1' } }) }),
    {
      kind: 'release',
      how: 'orphaned',
      leftId: 'd-1',
      event: { reason: 'Orphaned', message: 'x manages d-1' },
    },
  ],
  [
    '6. a create without an answer: the name is looked up',
    read({ recordedId: undefined, pendingSince: ago(1_000) }),
    { kind: 'read', read: 'byName' },
  ],
  [
    '6. ... a deployment made after the mark: taken (Found)',
    read({
      recordedId: undefined,
      pendingSince: '2026-01-01T00:58:00Z',
      byName: { live: deployment('d-9') },
    }),
    { kind: 'take', deployment: deployment('d-9') },
  ],
  [
    "6. ... one made before the mark: not this object's, it owns nothing",
    read({
      recordedId: undefined,
      pendingSince: '2026-01-01T00:59:30Z',
      byName: { live: deployment('d-9') },
    }),
    { kind: 'release', how: 'orphaned' },
  ],
  [
    "6. ... one another object claims: not this object's",
    read({
      recordedId: undefined,
      pendingSince: '2026-01-01T00:58:00Z',
      byName: { live: deployment('d-9') },
      credentials: credentials({ claimedBy: () => 'ns/other' }),
    }),
    { kind: 'release', how: 'orphaned' },
  ],
  [
    '6. ... nothing yet, within the late-commit window: wait',
    read({ recordedId: undefined, pendingSince: ago(1_000), byName: {} }),
    { kind: 'wait', why: 'lateCommit', retryAfterMs: LATE_COMMIT_WINDOW_MS - 1_000 },
  ],
  [
    '6. ... nothing, past the window: it owns nothing',
    read({ recordedId: undefined, pendingSince: ago(LATE_COMMIT_WINDOW_MS + 1), byName: {} }),
    {
      kind: 'release',
      how: 'orphaned',
      event: {
        reason: 'Orphaned',
        message: 'this object owns no deployment on the control plane: nothing deleted',
      },
    },
  ],
  [
    '7. owning no id: release, nothing read',
    read({ recordedId: undefined }),
    { kind: 'release', how: 'orphaned' },
  ],
  ['7. the recorded id is read', read({}), { kind: 'read', read: 'before' }],
  [
    '7. missing under other credentials: CredentialsChanged',
    read({ recordedTenant: 'sha256:then', before: 'missing' }),
    { kind: 'stall', reason: 'CredentialsChanged' },
  ],
  ['7. missing: gone, release', read({ before: 'missing' }), { kind: 'release', how: 'gone' }],
  [
    '7. missing, recorded before digests were kept: gone',
    read({ recordedTenant: undefined, before: 'missing' }),
    { kind: 'release', how: 'gone' },
  ],
  [
    '7. live: DELETE by that id (tracing project as the spec says)',
    read({ before: deployment('d-1'), deleteTracingProject: true }),
    { kind: 'delete', id: 'd-1', deleteTracingProject: true },
  ],
  ['7. sent: read again', read({ before: deployment('d-1'), sent: true }), { kind: 'read', read: 'after' }],
  [
    '7. gone after the DELETE: deleted',
    read({ before: deployment('d-1'), sent: true, after: 'missing' }),
    { kind: 'release', how: 'deleted', event: { reason: 'Deleted', message: 'deleted deployment d-1' } },
  ],
  [
    '7. still there after the DELETE: wait while the platform deletes (Deleting event)',
    read({ before: deployment('d-1'), sent: true, after: deployment('d-1', 'AWAITING_DELETE') }),
    {
      kind: 'wait',
      why: 'platformDeleting',
      deployment: deployment('d-1', 'AWAITING_DELETE'),
      event: {
        reason: 'Deleting',
        message: 'deletion of deployment d-1 requested; the platform reports AWAITING_DELETE',
      },
    },
  ],
  [
    '7. already being deleted: no DELETE, read again',
    read({ before: deployment('d-1', 'AWAITING_DELETE') }),
    { kind: 'read', read: 'after' },
  ],
  [
    '7. already being deleted, still there: wait, no event',
    read({ before: deployment('d-1', 'AWAITING_DELETE'), after: deployment('d-1', 'AWAITING_DELETE') }),
    { kind: 'wait', why: 'platformDeleting', event: undefined },
  ],
];

describe('deletion', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    expect(deletion(facts)).toMatchObject(expected);
  });

  it('only ever sends DELETE for the recorded (or taken) id', () => {
    for (const [, facts] of rows) {
      const verdict = deletion(facts);
      if (verdict.kind === 'delete') expect(verdict.id).toBe(facts.recordedId);
    }
  });

  it('the late-commit wait names the name and the time the window ends', () => {
    const verdict = deletion(read({ recordedId: undefined, pendingSince: ago(1_000), byName: {} }));
    expect(verdict.kind === 'wait' && verdict.why === 'lateCommit' && verdict.message).toMatch(
      /nothing named agent exists yet.*until 2026-01-01T01:/,
    );
  });
});

describe('the deletion gate list', () => {
  it('DEVELOPMENT.md names the gates in the chain order', () => {
    expect(documentedChain('Deletion')).toEqual(DELETION_GATES.map(([name]) => name));
  });
});
