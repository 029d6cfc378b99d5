import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Reconciler, runController } from './controller.ts';
import { RuntimeMetrics } from './runtime-metrics.ts';
import { WorkQueue } from './workqueue.ts';

/** The value of one series of the registry's exposition, or NaN when it is not there. */
async function sample(registry: Registry, series: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

const queueLabels = '{name="widget",controller="widget"}';

describe('RuntimeMetrics', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts reconciles, queue work and workers as controller-runtime does', async () => {
    const registry = new Registry();
    const metrics = new RuntimeMetrics(registry);
    const queue = new WorkQueue({ metrics: metrics.queue('widget'), baseDelayMs: 60_000 });
    metrics.watchQueue('widget', queue);
    const reconcile: Reconciler = async (key) => {
      await new Promise((resolve) => setTimeout(resolve, key === 'ns/slow' ? 5_000 : 200));
      if (key === 'ns/bad') throw new Error('no');
      return key === 'ns/poll' ? { requeueAfterMs: 600_000 } : {};
    };
    const controller = runController({
      name: 'widget',
      queue,
      reconcile,
      workers: 4,
      logger: pino({ level: 'silent' }),
      metrics: metrics.controller('widget'),
      now: () => Date.now() / 1000,
      jitter: (ms) => ms,
    });
    const m = (series: string) => sample(registry, series);

    // Every result series exists from the start, as controller-runtime initialises them.
    expect(await m('controller_runtime_reconcile_total{controller="widget",result="requeue"}')).toBe(0);
    expect(await m('controller_runtime_max_concurrent_reconciles{controller="widget"}')).toBe(4);

    for (const key of ['ns/ok', 'ns/poll', 'ns/bad', 'ns/slow']) queue.add(key); // one per worker
    queue.add('ns/late');
    queue.add('ns/late'); // already waiting: no add
    expect(await m(`workqueue_adds_total${queueLabels}`)).toBe(5);
    expect(await m(`workqueue_depth${queueLabels}`)).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(await m('controller_runtime_active_workers{controller="widget"}')).toBe(4);
    expect(await m(`workqueue_longest_running_processor_seconds${queueLabels}`)).toBeCloseTo(0.1);
    expect(await m(`workqueue_unfinished_work_seconds${queueLabels}`)).toBeCloseTo(0.4);
    queue.add('ns/slow'); // in flight: due again, and counted in the depth until handed out again
    expect(await m(`workqueue_depth${queueLabels}`)).toBe(2);

    await vi.advanceTimersByTimeAsync(200); // ok, poll and bad done; late taken
    expect(await m('controller_runtime_active_workers{controller="widget"}')).toBe(2);
    expect(await m('controller_runtime_reconcile_total{controller="widget",result="success"}')).toBe(1);
    expect(await m('controller_runtime_reconcile_total{controller="widget",result="requeue_after"}')).toBe(1);
    expect(await m('controller_runtime_reconcile_total{controller="widget",result="error"}')).toBe(1);
    expect(await m('controller_runtime_reconcile_total{controller="widget",result="requeue"}')).toBe(0);
    expect(await m('controller_runtime_reconcile_errors_total{controller="widget"}')).toBe(1);
    expect(await m(`workqueue_retries_total${queueLabels}`)).toBe(1);
    expect(await m('controller_runtime_reconcile_time_seconds_count{controller="widget"}')).toBe(3);
    expect(await m('controller_runtime_reconcile_time_seconds_sum{controller="widget"}')).toBeCloseTo(0.6);
    expect(await m(`workqueue_work_duration_seconds_count${queueLabels}`)).toBe(3);
    expect(await m(`workqueue_queue_duration_seconds_count${queueLabels}`)).toBe(5);
    expect(await m(`workqueue_queue_duration_seconds_sum${queueLabels}`)).toBeCloseTo(0.2);
    expect(await m(`workqueue_depth${queueLabels}`)).toBe(1);

    await vi.advanceTimersByTimeAsync(5_000); // slow done and taken again
    expect(await m(`workqueue_queue_duration_seconds_count${queueLabels}`)).toBe(6);
    expect(await m(`workqueue_depth${queueLabels}`)).toBe(0);
    const stopped = controller.stop(0);
    await vi.advanceTimersByTimeAsync(5_000); // the reconciler here ignores its abort signal
    await stopped;
  });

  it('counts API server requests by code, method and host', async () => {
    const registry = new Registry();
    const metrics = new RuntimeMetrics(registry);
    metrics.restClientRequest('10.0.0.1:6443', 'GET', '200');
    metrics.restClientRequest('10.0.0.1:6443', 'GET', '200');
    metrics.restClientRequest('10.0.0.1:6443', 'PATCH', '<error>');
    const m = (series: string) => sample(registry, series);
    expect(await m('rest_client_requests_total{code="200",method="GET",host="10.0.0.1:6443"}')).toBe(2);
    expect(await m('rest_client_requests_total{code="<error>",method="PATCH",host="10.0.0.1:6443"}')).toBe(1);
  });
});
