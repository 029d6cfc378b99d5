/**
 * Every name the controller writes or reads on objects, declared once: annotations, the finalizer,
 * condition types, condition reasons and event reasons. Code emits only these (the types below make any
 * other string a compile error); docs/troubleshooting.md (an entry per reason), the API reference and the Argo CD
 * health scripts are tested against this module.
 */

/** Annotations the controller reads on AgentDeployment and SandboxTemplate objects. */
export const Annotation = {
  /** "true" stops reconciliation (the object's status says so); any other value or absence resumes it. */
  Paused: 'deploy.agents.dev/paused',
  /** Any new value (conventionally an RFC 3339 time) asks for a reconcile now. */
  ReconcileRequestedAt: 'deploy.agents.dev/reconcile-requested-at',
  /**
   * Any new value (conventionally an RFC 3339 time) redeploys the latest revision once, e.g. to retry a
   * DEPLOY_FAILED one without a spec change. Handled once per value.
   */
  RedeployRequestedAt: 'deploy.agents.dev/redeploy-requested-at',
  /**
   * Any new value (conventionally an RFC 3339 time) rolls back by hand, once per value: the revision
   * `undo-to-revision` names (default: the newest other revision that deployed) is redeployed and held as
   * RolledBack until the spec changes (`kubectl agd undo`).
   */
  UndoRequestedAt: 'deploy.agents.dev/undo-requested-at',
  /** The revision an undo redeploys (an id of status.history); absent: the newest other that deployed. */
  UndoToRevision: 'deploy.agents.dev/undo-to-revision',
  /**
   * Any new value (conventionally an RFC 3339 time) accepts the revision under analysis, once per value:
   * a Running or Inconclusive analysis becomes Successful (`kubectl agd promote`).
   */
  AnalysisPromoteRequestedAt: 'deploy.agents.dev/analysis-promote-requested-at',
  /**
   * Any new value (conventionally an RFC 3339 time) rejects the revision under analysis, once per value:
   * a Running or Inconclusive analysis fails now and spec.remediation decides (`kubectl agd abort`).
   */
  AnalysisAbortRequestedAt: 'deploy.agents.dev/analysis-abort-requested-at',
  /**
   * Lets one change through the object's closed deployment window (spec.deploymentWindows); its value is
   * the reason, recorded in status.history. Spent once a change goes through with it: the next needs a
   * new value.
   */
  OverrideWindow: 'deploy.agents.dev/override-window',
  /** Per-object poll interval as a duration (`30s`, `5m`), overriding the controller's default. */
  PollInterval: 'deploy.agents.dev/poll-interval',
  /** Adopt an existing control-plane deployment by id instead of creating one. */
  AdoptDeploymentId: 'deploy.agents.dev/adopt-deployment-id',
} as const;
export type Annotation = (typeof Annotation)[keyof typeof Annotation];

/** Held by an AgentDeployment until its deletion policy has run. */
export const FINALIZER = 'deploy.agents.dev/finalizer';

/**
 * Held by a credentials Secret (spec.credentialsSecretRef) while an AgentDeployment of its namespace
 * names it, so that deleting the namespace cannot remove the credentials before the deletion policy ran.
 */
export const CREDENTIALS_IN_USE_FINALIZER = 'deploy.agents.dev/credentials-in-use';

/**
 * Condition types, following kstatus: `Ready` is always present; `Reconciling` and `Stalled` are
 * abnormal-true (present only while true). `Paused` is present while paused; `Verified` only with
 * spec.verification; `Drifted` on SandboxTemplate and on an observe-only AgentDeployment.
 */
