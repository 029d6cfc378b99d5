import { describe, expect, it } from 'vitest';
import {
  checkPollInterval,
  pendingRedeployRequest,
  pollIntervalOf,
  takeReconcileRequest,
} from './annotations.ts';
import { Stall } from './outcome.ts';

const objWith = (annotations: Record<string, string>) => ({ metadata: { name: 'a', annotations } });
const REDEPLOY = 'deploy.agents.dev/redeploy-requested-at';

describe('pendingRedeployRequest', () => {
  it.each<[string, Record<string, string>, string | undefined, string | undefined]>([
    ['no annotation: nothing pending', {}, undefined, undefined],
    ['a first value: pending', { [REDEPLOY]: 'v1' }, undefined, 'v1'],
    ['the value already handled: nothing pending', { [REDEPLOY]: 'v1' }, 'v1', undefined],
    ['a new value: pending', { [REDEPLOY]: 'v2' }, 'v1', 'v2'],
  ])('%s', (_, annotations, handled, pending) => {
    const status = handled === undefined ? {} : { lastHandledRedeployAt: handled };
    expect(pendingRedeployRequest(objWith(annotations), status)).toBe(pending);
    // Reading never records: only acting on it does.
    expect(status).toStrictEqual(handled === undefined ? {} : { lastHandledRedeployAt: handled });
  });

  it('a value longer than status allows is pending by its digest, and handled by it', () => {
    const long = 'x'.repeat(300);
    const pending = pendingRedeployRequest(objWith({ [REDEPLOY]: long }), {});
    expect(pending).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(pendingRedeployRequest(objWith({ [REDEPLOY]: long }), { lastHandledRedeployAt: pending })).toBe(
      undefined,
    );
  });
});

describe('takeReconcileRequest', () => {
  it('records the value it takes, once', () => {
    const obj = objWith({ 'deploy.agents.dev/reconcile-requested-at': 'now' });
    const status: { lastHandledReconcileAt?: string } = {};
    expect(takeReconcileRequest(obj, status)).toBe(true);
    expect(status.lastHandledReconcileAt).toBe('now');
    expect(takeReconcileRequest(obj, status)).toBe(false);
  });
});

describe('the poll-interval annotation', () => {
  const POLL = 'deploy.agents.dev/poll-interval';

  it.each([
    ['10s', 10_000],
    ['90s', 90_000],
    ['24h', 86_400_000],
  ])('%s is taken', (value, ms) => {
    expect(() => checkPollInterval(objWith({ [POLL]: value }))).not.toThrow();
    expect(pollIntervalOf(objWith({ [POLL]: value }), 60_000)).toBe(ms);
  });

  it.each([
    ['1ms: a hot loop', '1ms'],
    ['9s: below the minimum', '9s'],
    ['25h: above the maximum', '25h'],
    ['597h: past the timer limit', '597h'],
    ['not a duration', 'soon'],
    ['empty', ''],
  ])('%s is refused with a Stall naming the annotation and the rule', (_, value) => {
    const obj = objWith({ [POLL]: value });
    let err: unknown;
    try {
      checkPollInterval(obj);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Stall);
    expect((err as Stall).reason).toBe('InvalidAnnotation');
    expect((err as Stall).message).toContain(`annotation ${POLL} must be a duration between 10s and 24h0m0s`);
    // The refused value never reaches a timer.
    expect(pollIntervalOf(obj, 60_000)).toBe(60_000);
  });
});
