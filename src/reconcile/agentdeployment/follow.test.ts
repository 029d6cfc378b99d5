/** Following a revision and a deletion to the end: one row per case of the pure rules. */
import { describe, expect, it } from 'vitest';
import {
  type FollowInput,
  followDecisionOf,
  followDeletion,
  progressDeadlineOf,
  retryPolicyOf,
} from './follow.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const AT_RETRY = '2026-01-01T01:00:06Z'; // changed 4s ago, 10s backoff

function input(change: {
  deploymentStatus?: string;
  status: string;
  /** How long ago the revision was created and last changed. */
  ageMs?: number;
  changedMs?: number;
  retry?: FollowInput['retry'];
  retries?: number;
  request?: string;
}): FollowInput {
  return {
    deployment: { id: 'd-1', status: change.deploymentStatus ?? 'READY' },
    revision: {
      id: 'r-1',
      status: change.status,
      createdAt: ago(change.ageMs ?? 10_000),
      updatedAt: ago(change.changedMs ?? 1_000),
    },
    progressDeadlineMs: 600_000,
    retry: change.retry,
    retries: change.retries ?? 0,
    redeployRequest: change.request,
    minPollMs: 5_000,
    nowMs: NOW,
  };
}

const retry = { limit: 2, backoffMs: 10_000 };

describe('followDecisionOf', () => {
  it.each<[string, Parameters<typeof input>[0], Record<string, unknown>]>([
    [
      'DEPLOYED and READY: ready',
      { status: 'DEPLOYED' },
      {
        action: 'ready',
        requestHandled: false,
        message: 'revision r-1 is DEPLOYED and deployment d-1 READY',
      },
    ],
    [
      'DEPLOYED but the deployment UNKNOWN: says what Ready waits for',
      { status: 'DEPLOYED', deploymentStatus: 'UNKNOWN' },
      {
        action: 'progressing',
        message: 'waiting for deployment: the platform to know its state (UNKNOWN)',
      },
    ],
    [
      'DEPLOYED but the deployment being deleted: not ready',
      { status: 'DEPLOYED', deploymentStatus: 'AWAITING_DELETE' },
      { action: 'progressing' },
    ],
    [
      'in progress: progressing, naming the revision and its status',
      { status: 'BUILDING' },
      { action: 'progressing', message: 'waiting for revision r-1 to be DEPLOYED (it is BUILDING)' },
    ],
    [
      'a status this operator does not know: in progress, never a failure',
      { status: 'WARMING_UP' },
      { action: 'progressing' },
    ],
    [
      'in progress past spec.progressDeadline: stall naming the revision and its status',
      { status: 'QUEUED', ageMs: 700_000 },
      { action: 'stall', reason: 'ProgressDeadlineExceeded' },
    ],
    [
      'UNKNOWN past the deadline: stall',
      { status: 'UNKNOWN', ageMs: 700_000 },
      { action: 'stall', reason: 'ProgressDeadlineExceeded' },
    ],
    [
      'DEPLOYED long after the deadline: still ready (the deadline is about getting there)',
      { status: 'DEPLOYED', ageMs: 7_000_000 },
      { action: 'ready' },
    ],
    ['SKIPPED: follow the newer one', { status: 'SKIPPED' }, { action: 'progressing' }],
    [
      'DEPLOY_FAILED without spec.retry: stall, pointing at the annotation',
      { status: 'DEPLOY_FAILED' },
      { action: 'stall', reason: 'RevisionFailed' },
    ],
    [
      'BUILD_FAILED with spec.retry: a build failure is never retried automatically',
      { status: 'BUILD_FAILED', retry, changedMs: 60_000 },
      { action: 'stall', reason: 'RevisionFailed' },
    ],
    [
      'DEPLOY_FAILED with spec.retry, backoff not over: progressing, requeue at the backoff',
      { status: 'DEPLOY_FAILED', retry, changedMs: 4_000 },
      { action: 'progressing', requeueAfterMs: 6_000 },
    ],
    [
      'the wait names the time of the retry, the same on every pass',
      { status: 'DEPLOY_FAILED', retry, changedMs: 4_000 },
      { action: 'progressing', message: `revision r-1 is DEPLOY_FAILED; retry 1 of 2 at ${AT_RETRY}` },
    ],
    [
      'DEPLOY_FAILED with spec.retry, backoff over: redeploy',
      { status: 'DEPLOY_FAILED', retry, changedMs: 10_000 },
      { action: 'redeploy', trigger: 'retry', why: 'DEPLOY_FAILED; spec.retry: retry 1 of 2' },
    ],
    [
      'the second retry waits twice as long',
      { status: 'DEPLOY_FAILED', retry, retries: 1, changedMs: 15_000 },
      { action: 'progressing', requeueAfterMs: 5_000 },
    ],
    [
      'retries exhausted: stall, saying so',
      { status: 'DEPLOY_FAILED', retry, retries: 2, changedMs: 600_000 },
      { action: 'stall', reason: 'RevisionFailed' },
    ],
    [
      'INTERRUPTED with spec.retry, backoff over: redeploy',
      { status: 'INTERRUPTED', retry, changedMs: 10_000 },
      { action: 'redeploy', trigger: 'retry' },
    ],
    [
      'INTERRUPTED without spec.retry: transient, followed as in progress',
      { status: 'INTERRUPTED' },
      { action: 'progressing' },
    ],
    [
      'INTERRUPTED with retries exhausted: in progress until the deadline',
      { status: 'INTERRUPTED', retry, retries: 2 },
      { action: 'progressing' },
    ],
    [
      'a redeploy request on a failed revision: redeploy, request handled',
      { status: 'DEPLOY_FAILED', request: 'v1' },
      {
        action: 'redeploy',
        trigger: 'annotation',
        requestHandled: true,
        why: 'DEPLOY_FAILED; annotation deploy.agents.dev/redeploy-requested-at=v1',
      },
    ],
    [
      'a redeploy request on a build failure: by hand, it is redeployed',
      { status: 'BUILD_FAILED', request: 'v1' },
      { action: 'redeploy', trigger: 'annotation' },
    ],
    [
      'a redeploy request beats an exhausted spec.retry',
      { status: 'DEPLOY_FAILED', retry, retries: 2, request: 'v1' },
      { action: 'redeploy', trigger: 'annotation' },
    ],
    [
      'a redeploy request on a revision stuck past its deadline: redeploy',
      { status: 'QUEUED', ageMs: 700_000, request: 'v1' },
      { action: 'redeploy', trigger: 'annotation' },
    ],
    [
      'a redeploy request on a DEPLOYED revision: nothing to redo, request handled',
      { status: 'DEPLOYED', request: 'v1' },
      { action: 'ready', requestHandled: true },
    ],
    [
      'a redeploy request while a revision builds: waits for it to end (not handled yet)',
      { status: 'BUILDING', request: 'v1' },
      { action: 'progressing', requestHandled: false },
    ],
  ])('%s', (_, change, expected) => {
    expect(followDecisionOf(input(change))).toMatchObject(expected);
  });

  it('the deadline stall names the revision, its status, the time and the deadline', () => {
    const decision = followDecisionOf(input({ status: 'QUEUED', ageMs: 700_000 }));
    expect((decision as { message: string }).message).toMatch(
      /^revision r-1 is still QUEUED after 11m40s, past spec\.progressDeadline \(10m0s\)/,
    );
  });

  it('an exhausted retry says how many redeploys were made', () => {
    const decision = followDecisionOf(input({ status: 'DEPLOY_FAILED', retry, retries: 2 }));
    expect((decision as { message: string }).message).toContain(
      'revision r-1 ended in DEPLOY_FAILED after 2 automatic redeploys (spec.retry.limit 2)',
    );
  });

  it.each([
    [10_000, 600_000, 5_000], // young: the minimum
    [300_000, 600_000, 30_000], // a tenth of its age
    [590_000, 600_000, 10_000], // never later than the deadline
    [1_200_000, 3_600_000, 60_000], // at most a minute
    [3_598_000, 3_600_000, 5_000], // and never sooner than the minimum
  ])('a revision %d ms old (deadline %d ms) is looked at again after %d ms', (ageMs, deadline, delay) => {
    const decision = followDecisionOf({
      ...input({ status: 'BUILDING', ageMs }),
      progressDeadlineMs: deadline,
    });
    expect(decision).toMatchObject({ action: 'progressing', requeueAfterMs: delay });
  });
});

