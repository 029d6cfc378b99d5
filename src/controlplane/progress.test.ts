import { describe, expect, it } from 'vitest';
import { readiness, retryDecision, revisionAgeMs, revisionPhase, revisionPollDelayMs } from './progress.ts';

describe('revisionPhase', () => {
  it.each([
    ['DEPLOYED', 'deployed'],
    ['SKIPPED', 'superseded'],
    ['CREATE_FAILED', 'failed'],
    ['BUILD_FAILED', 'failed'],
    ['DEPLOY_FAILED', 'failed'],
    ['CREATING', 'inProgress'],
    ['AWAITING_BUILD', 'inProgress'],
    ['AWAITING_DEPLOY', 'inProgress'],
    ['INTERRUPTED', 'inProgress'],
    ['UNKNOWN', 'inProgress'],
    ['WARMING_UP', 'inProgress'], // a value this client does not know: in progress, never a failure
  ])('%s -> %s', (status, phase) => {
    expect(revisionPhase(status)).toBe(phase);
  });
});

describe('readiness', () => {
  const revision = (status: string) => ({ id: 'r-1', status });
  it.each<[string, string, string | undefined]>([
    ['READY', 'DEPLOYED', undefined],
    ['READY', 'BUILDING', 'revision r-1 to be DEPLOYED (it is BUILDING)'],
    ['READY', 'SKIPPED', 'revision r-1 to be DEPLOYED (it is SKIPPED)'],
    [
      'READY',
      'WARMING_UP',
      'revision r-1 to be DEPLOYED (the platform reports WARMING_UP, a status this operator does not know; followed as in progress)',
    ],
    ['AWAITING_DATABASE', 'DEPLOYED', 'deployment: its database (AWAITING_DATABASE)'],
    ['UNKNOWN', 'DEPLOYED', 'deployment: the platform to know its state (UNKNOWN)'],
    ['AWAITING_DELETE', 'DEPLOYED', 'deployment: nothing: it is being deleted (AWAITING_DELETE)'],
    [
      'MIGRATING',
      'DEPLOYED',
      'deployment: the deployment to be READY (the platform reports MIGRATING, a status this operator does not know)',
    ],
  ])('deployment %s, revision %s', (deploymentStatus, revisionStatus, waitingFor) => {
    const result = readiness({ status: deploymentStatus }, revision(revisionStatus));
    expect(result).toStrictEqual(waitingFor === undefined ? { ready: true } : { ready: false, waitingFor });
  });
});

describe('revisionPollDelayMs', () => {
  it.each([
    [0, 5_000],
    [30_000, 5_000],
    [100_000, 10_000],
    [300_000, 30_000],
    [600_000, 60_000],
    [3_600_000, 60_000],
  ])('after %d ms running: %d ms', (elapsed, delay) => {
    expect(revisionPollDelayMs(elapsed)).toBe(delay);
  });

  it('never polls faster than a configured minimum above 5 s', () => {
    expect(revisionPollDelayMs(0, 20_000)).toBe(20_000);
  });
});

describe('revisionAgeMs', () => {
  it.each([
    ['2026-01-01T00:00:00Z', Date.parse('2026-01-01T00:01:00Z'), 60_000],
    ['2026-01-01T00:02:00Z', Date.parse('2026-01-01T00:01:00Z'), 0],
    ['not a time', 1, 0],
  ])('%s', (createdAt, now, age) => {
    expect(revisionAgeMs(createdAt, now)).toBe(age);
  });
});

describe('retryDecision', () => {
  const policy = { limit: 2, backoffMs: 1_000 };
  it.each<[string, typeof policy | undefined, string, number, number, ReturnType<typeof retryDecision>]>([
    ['no policy', undefined, 'DEPLOY_FAILED', 0, 10_000, { action: 'none' }],
    ['build failure is never retried', policy, 'BUILD_FAILED', 0, 10_000, { action: 'none' }],
    ['create failure is never retried', policy, 'CREATE_FAILED', 0, 10_000, { action: 'none' }],
    ['deploy failure before the backoff', policy, 'DEPLOY_FAILED', 0, 400, { action: 'wait', delayMs: 600 }],
    ['deploy failure after the backoff', policy, 'DEPLOY_FAILED', 0, 1_000, { action: 'redeploy' }],
    ['interrupted, second retry doubles', policy, 'INTERRUPTED', 1, 1_500, { action: 'wait', delayMs: 500 }],
    ['limit reached', policy, 'DEPLOY_FAILED', 2, 60_000, { action: 'exhausted' }],
  ])('%s', (_name, p, status, done, since, decision) => {
    expect(retryDecision(p, status, done, since)).toStrictEqual(decision);
  });
});
