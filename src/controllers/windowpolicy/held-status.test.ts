import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeploymentWindowPolicy } from '../../api/deployment-window-policy.ts';
import { PolicyHolds } from './held-status.ts';
import { policyStatus } from './policy-status.ts';

const NOW = new Date('2026-06-01T00:00:00Z');

function policy(name: string, over: Partial<DeploymentWindowPolicy> = {}): DeploymentWindowPolicy {
  return {
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'DeploymentWindowPolicy',
    metadata: { name, generation: 2 },
    spec: {
      namespaceSelector: {},
      windows: [{ kind: 'Deny', schedule: '* * * * *', duration: '1h' }],
      manualOverride: false,
      allowRollback: true,
    },
    ...over,
  };
}

describe('policyStatus', () => {
  it('counts every held object, lists at most 50, sorted, and is Ready', () => {
    const held = new Set(Array.from({ length: 60 }, (_, i) => `ns/obj-${String(i).padStart(2, '0')}`));
    const status = policyStatus(policy('freeze'), held, NOW);
    expect(status.heldObjects).toBe(60);
    expect(status.held).toHaveLength(50);
    expect(status.held?.[0]).toBe('ns/obj-00');
    expect(status.observedGeneration).toBe(2);
    expect(status.conditions).toMatchObject([{ type: 'Ready', status: 'True', observedGeneration: 2 }]);
  });

  it('a window it cannot read: Ready False and Stalled, InvalidWindow naming the field', () => {
    const bad = policy('freeze');
    bad.spec.windows = [{ kind: 'Deny', schedule: '* * * * *', duration: '1h', timeZone: 'Mars/Olympus' }];
    const status = policyStatus(bad, new Set(), NOW);
    expect(status.conditions).toMatchObject([
      { type: 'Ready', status: 'False', reason: 'InvalidWindow' },
      {
        type: 'Stalled',
        status: 'True',
        message: expect.stringContaining('DeploymentWindowPolicy/freeze windows[0].timeZone'),
      },
    ]);
  });
});

describe('PolicyHolds', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function holdsOf(policies: DeploymentWindowPolicy[], mayWrite = true) {
    const writes: { name: string; status: Record<string, unknown> }[] = [];
    const holds = new PolicyHolds({
      policyOf: (name) => policies.find((p) => p.metadata.name === name),
      mayWrite: () => mayWrite,
      writeStatus: async (p, status) => {
        writes.push({ name: p.metadata.name, status });
        // What the informer would then show.
        p.status = status as DeploymentWindowPolicy['status'];
      },
      logger: pino({ level: 'silent' }),
      debounceMs: 1_000,
      now: () => NOW,
    });
    return { holds, writes };
  }

  it('many passes reporting within the debounce: one write per policy', async () => {
    const { holds, writes } = holdsOf([policy('freeze')]);
    holds.start(['freeze']);
    for (let i = 0; i < 100; i++) holds.report(`ns/obj-${i}`, ['freeze'], false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.status).toMatchObject({ heldObjects: 100 });
    expect(holds.heldCounts()).toEqual({ object: 0, policy: 100 });
  });

  it('the same finding again: nothing written', async () => {
    const { holds, writes } = holdsOf([policy('freeze')]);
    holds.start(['freeze']);
    holds.report('ns/a', ['freeze'], true);
    await vi.advanceTimersByTimeAsync(1_000);
    holds.report('ns/a', ['freeze'], true);
    holds.changed('freeze');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes).toHaveLength(1);
    expect(holds.heldCounts()).toEqual({ object: 1, policy: 1 });
  });

  it('an object no longer held, or gone: the count falls', async () => {
    const { holds, writes } = holdsOf([policy('freeze')]);
    holds.start([]);
    holds.report('ns/a', ['freeze']);
    holds.report('ns/b', ['freeze']);
    await vi.advanceTimersByTimeAsync(1_000);
    holds.report('ns/a', []);
    holds.forget('ns/b');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes.map((w) => w.status.heldObjects)).toEqual([2, 0]);
  });

  it('a controller that does not see every object the policy selects: counts, writes nothing', async () => {
    const { holds, writes } = holdsOf([policy('freeze')], false);
    holds.start(['freeze']);
    holds.report('ns/a', ['freeze']);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(writes).toEqual([]);
  });

  it('not started (a replica that does not work on every object): counts, writes nothing', async () => {
    const { holds, writes } = holdsOf([policy('freeze')]);
    holds.report('ns/a', ['freeze']);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(writes).toEqual([]);
    expect(holds.heldCounts().policy).toBe(1);
  });
});
