/**
 * Condition types and reasons, following kstatus: `Ready` is always present; `Reconciling` and `Stalled`
 * are "abnormal-true" (present and True only while the object is in that state). SandboxTemplate adds
 * `Drifted` (True when the observed template differs from the spec).
 */
export const ConditionType = {
  Ready: 'Ready',
  Reconciling: 'Reconciling',
  Stalled: 'Stalled',
  Drifted: 'Drifted',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

export const ConditionStatus = {
  True: 'True',
  False: 'False',
  Unknown: 'Unknown',
} as const;
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** Reasons are CamelCase, as metav1.Condition requires. */
export const ConditionReason = {
  /** The observed state matches the spec (latest revision DEPLOYED, or template found and in sync). */
  Succeeded: 'Succeeded',
  /** Work is under way: creating, patching, or a revision is building or deploying. */
  Progressing: 'Progressing',
  /** A referenced Secret (or one of its keys) does not exist yet. */
  WaitingForSecret: 'WaitingForSecret',
  /** The latest revision ended in CREATE_FAILED, BUILD_FAILED or DEPLOY_FAILED. */
  RevisionFailed: 'RevisionFailed',
  /** The control plane refused the request (400 or 422); the message quotes it. */
  Rejected: 'Rejected',
  /** The spec asks to change a field the control plane never changes after creation. */
  ImmutableFieldChanged: 'ImmutableFieldChanged',
  /** The deployment or template named by the object does not exist on the control plane. */
  NotFound: 'NotFound',
  /** Reconciliation is paused by the `deploy.agents.dev/paused` annotation. */
  Paused: 'Paused',
  /** The object is being deleted and the deletion policy is being applied. */
  Deleting: 'Deleting',
  /** Deleting the control-plane deployment failed; the finalizer stays until it succeeds. */
  DeleteFailed: 'DeleteFailed',
  /** A network error, a 5xx or a 429: retried with backoff. */
  TransientError: 'TransientError',
  /** SandboxTemplate: the observed template differs from the spec (see status.drift). */
  DriftDetected: 'DriftDetected',
} as const;
export type ConditionReason = (typeof ConditionReason)[keyof typeof ConditionReason];
