import { describe, expect, it } from 'vitest';
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import type { Condition } from '../../../runtime/conditions.ts';
import type { Outcome } from '../../../runtime/outcome.ts';
import type { VerifiedCondition } from '../../../verification/view.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';
import { statusEvents, summarizeVerified } from './summary.ts';

const EARLIER = '2025-12-31T00:00:00.000Z';
const NOW = new Date('2026-01-01T00:00:00.000Z');

const cond = (type: string, status: Condition['status'], reason: string, message = 'm'): Condition => ({
  type,
  status,
  observedGeneration: 1,
  reason,
  message,
  lastTransitionTime: EARLIER,
});

const verifiedTrue = cond('Verified', 'True', 'Succeeded', 'run r-1 succeeded');
const readyTrue = cond('Ready', 'True', 'Succeeded');

const record = (revisionId: string): NonNullable<AgentDeploymentStatus['verification']> => ({
  revisionId,
  specDigest: 'digest',
});

const withVerification: Partial<AgentDeploymentSpec> = { verification: { assistantId: 'agent' } };
const observeOnly: Partial<AgentDeploymentSpec> = { ...withVerification, managementPolicies: ['Observe'] };

const ready: Outcome = { kind: 'ready', reason: 'Succeeded', message: 'ok' };
const paused: Outcome = { kind: 'paused', reason: 'Paused', message: 'paused' };

/** Only what the summary reads of a pass and of the controller's dependencies. */
function summarise(
  spec: Partial<AgentDeploymentSpec>,
  status: AgentDeploymentStatus,
  outcome: Outcome,
  verified?: VerifiedCondition,
) {
  const forgotten: string[] = [];
  const deps = {
    verifier: { forget: (key: string) => forgotten.push(key) },
  } as unknown as AgentDeploymentDeps;
  const pass = {
    key: 'ns/agent',
    spec,
    status: structuredClone(status),
    generation: 4,
    decidedAt: NOW,
    ...(verified ? { verified } : {}),
  } as unknown as AgentDeploymentPass;
  summarizeVerified(deps, pass, outcome);
  return { status: pass.status, forgotten };
}

/** `Type=Status/Reason`, with `(now)` when the condition was set by this summary. */
const brief = (conditions: readonly Condition[] | undefined) =>
  (conditions ?? []).map(
    (c) => `${c.type}=${c.status}/${c.reason}${c.lastTransitionTime === NOW.toISOString() ? ' (now)' : ''}`,
  );

