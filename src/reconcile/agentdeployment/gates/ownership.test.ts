import { describe, expect, it } from 'vitest';
import { Annotation } from '../../../api/names.ts';
import { deploymentOf, facts, resolved } from '../facts.test-support.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import { ownership } from './ownership.ts';

type Row = [string, Parameters<typeof facts>[0], (f: AgentDeploymentFacts) => void, object | undefined];

describe('gate ownership', () => {
  it.each<Row>([
    ['nothing recorded: look the name up', {}, () => {}, { kind: 'read', read: 'byName' }],
    ['the name is free: it creates (the next gate decides)', {}, (f) => (f.byName = {}), undefined],
    [
      'a live deployment of its name, not its own: NameConflict',
      {},
      (f) => (f.byName = { live: deploymentOf(f) }),
      { kind: 'stall', reason: 'NameConflict' },
    ],
    [
      'a name held by a deployment being deleted: waiting',
      {},
      (f) => (f.byName = { deleting: deploymentOf(f, { status: 'AWAITING_DELETE' }) }),
      { kind: 'wait', reason: 'WaitingForName' },
    ],
    [
      'an id recorded: read it',
      { status: { deploymentId: 'd-1' } },
      () => {},
      { kind: 'read', read: 'recorded' },
    ],
    [
      'the recorded deployment answers',
      { status: { deploymentId: 'd-1' } },
      (f) => (f.recorded = deploymentOf(f)),
      undefined,
    ],
    [
      'the recorded deployment gone under the same credentials: forget it',
      { status: { deploymentId: 'd-1' } },
      (f) => {
        f.recorded = 'missing';
        f.object.status.credentialsDigest = f.credentials?.ok ? f.credentials.tenant : undefined;
      },
      { kind: 'forget' },
    ],
    [
      'gone under other credentials: CredentialsChanged',
      { status: { deploymentId: 'd-1', credentialsDigest: 'sha256:then' } },
      (f) => (f.recorded = 'missing'),
      { kind: 'stall', reason: 'CredentialsChanged' },
    ],
    [
      'an adopt annotation: read it',
      { annotations: { [Annotation.AdoptDeploymentId]: 'd-1' } },
      () => {},
      { kind: 'read', read: 'adopted' },
    ],
    [
      'adopted: recorded as its own',
      { annotations: { [Annotation.AdoptDeploymentId]: 'd-1' } },
      (f) => (f.adopted = deploymentOf(f)),
      { kind: 'own', how: 'adopted' },
    ],
    [
      'an adoption of another name: AdoptionFailed',
      { annotations: { [Annotation.AdoptDeploymentId]: 'd-1' } },
      (f) => (f.adopted = deploymentOf(f, { name: 'someone-else' })),
      { kind: 'stall', reason: 'AdoptionFailed' },
    ],
  ])('%s', (_, over, read, expected) => {
    const f = resolved(facts(over));
    read(f);
    const verdict = ownership(f);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'ownership', ...expected });
  });
});
