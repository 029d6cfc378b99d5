/**
 * The ideal time to all-Ready for N new objects: the least work each object needs (control-plane calls
 * at the simulator's latency, Kubernetes writes at the API server's measured write latency) spread over
 * the workers, plus one revision's walk to DEPLOYED. The ratio to it says how far the controller is
 * from the physical limit, not how slow the API server is.
 */
import { revisionPlan } from '../src/simulator/revision-plan.ts';
import { MINIMUM_CALLS_TOTAL } from './calls.ts';

/** Status steps an external_image revision walks after creation until DEPLOYED. */
export const REVISION_STEPS = revisionPlan('external_image').length - 1;

/**
 * Kubernetes writes a new object needs: the finalizer, the create guard's pending mark, status after the
 * create, status Ready.
 */
export const MINIMUM_KUBE_WRITES = 4;

export const IDEAL_FORMULA =
  'ideal = ceil(N / workers) × (minCalls × latency + kubeWrites × kubeWriteMs) + revisionSteps × stepMs ' +
  `(minCalls = ${MINIMUM_CALLS_TOTAL}: the name lookup, 1 POST, 1 read that sees the revision DEPLOYED; kubeWrites = ` +
  `${MINIMUM_KUBE_WRITES}: finalizer, pending mark, status after create, status Ready, at the API server's median ` +
  `latency for an AgentDeployment status patch with \`workers\` writers at once, measured before the run; revisionSteps = ${REVISION_STEPS}: CREATING→QUEUED→DEPLOYING→DEPLOYED; the work of N ` +
  'objects is spread over the workers, the last revision wait is added once)';

export interface IdealInput {
  n: number;
  workers: number;
  latencyMs: number;
  revisionStepMs: number;
  /** The API server's median write latency, measured before the run. */
  kubeWriteMs: number;
}

/** Work one object needs from a worker, in ms. */
export function perObjectMs(input: Omit<IdealInput, 'n' | 'workers' | 'revisionStepMs'>): number {
  return MINIMUM_CALLS_TOTAL * input.latencyMs + MINIMUM_KUBE_WRITES * input.kubeWriteMs;
}

export function idealMs(input: IdealInput): number {
  return Math.ceil(input.n / input.workers) * perObjectMs(input) + REVISION_STEPS * input.revisionStepMs;
}
