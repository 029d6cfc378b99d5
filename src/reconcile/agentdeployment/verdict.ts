/**
 * What the AgentDeployment chain decides, one discriminant (`kind`) for every verdict, each naming the
 * gate that gave it. `read` and the bookkeeping kinds (`prepare`, `forget`, `own`, `inSync`, `observed`,
 * `analysis`) do not end the
 * program: the gatherer reads or acts, the facts advance (advance.ts) and the chain runs again. The
 * others are final: what the controller does next (and the plan prints).
 */
import type { AnalysisStatus } from '../../api/analysis.ts';
import type { Reason } from '../../api/names.ts';
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
} from '../../controlplane/schemas.ts';
import type { AppliedDigests } from './desired-deployment.ts';
import type { Preparation } from './facts.ts';

/** A fact to gather from the world: the port reads it (the others are derived by advance.ts). */
export type WorldRead =
  | 'secrets'
  | 'claims'
  | 'recorded'
  | 'adopted'
  | 'byName'
  | 'revision'
  | 'policies'
  | 'conditions';
/** A fact computed from the facts already held (advance.ts, derive). */
export type DerivedRead = 'credentials' | 'desired' | 'claimsMet' | 'drift' | 'follow' | 'window';

export type GateName =
  | 'paused'
  | 'holdWhileStalled'
  | 'defaultCredentialsScope'
  | 'finalizer'
  | 'budgets'
  | 'credentialsInUse'
  | 'credentials'
  | 'desired'
  | 'claims'
  | 'ownership'
  | 'observeOnly'
  | 'undo'
  | 'window'
  | 'fastRevert'
  | 'converge'
  | 'rollback'
  | 'rolledBack'
  | 'analysisRequest'
  | 'analysis'
  | 'followRevision';

