import { describe, expect, it } from 'vitest';
import { pendingRedeployRequest, takeReconcileRequest } from './annotations.ts';

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