describe('spec defaults', () => {
  it.each([
    [{}, 1_800_000],
    [{ progressDeadline: '5s' }, 5_000],
    [{ progressDeadline: '1h30m' }, 5_400_000],
  ])('progressDeadline %j -> %d ms', (spec, ms) => {
    expect(progressDeadlineOf(spec)).toBe(ms);
  });

  it.each([
    [{}, undefined],
    [{ retry: { limit: 3 } }, { limit: 3, backoffMs: 30_000 }],
    [{ retry: { limit: 1, backoff: '2m' } }, { limit: 1, backoffMs: 120_000 }],
  ])('retry %j -> %j', (spec, policy) => {
    expect(retryPolicyOf(spec)).toStrictEqual(policy);
  });
});

describe('followDeletion', () => {
  it('says the platform is deleting, with the state, and backs off with the time since deletion', () => {
    const result = followDeletion({
      remaining: [{ id: 'd-1', status: 'AWAITING_FINAL_DELETE' }],
      deletionTimestamp: ago(300_000),
      minPollMs: 5_000,
      nowMs: NOW,
    });
    expect(result).toStrictEqual({
      outcome: {
        kind: 'progressing',
        reason: 'Deleting',
        message:
          'the platform is deleting deployment d-1 (AWAITING_FINAL_DELETE); the finalizer stays until it is gone',
      },
      requeueAfterMs: 30_000,
    });
  });

  it.each([undefined, 'not a time', 42])('an unreadable deletion time %j polls at the minimum', (at) => {
    const result = followDeletion({
      remaining: [{ id: 'd-1', status: 'AWAITING_DELETE' }],
      deletionTimestamp: at,
      minPollMs: 5_000,
      nowMs: NOW,
    });
    expect(result.requeueAfterMs).toBe(5_000);
  });
});
