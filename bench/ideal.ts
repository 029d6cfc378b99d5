/** The ideal time to all-Ready for N new objects, from the minimum work and the simulator's timings. */
import { revisionPlan } from '../src/simulator/revision-plan.ts';
import { MINIMUM_CALLS_TOTAL } from './calls.ts';

/** Status steps an external_image revision walks after creation until DEPLOYED. */
export const REVISION_STEPS = revisionPlan('external_image').length - 1;

export const IDEAL_FORMULA =
  'ideal = ceil(N / workers) × minCalls × latency + revisionSteps × stepMs ' +
  `(minCalls = ${MINIMUM_CALLS_TOTAL}: 1 POST + 1 revision GET that sees DEPLOYED; revisionSteps = ${REVISION_STEPS}: ` +
  'CREATING→QUEUED→DEPLOYING→DEPLOYED; the calls of N objects are spread over the workers, the last ' +
  'revision wait is added once)';

export function idealMs(options: {
  n: number;
  workers: number;
  latencyMs: number;
  revisionStepMs: number;
}): number {
  const { n, workers, latencyMs, revisionStepMs } = options;
  return Math.ceil(n / workers) * MINIMUM_CALLS_TOTAL * latencyMs + REVISION_STEPS * revisionStepMs;
}
