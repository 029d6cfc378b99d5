import type { CoreV1Event } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventRecorder, type EventRecorderOptions } from './events.ts';

type Api = NonNullable<EventRecorderOptions['api']>;

function fakeApi(options: { createFails?: boolean; patchStatus?: number } = {}) {
  const created: CoreV1Event[] = [];
  const patches: Array<{ name: string; body: unknown }> = [];
  const api: Api = {
    createNamespacedEvent: async ({ body }) => {
      if (options.createFails) throw new Error('forbidden');
      created.push(body);
      return body;
    },
    patchNamespacedEvent: async ({ name, body }) => {
      if (options.patchStatus) throw Object.assign(new Error('patch failed'), { code: options.patchStatus });
      patches.push({ name, body });
      return {} as CoreV1Event;
    },
  };
  return { api, created, patches };
}

const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'obj', uid: 'uid-1' };

function recorder(api: Api, lines: Array<Record<string, unknown>> = []) {
  const logger = pino({}, { write: (line: string) => lines.push(JSON.parse(line)) });
  return new EventRecorder({ access: undefined as never, api, component: 'op', instance: 'pod-0', logger });
}

describe('EventRecorder', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    { name: 'same event soon after', second: ['Normal', 'Created', 'made it'], afterMs: 1000, creates: 1 },
    { name: 'other message', second: ['Normal', 'Created', 'made another'], afterMs: 1000, creates: 2 },
    { name: 'other type', second: ['Warning', 'Created', 'made it'], afterMs: 1000, creates: 2 },
    {
      name: 'same event after 10 minutes',
      second: ['Normal', 'Created', 'made it'],
      afterMs: 600_001,
      creates: 2,
    },
  ] as const)('$name -> $creates event(s)', async ({ second, afterMs, creates }) => {
    const { api, created, patches } = fakeApi();
    const events = recorder(api);
    await events.record(ref, 'Normal', 'Created', 'made it');
    vi.advanceTimersByTime(afterMs);
    await events.record(ref, second[0], second[1], second[2]);
    expect(created).toHaveLength(creates);
    expect(patches).toHaveLength(2 - creates);
    if (creates === 1) {
      // As a merge patch: test/runtime.test.ts bumps a count on the real API server.
      expect(patches[0]).toMatchObject({ name: created[0]?.metadata?.name, body: { count: 2 } });
    }
  });

  it('writes the involved object, source, and a unique name per event', async () => {
    const { api, created } = fakeApi();
    const events = recorder(api);
    await Promise.all([
      events.record(ref, 'Normal', 'Created', 'a'),
      events.record(ref, 'Normal', 'Patched', 'b'),
    ]);
    expect(created[0]).toMatchObject({
      involvedObject: { kind: 'ConfigMap', name: 'obj', namespace: 'ns', uid: 'uid-1' },
      source: { component: 'op', host: 'pod-0' },
      count: 1,
    });
    expect(created[0]?.metadata?.name).toMatch(/^obj\.[0-9a-f]+$/);
    expect(created[0]?.metadata?.name).not.toBe(created[1]?.metadata?.name);
  });

  it('starts a new event when the aggregated one is gone', async () => {
    const { api, created } = fakeApi({ patchStatus: 404 });
    const events = recorder(api);
    await events.record(ref, 'Normal', 'Created', 'made it');
    await events.record(ref, 'Normal', 'Created', 'made it');
    expect(created).toHaveLength(2);
  });

  it('truncates messages to 1024 characters', async () => {
    const { api, created } = fakeApi();
    await recorder(api).record(ref, 'Warning', 'DeleteFailed', 'x'.repeat(2000));
    expect(created[0]?.message).toHaveLength(1024);
  });

  it('logs failures instead of throwing, and keeps working', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const failing = fakeApi({ createFails: true });
    const events = recorder(failing.api, lines);
    await expect(events.record(ref, 'Warning', 'DeleteFailed', 'boom')).resolves.toBeUndefined();
    await expect(events.record(ref, 'Warning', 'DeleteFailed', 'boom')).resolves.toBeUndefined();
    expect(lines.filter((l) => l.msg === 'could not record event')).toHaveLength(2);
    expect(lines[0]).toMatchObject({ error: 'forbidden', reason: 'DeleteFailed' });
  });
});
