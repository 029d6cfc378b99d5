/**
 * The parts of prom-client the controller uses, each loaded from its own file (as undici.ts does for
 * undici). prom-client's index loads all of it: Summary (with tdigest), the Pushgateway, the cluster
 * aggregator, and default metrics whose process CPU counters load @opentelemetry/api (51 files) for
 * exemplars the controller never enables. collectDefaultMetrics here registers the same metrics, in the
 * same order, with those three counters written without exemplars. 65 modules fewer; the compiled modules
 * main.js imports, loaded with the metrics registry made and idle 3 s: 74,586 -> 74,040 KiB (medians of 14).
 *
 * prom-client's package.json has no "exports", so its files resolve by path; prom-client.test.ts fails
 * when an upgrade moves them or changes its default metrics. Types still come from 'prom-client'.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
export const Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram') as typeof PromClient.Histogram;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;

type DefaultMetric = (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;

/** lib/defaultMetrics.js's list after its process CPU counters (processResources: Node.js 24 has it). */
const DEFAULT_METRICS: DefaultMetric[] = [
  require('prom-client/lib/metrics/processStartTime'),
  require('prom-client/lib/metrics/osMemoryHeap'),
  require('prom-client/lib/metrics/processOpenFileDescriptors'),
  require('prom-client/lib/metrics/processMaxFileDescriptors'),
  require('prom-client/lib/metrics/eventLoopLag'),
  require('prom-client/lib/metrics/processResources'),
  require('prom-client/lib/metrics/processHandles'),
  require('prom-client/lib/metrics/processRequests'),
  require('prom-client/lib/metrics/heapSizeAndUsed'),
  require('prom-client/lib/metrics/heapSpacesSizeAndUsed'),
  require('prom-client/lib/metrics/version'),
  require('prom-client/lib/metrics/gc'),
];

/** lib/metrics/processCpuTotal.js without exemplars: the three counters, set when one is collected. */
function processCpuTotal(registry: Registry): void {
  const registers = [registry];
  let last = process.cpuUsage();
  const user = new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    // One counter's collect sets all three, as prom-client's does.
    collect() {
      const now = process.cpuUsage();
      const userMicros = now.user - last.user;
      const systemMicros = now.system - last.system;
      last = now;
      user.inc(userMicros / 1e6);
      system.inc(systemMicros / 1e6);
      total.inc((userMicros + systemMicros) / 1e6);
    },
  });
  const system = new Counter({
    name: 'process_cpu_system_seconds_total',
    help: 'Total system CPU time spent in seconds.',
    registers,
  });
  const total = new Counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    registers,
  });
}

/** prom-client's collectDefaultMetrics({ register }) with its defaults. */
export function collectDefaultMetrics({ register }: { register: Registry }): void {
  processCpuTotal(register);
  for (const metric of DEFAULT_METRICS) metric(register, { eventLoopMonitoringPrecision: 10 });
}
