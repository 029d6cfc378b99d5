import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ReconcileContext, type Reconciler, runController, tenPercentJitter } from './controller.ts';
import { WorkQueue } from './workqueue.ts';

function capturingLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const identity = (ms: number) => ms;

describe('runController', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('passes a child logger with key and reconcile id, and requeues after requeueAfterMs', async () => {
    const { logger, lines } = capturingLogger();
    const queue = new WorkQueue();
    const calls: string[] = [];
    const reconcile: Reconciler = async (key, ctx) => {
      calls.push(key);
      ctx.log.info('working');
      return calls.length === 1 ? { requeueAfterMs: 5000 } : {};
    };
    const controller = runController({
      name: 'test',
      queue,
      reconcile,
      workers: 2,
      logger,
      jitter: identity,
    });
    queue.add('ns/a');
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual(['ns/a']);
    await vi.advanceTimersByTimeAsync(4999);
    expect(calls).toEqual(['ns/a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual(['ns/a', 'ns/a']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(2);

    const working = lines.filter((l) => l.msg === 'working');
    expect(working).toHaveLength(2);
    expect(working[0]).toMatchObject({ controller: 'test', key: 'ns/a' });
    expect(working[0]?.reconcileId).toEqual(expect.any(String));
    expect(working[0]?.reconcileId).not.toEqual(working[1]?.reconcileId);
    await controller.stop(0);
  });

  it("ends a pass's deadline at passDeadlineMs with a TimeoutError, and never after the pass ended", async () => {
    const { logger } = capturingLogger();
    const queue = new WorkQueue();
    const deadlines: AbortSignal[] = [];
    const reconcile: Reconciler = async (key, ctx) => {
      deadlines.push(ctx.deadline);
      // The first pass outlives its deadline; the second ends at once.
      if (key === 'ns/slow') await new Promise((resolve) => ctx.deadline.addEventListener('abort', resolve));
      return {};
    };
    const controller = runController({
      name: 'test',
      queue,
      reconcile,
      workers: 2,
      logger,
      passDeadlineMs: 1000,
    });
    queue.add('ns/slow');
    queue.add('ns/quick');
    await vi.advanceTimersByTimeAsync(1000);
    const [slow, quick] = deadlines;
    expect(slow?.aborted).toBe(true);
    expect((slow?.reason as DOMException | undefined)?.name).toBe('TimeoutError');
    // A pass that ended leaves no timer behind to fire (a DOMException and an abort event each).
    expect(quick?.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    await controller.stop(0);
  });

  it('backs off on errors, logs the message only, and forgets the backoff on success', async () => {
    const { logger, lines } = capturingLogger();
    const queue = new WorkQueue({ baseDelayMs: 1000 });
    let failuresLeft = 2;
    const reconcile: Reconciler = async () => {
      if (failuresLeft-- > 0) throw new Error('control plane said no');
      return {};
    };
    const controller = runController({
      name: 'test',
      queue,
      reconcile,
      workers: 1,
      logger,
      jitter: identity,
    });
    queue.add('ns/a');
    await vi.advanceTimersByTimeAsync(0);
    expect(queue.numRequeues('ns/a')).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(queue.numRequeues('ns/a')).toBe(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(failuresLeft).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(failuresLeft).toBe(-1);
    expect(queue.numRequeues('ns/a')).toBe(0);

    const errors = lines.filter((l) => l.msg === 'reconcile failed');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ key: 'ns/a', error: 'control plane said no' });
    expect(JSON.stringify(errors[0])).not.toContain('stack');
    await controller.stop(0);
  });

  it('never runs the same key twice at once, even with many workers', async () => {
    const { logger } = capturingLogger();
    const queue = new WorkQueue();
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const reconcile: Reconciler = async () => {
      calls++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((resolve) => setTimeout(resolve, 100));
      running--;
      return {};
    };
    const controller = runController({ name: 'test', queue, reconcile, workers: 4, logger });
    queue.add('ns/a');
    await vi.advanceTimersByTimeAsync(10);
    queue.add('ns/a');
    queue.add('ns/a');
    await vi.advanceTimersByTimeAsync(1000);
    expect(maxRunning).toBe(1);
    expect(calls).toBe(2);
    await controller.stop(0);
  });

  it('stop lets in-flight work finish within the grace period, then aborts it', async () => {
    const { logger } = capturingLogger();
    const queue = new WorkQueue();
    const outcomes: string[] = [];
    const reconcile: Reconciler = (key: string, ctx: ReconcileContext) =>
      new Promise((resolve) => {
        const took = key === 'ns/quick' ? 100 : 10_000;
        const timer = setTimeout(() => {
          outcomes.push(`${key} finished`);
          resolve({});
        }, took);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          outcomes.push(`${key} aborted`);
          resolve({});
        });
      });
    const controller = runController({ name: 'test', queue, reconcile, workers: 2, logger });
    queue.add('ns/quick');
    queue.add('ns/slow');
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    void controller.stop(1000).then(() => {
      stopped = true;
    });
    queue.add('ns/late');
    await vi.advanceTimersByTimeAsync(999);
    expect(outcomes).toEqual(['ns/quick finished']);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcomes).toEqual(['ns/quick finished', 'ns/slow aborted']);
    expect(stopped).toBe(true);
  });

  it.each([100, 1000, 30_000])('jitters %i ms up to 10%% later, never sooner', (ms) => {
    for (let i = 0; i < 50; i++) {
      const jittered = tenPercentJitter(ms);
      expect(jittered).toBeGreaterThanOrEqual(ms);
      expect(jittered).toBeLessThanOrEqual(ms * 1.1);
    }
  });

  it('gives timers a turn between passes that call nothing (a takeover passing unpaced keys)', async () => {
    vi.useRealTimers();
    const queue = new WorkQueue({ qps: 1, burst: 1 });
    let passes = 0;
    const controller = runController({
      name: 'test',
      queue,
      reconcile: async () => {
        passes += 1;
        return {};
      },
      workers: 4,
      logger: pino({ level: 'silent' }),
    });
    const atTimer = new Promise<number>((resolve) => setTimeout(() => resolve(passes), 0));
    for (let i = 0; i < 1000; i++) queue.addUnpaced(`ns/o-${i}`);
    // A Lease renewal's timer fires while the passes go on, not after the last.
    expect(await atTimer).toBeLessThan(1000);
    await controller.stop(0);
  });
});