export const ConditionType = {
  Ready: 'Ready',
  Reconciling: 'Reconciling',
  Stalled: 'Stalled',
  Paused: 'Paused',
  Verified: 'Verified',
  Drifted: 'Drifted',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/** Condition reasons (CamelCase, as metav1.Condition requires), with what each means for a person. */
export const Reason = {
  /** The observed state matches the spec (latest revision DEPLOYED, or template found and in sync). */
  Succeeded: 'Succeeded',
  /** Work is under way: a revision is building or deploying. */
  Progressing: 'Progressing',
  /** A referenced Secret or key is missing, or a secretsFrom key is not a C identifier. */
  WaitingForSecret: 'WaitingForSecret',
  /** The credentials Secret named by credentialsSecretRef does not exist. */
  WaitingForCredentials: 'WaitingForCredentials',
  /** The credentials cannot be used (a key breaks a rule; the message names it, never a value). */
  InvalidCredentials: 'InvalidCredentials',
  /**
   * The object names no credentialsSecretRef and its namespace may not use the controller's default
   * credentials (--default-credentials-namespaces, --default-credentials-namespace-selector).
   */
  DefaultCredentialsNotAllowed: 'DefaultCredentialsNotAllowed',
  /**
   * The credentials Secret names a baseUrl that is not among the control planes the administrator allows
   * (--allowed-control-plane-urls): no request is made to it.
   */
  ControlPlaneNotAllowed: 'ControlPlaneNotAllowed',
  /**
   * A bound that keeps one tenant from taking the controller's memory or time was reached: a listing's
   * pages or bytes, or the size of the Secret values one object references. The message names the bound.
   */
  BudgetExceeded: 'BudgetExceeded',
  /** The control plane answered 401/403. */
  Unauthorized: 'Unauthorized',
  /** The control plane refused the request (400 or 422); the message quotes it. */
  Rejected: 'Rejected',
  /** The spec asks to change a field the control plane never changes after creation. */
  ImmutableFieldChanged: 'ImmutableFieldChanged',
  /**
   * The latest revision ended in CREATE_FAILED, BUILD_FAILED or DEPLOY_FAILED (after spec.retry's
   * redeploys, when set); the redeploy-requested-at annotation or a spec change tries again.
   */
  RevisionFailed: 'RevisionFailed',
  /**
   * spec.remediation Rollback: the latest revision failed (past spec.retry, or its verification) and the
   * last good revision was redeployed and serves (verified, with spec.verification); the message names both.
   * Stalled: nothing is sent until the spec changes or the reconcile-requested-at annotation gets a new value.
   */
  RolledBack: 'RolledBack',
  /** A rollback is under way: the last good revision is redeployed and followed (then verified). */
  RollingBack: 'RollingBack',
  /**
   * The revision a rollback redeployed failed too (its deploy or its verification): nothing more is tried
   * (never a rollback of a rollback) until the spec changes or a person asks.
   */
  RollbackFailed: 'RollbackFailed',
  /**
   * An undo by hand (deploy.agents.dev/undo-requested-at) that cannot be made: no deployment, an
   * observe-only object, or no revision of status.history that deployed to go back to.
   */
  UndoRefused: 'UndoRefused',
  /** The analysis of the latest revision (spec.analysis) is measuring it; it becomes the last good one once Successful. */
  AnalysisRunning: 'AnalysisRunning',
  /**
   * The analysis of the latest revision failed (or a person aborted it) and spec.remediation does not roll
   * back (None, or nothing to roll back to): the revision serves, and a spec change or a rollback by hand ends it.
   */
  AnalysisFailed: 'AnalysisFailed',
  /**
   * The analysis of the latest revision was inconclusive past spec.analysis.inconclusiveLimit: paused until a
   * person promotes it (kubectl agd promote) or aborts it (kubectl agd abort).
   */
  AnalysisInconclusive: 'AnalysisInconclusive',
  /** spec.analysis holds a condition the controller cannot evaluate (the message names the field). */
  InvalidAnalysis: 'InvalidAnalysis',
  /** The latest revision stayed in progress past spec.progressDeadline; the message names it and its status. */
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  /**
   * The spec states no secret while the deployment has some: the platform cannot remove every secret
   * (an empty list means "unchanged"), so nothing is sent and nothing is recorded as applied.
   */
  SecretsRemovalUnsupported: 'SecretsRemovalUnsupported',
  /**
   * The platform is deleting the deployment: after this object's deletion (the finalizer stays until the
   * deployment is gone), or by someone else (it is created again once gone).
   */
  Deleting: 'Deleting',
  /** The deployment name is still held by a deployment the platform is deleting; created once it is free. */
  WaitingForName: 'WaitingForName',
  /**
   * The deployment name is claimed on this tenant by another object (named in the message), or a
   * deployment of that name exists that this object did not create; nothing is sent.
   */
  NameConflict: 'NameConflict',
  /** The deployment id this object adopts or records is managed by another object (named); nothing is sent. */
  AlreadyManaged: 'AlreadyManaged',
  /**
   * A create was pending without an answer and a deployment of the name exists, but the evidence does not
   * show this object made it (created before the create started, or claimed by another object).
   */
  CreateUnconfirmed: 'CreateUnconfirmed',
  /**
   * The recorded deployment is not found under the object's current credentials, which differ (tenant or
   * base URL) from those that created or adopted it: nothing is created in their place.
   */
  CredentialsChanged: 'CredentialsChanged',
  /** The adopt annotation names a deployment that does not exist, or one of another name. */
  AdoptionFailed: 'AdoptionFailed',
  /** The adopt annotation names another deployment than the one this object manages. */
  AdoptionConflict: 'AdoptionConflict',
  /** 5xx, 429, timeouts or dropped connections: retried with backoff. */
  ControlPlaneUnavailable: 'ControlPlaneUnavailable',
  /** A control-plane response was not JSON or lacked fields. */
  MalformedResponse: 'MalformedResponse',
  /** An unexpected error: retried with backoff. */
  Error: 'Error',
  /** Deleting the deployment failed; the finalizer stays until it succeeds. */
  DeleteFailed: 'DeleteFailed',
  /** An annotation's value breaks its rule (the message names the annotation and the rule). */
  InvalidAnnotation: 'InvalidAnnotation',
  /** A change waits for its deployment window to open (the message names the window and when it opens). */
  WindowClosed: 'WindowClosed',
  /** spec.deploymentWindows holds a window the controller cannot read (the message names the field). */
  InvalidWindow: 'InvalidWindow',
  /** The paused annotation is set. */
  Paused: 'Paused',
  /** Verification waits for the latest revision to be DEPLOYED. */
  WaitingForRevision: 'WaitingForRevision',
  /** The smoke run on the latest revision is under way. */
  Verifying: 'Verifying',
  /** The smoke run failed, timed out, or the agent server did not answer. */
  VerificationFailed: 'VerificationFailed',
  /** Verification is asked for but the deployment has no URL. */
  NoURLToVerify: 'NoURLToVerify',
  /**
   * Verification would send the controller's own credentials to a host outside the allow-list
   * (--agent-server-allowed-hosts), a call without them to an internal address
   * (--agent-server-allowed-internal-addresses), or the URL has a query or a fragment that would swallow
   * the verification's paths: no request is made.
   */
  URLNotAllowed: 'URLNotAllowed',
  /**
   * SandboxTemplate: no template of that exact name is listed. Observe-only AgentDeployment: no
   * deployment to observe (nothing is created).
   */
  NotFound: 'NotFound',
  /** SandboxTemplate: two templates carry that exact name. */
  Ambiguous: 'Ambiguous',
  /**
   * SandboxTemplate, or an observe-only AgentDeployment: what the platform has differs from the spec
   * (see status.drift); nothing is sent.
   */
  DriftDetected: 'DriftDetected',
  /** SandboxTemplate, or an observe-only AgentDeployment: what the platform has matches the spec. */
  InSync: 'InSync',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/**
 * Reasons of events that record an action or a fact rather than a condition (conditions' own reasons are
 * used for the events that mark their changes).
 */
export const EventReason = {
  Created: 'Created',
  Found: 'Found',
  Adopted: 'Adopted',
  Patched: 'Patched',
  DeploymentMissing: 'DeploymentMissing',
  RevisionDeployed: 'RevisionDeployed',
  Verified: 'Verified',
  Deleted: 'Deleted',
  /** A failed revision was redeployed (by the redeploy-requested-at annotation or spec.retry). */
  Redeployed: 'Redeployed',
  /** A redeploy request found nothing failed to redeploy (the latest revision is DEPLOYED). */
  RedeploySkipped: 'RedeploySkipped',
  /** spec.remediation Rollback started: the last good revision was redeployed. */
  RollingBack: 'RollingBack',
  /** A spec equal to a revision's in status.history was applied by redeploying it (no PATCH, no build). */
  Reverted: 'Reverted',
  /** The revision a revert would redeploy is gone on the platform: the change was PATCHed instead. */
  RevertFellBack: 'RevertFellBack',
  /** Adoption took the secret values the platform does not reveal as current, instead of redeploying. */
  SecretsTakenAsCurrent: 'SecretsTakenAsCurrent',
  Orphaned: 'Orphaned',
  /** A change waits for its deployment window (once per generation held). */
  WindowClosed: 'WindowClosed',
  /** A change went through a closed window by the override-window annotation (its reason said). */
  WindowOverridden: 'WindowOverridden',
  /** The override-window annotation was refused: a policy's window without manualOverride holds (once per value). */
  WindowOverrideRefused: 'WindowOverrideRefused',
  /** An analysis of the latest revision started (spec.analysis). */
  AnalysisStarted: 'AnalysisStarted',
  /** The analysis succeeded: the revision is the last good one. */
  AnalysisSuccessful: 'AnalysisSuccessful',
  /** The analysis failed: spec.remediation decides. */
  AnalysisFailed: 'AnalysisFailed',
  /** The analysis was inconclusive: the object waits for a person (promote or abort). */
  AnalysisInconclusive: 'AnalysisInconclusive',
  /** A person promoted the analysis (the analysis-promote-requested-at annotation). */
  AnalysisPromoted: 'AnalysisPromoted',
  /** A person aborted the analysis (the analysis-abort-requested-at annotation): spec.remediation decides. */
  AnalysisAborted: 'AnalysisAborted',
  /** A promote or abort request found no analysis it could change (the message says why). */
  AnalysisRequestRefused: 'AnalysisRequestRefused',
} as const;
export type EventReason = (typeof EventReason)[keyof typeof EventReason];

/**
 * Stalled reasons that wait for the object to change (a new generation or a reconcile request) before
 * anything is sent again. RevisionFailed is not among them: the object keeps following the deployment,
 * so a revision the control plane starts by itself (build on push) is picked up. Nor are RolledBack and
 * RollbackFailed, for the same reason: their hold on writes comes from status.history instead
 * (reconcile/agentdeployment/remediation.ts).
 */
export const STICKY_STALL_REASONS: ReadonlySet<string> = new Set<Reason>([
  Reason.Rejected,
  Reason.ImmutableFieldChanged,
  Reason.AdoptionFailed,
  Reason.AdoptionConflict,
]);
