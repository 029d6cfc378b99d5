import * as promClient from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from './prom-client.ts';

/** Each metric's name, help and type, in the order a scrape shows them. */
async function shape(registry: promClient.Registry) {
  return (await registry.getMetricsAsJSON()).map((m) => [m.name, m.help, m.type]);
}

describe('prom-client loaded file by file', () => {
  it.each([
    ['Registry', Registry, promClient.Registry],
    ['Counter', Counter, promClient.Counter],
    ['Gauge', Gauge, promClient.Gauge],
    ['Histogram', Histogram, promClient.Histogram],
  ] as const)('%s is the one prom-client exports', (_, ours, theirs) => {
    expect(ours).toBe(theirs);
  });

  it("registers prom-client's default metrics, in its order", async () => {
    const ours = new Registry();
    collectDefaultMetrics({ register: ours });
    const theirs = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: theirs });
    expect(await shape(ours)).toEqual(await shape(theirs));
  });

  it('counts the process CPU time, user and system adding up to the total', async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const until = Date.now() + 20;
    while (Date.now() < until); // some CPU time to count
    const value = async (name: string) =>
      (await registry.getSingleMetric(name)?.get())?.values[0]?.value ?? Number.NaN;
    const user = await value('process_cpu_user_seconds_total');
    const system = await value('process_cpu_system_seconds_total');
    const total = await value('process_cpu_seconds_total');
    expect(user).toBeGreaterThan(0);
    expect(total).toBeCloseTo(user + system, 6);
  });
});