describe('summarizeVerified', () => {
  it.each<{
    name: string;
    spec: Partial<AgentDeploymentSpec>;
    status: AgentDeploymentStatus;
    outcome?: Outcome;
    verified?: VerifiedCondition;
    conditions: string[];
    /** Whether status.verification is still there afterwards. */
    keepsRecord: boolean;
    forgets: boolean;
  }>([
    {
      name: 'no verification asked: Verified and its record go',
      spec: {},
      status: { conditions: [readyTrue, verifiedTrue], verification: record('r-1'), latestRevisionId: 'r-1' },
      conditions: ['Ready=True/Succeeded'],
      keepsRecord: false,
      forgets: true,
    },
    {
      name: 'observe-only runs no smoke run: Verified goes',
      spec: observeOnly,
      status: { conditions: [verifiedTrue], verification: record('r-1'), latestRevisionId: 'r-1' },
      conditions: [],
      keepsRecord: false,
      forgets: true,
    },
    {
      name: 'the verification stage ran: its condition is set',
      spec: withVerification,
      status: { conditions: [readyTrue], verification: record('r-1'), latestRevisionId: 'r-1' },
      verified: { status: 'True', reason: 'Succeeded', message: 'run r-1 succeeded' },
      conditions: ['Ready=True/Succeeded', 'Verified=True/Succeeded (now)'],
      keepsRecord: true,
      forgets: false,
    },
    {
      name: 'the step did not run and nothing is recorded: waiting for the revision',
      spec: withVerification,
      status: { conditions: [readyTrue], latestRevisionId: 'r-2' },
      conditions: ['Ready=True/Succeeded', 'Verified=Unknown/WaitingForRevision (now)'],
      keepsRecord: false,
      forgets: false,
    },
    {
      name: 'a new revision: the old record is forgotten and verification waits',
      spec: withVerification,
      status: { conditions: [verifiedTrue], verification: record('r-1'), latestRevisionId: 'r-2' },
      conditions: ['Verified=Unknown/WaitingForRevision (now)'],
      keepsRecord: false,
      forgets: true,
    },
    {
      name: 'the step did not run, the record is of this revision: Verified stays as it was',
      spec: withVerification,
      status: { conditions: [verifiedTrue], verification: record('r-1'), latestRevisionId: 'r-1' },
      conditions: ['Verified=True/Succeeded'],
      keepsRecord: true,
      forgets: false,
    },
    {
      name: 'paused: nothing changes, even without a verification spec',
      spec: {},
      status: { conditions: [verifiedTrue], verification: record('r-1'), latestRevisionId: 'r-2' },
      outcome: paused,
      conditions: ['Verified=True/Succeeded'],
      keepsRecord: true,
      forgets: false,
    },
  ])('$name', ({ spec, status, outcome, verified, conditions, keepsRecord, forgets }) => {
    const result = summarise(spec, status, outcome ?? ready, verified);
    expect(brief(result.status.conditions)).toEqual(conditions);
    expect(result.status.verification !== undefined).toBe(keepsRecord);
    expect(result.forgotten).toEqual(forgets ? ['ns/agent'] : []);
  });

  it('sets Verified at the generation and time of the pass, with the message it was given', () => {
    const { status } = summarise(
      withVerification,
      { latestRevisionId: 'r-1', verification: record('r-1') },
      ready,
      { status: 'False', reason: 'VerificationFailed', message: 'the run failed' },
    );
    expect(status.conditions).toEqual([
      {
        type: 'Verified',
        status: 'False',
        reason: 'VerificationFailed',
        message: 'the run failed',
        observedGeneration: 4,
        lastTransitionTime: NOW.toISOString(),
      },
    ]);
  });
});

describe('statusEvents', () => {
  it.each<{ name: string; before: AgentDeploymentStatus; after: AgentDeploymentStatus; events: string[] }>([
    {
      name: 'a revision reaches DEPLOYED',
      before: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYING' },
      after: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYED' },
      events: ['Normal/RevisionDeployed: revision r-1 is DEPLOYED'],
    },
    {
      name: 'a new revision arrives already DEPLOYED',
      before: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYED' },
      after: { latestRevisionId: 'r-2', revisionStatus: 'DEPLOYED' },
      events: ['Normal/RevisionDeployed: revision r-2 is DEPLOYED'],
    },
    {
      name: 'still DEPLOYED: nothing',
      before: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYED' },
      after: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYED' },
      events: [],
    },
    {
      name: 'a revision fails: the shell warns, not this',
      before: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYING' },
      after: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOY_FAILED' },
      events: [],
    },
    {
      name: 'verification newly passes',
      before: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYED', conditions: [] },
      after: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYED', conditions: [verifiedTrue] },
      events: ['Normal/Verified: revision r-1 verified: run r-1 succeeded'],
    },
    {
      name: 'verification passes after failing',
      before: { latestRevisionId: 'r-1', conditions: [cond('Verified', 'False', 'VerificationFailed')] },
      after: { latestRevisionId: 'r-1', conditions: [verifiedTrue] },
      events: ['Normal/Verified: revision r-1 verified: run r-1 succeeded'],
    },
    {
      name: 'verification passes again with another message: nothing',
      before: { latestRevisionId: 'r-1', conditions: [verifiedTrue] },
      after: {
        latestRevisionId: 'r-1',
        conditions: [cond('Verified', 'True', 'Succeeded', 'run r-2 succeeded')],
      },
      events: [],
    },
    {
      name: 'deployed and verified in one pass: both, in that order',
      before: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYING' },
      after: { latestRevisionId: 'r-1', revisionStatus: 'DEPLOYED', conditions: [verifiedTrue] },
      events: [
        'Normal/RevisionDeployed: revision r-1 is DEPLOYED',
        'Normal/Verified: revision r-1 verified: run r-1 succeeded',
      ],
    },
  ])('$name', ({ before, after, events }) => {
    expect(statusEvents(before, after).map((e) => `${e.type}/${e.reason}: ${e.message}`)).toEqual(events);
  });
});