export type Verdict = { gate: GateName } & (
  | { kind: 'read'; read: WorldRead | DerivedRead }
  /** A Kubernetes-side preparation the controller makes before going on. */
  | { kind: 'prepare'; prepare: Preparation }
  /** The recorded deployment is gone under the same credentials: forget it (a Warning) and go on. */
  | { kind: 'forget'; message: string }
  /** This object owns the deployment from now on (adopted, or found by the create guard): an event. */
  | { kind: 'own'; deployment: Deployment; how: 'adopted' | 'found'; message: string }
  /**
   * Paused by annotation: nothing is sent. `reason` AnalysisInconclusive: paused by an inconclusive
   * analysis, until a person promotes or aborts it.
   */
  | { kind: 'paused'; message: string; reason?: Reason | undefined }
  /**
   * Bookkeeping: status.analysis moves on without a measurement (`analysis`: started for a new revision,
   * promoted, aborted, or ended by the spec's counts), and a promote or abort request is answered
   * (`promoteHandled`, `abortHandled`; `refused`: why it changed nothing).
   */
  | {
      kind: 'analysis';
      analysis?: AnalysisStatus | undefined;
      promoteHandled?: string | undefined;
      abortHandled?: string | undefined;
      refused?: string | undefined;
    }
  /** Measure the analysis' metrics that are due (the act's analysis stage), then decide again. */
  | {
      kind: 'measure';
      deployment: Deployment;
      revision: FollowedRevision;
      metrics: string[];
      message: string;
    }
  /**
   * `compared`: decided by comparing the spec with the owned deployment (recorded and watched);
   * `observeOnly`: an observe-only object with nothing to observe (no deployment, or one being deleted).
   */
  | {
      kind: 'wait';
      reason: Reason;
      message: string;
      retryAfterMs?: number | undefined;
      compared?: true;
      observeOnly?: true;
      /** A change held by a closed deployment window (its event is sent once per generation). */
      windowClosed?: true;
    }
  /**
   * `handled`: a redeploy request the verdict answers (recorded, with a RedeploySkipped event); `drift`:
   * an observe-only object's deployment and the request paths that differ (DriftDetected); `compared`:
   * decided by comparing the spec with the owned deployment; `remediation`: what spec.remediation made
   * of a failed revision (acted on after a verification too); `forgetPolled`: the object may no longer
   * use the credentials its deployment was polled with (its polling stops).
   */
  | {
      kind: 'stall';
      reason: Reason;
      message: string;
      revision?: FollowedRevision | undefined;
      handled?: string | undefined;
      drift?: { deployment: Deployment; fields: string[] } | undefined;
      compared?: true;
      remediation?: true;
      forgetPolled?: true;
      /** An undo request this verdict answers (recorded as handled). */
      undone?: string | undefined;
    }
  /** POST the deployment, behind the create guard (`digests`: what status records as applied). */
  | {
      kind: 'create';
      request: DeploymentCreateRequest;
      digests: AppliedDigests;
      secretsTakenAsCurrent?: undefined;
    }
  /** PATCH what differs. */
  | PatchVerdict
  /**
   * A spec equal to a revision of status.history that deployed (a `git revert`): redeploy it, no build.
   * `patch`: converge's PATCH, sent instead when the platform no longer has the revision (404).
   */
  | { kind: 'revert'; deployment: Deployment; target: string; why: string; patch: PatchVerdict }
  /**
   * Redeploy revision `to` as a rollback from `from`: spec.remediation Rollback (the latest revision failed
   * past spec.retry), or an undo by hand (`undone`: the request it answers, recorded as handled).
   */
  | {
      kind: 'rollback';
      deployment: Deployment;
      from: string;
      to: string;
      message: string;
      undone?: string | undefined;
    }
  /**
   * Bookkeeping: the deployment matches the spec (what it has is recorded as applied); its revision is
   * followed next.
   */
  | {
      kind: 'inSync';
      deployment: Deployment;
      secretsTakenAsCurrent: boolean;
      digests: AppliedDigests;
      /** Writes held after a rollback: nothing is recorded as applied. */
      held?: boolean;
    }
  /** Redeploy the latest revision (a request by annotation, or spec.retry). */
  | {
      kind: 'redeploy';
      deployment: Deployment;
      revision: FollowedRevision;
      trigger: 'annotation' | 'retry';
      why: string;
      handled?: string | undefined;
    }
  /**
   * The revision is in progress (or none yet): nothing to send, looked at again after `requeueAfterMs`.
   * `rollingBack`: the revision is a rollback's (reported RollingBack until RolledBack or RollbackFailed).
   */
  | {
      kind: 'progressing';
      message: string;
      rollingBack?: boolean;
      /** The revision is under analysis (reported AnalysisRunning). */
      analysisRunning?: true;
      requeueAfterMs?: number | undefined;
      revision?: FollowedRevision | undefined;
      handled?: string | undefined;
    }
  /**
   * Deployed and READY: nothing to send (verification, when asked for, comes next). `rolledBack`: the
   * revision is a rollback made for this spec, which holds every write (reported RolledBack, Stalled).
   * `noRollback`: its verification failed and spec.remediation cannot roll back: why (said with it).
   */
  | {
      kind: 'ready';
      message: string;
      revision: FollowedRevision;
      handled?: string | undefined;
      rolledBack?: boolean;
      noRollback?: string | undefined;
    }
  /**
   * Bookkeeping, observe-only: the deployment watched, and what differs from the spec (sent never):
   * `drift` as spec paths, `fields` as request paths. `owned`: recorded or adopted, not only seen by name.
   * Its revision is followed next, read-only.
   */
  | {
      kind: 'observed';
      deployment: Deployment;
      drift: string[];
      fields: string[];
      owned: boolean;
      digests: AppliedDigests;
    }
);

/** A verdict that ends the chain. */
export type FinalVerdict = Exclude<
  Verdict,
  { kind: 'read' | 'prepare' | 'forget' | 'own' | 'inSync' | 'observed' | 'analysis' }
>;

/** A verdict that does not end the chain: the gatherer acts on it (or notes it) and the facts advance. */
export type Bookkeeping = Extract<
  Verdict,
  { kind: 'prepare' | 'forget' | 'own' | 'inSync' | 'observed' | 'analysis' }
>;

/** PATCH what differs. */
export interface PatchVerdict {
  kind: 'patch';
  deployment: Deployment;
  patch: DeploymentPatchRequest;
  changed: string[];
  createsRevision: boolean;
  secretsTakenAsCurrent: boolean;
  digests: AppliedDigests;
}

/** The latest revision as followed: its id and status. */
export interface FollowedRevision {
  id: string;
  status: string;
}

/** A gate: a verdict, or undefined to let the next gate decide. */
export type Gate = (facts: import('./facts.ts').AgentDeploymentFacts) => Verdict | undefined;
