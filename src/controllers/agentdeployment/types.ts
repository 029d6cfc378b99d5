/**
 * What the AgentDeployment reconciler needs from the world (so tests can hand it fakes), and the state
 * one pass carries from step to step.
 */

import type { Analyst } from '../../analysis/analyst.ts';
import type {
  AgentDeployment,
  AgentDeploymentSpec,
  AgentDeploymentStatus,
} from '../../api/agentdeployment.ts';
import type { ControlPlaneAllowList } from '../../controlplane/allowed-control-planes.ts';
import type { ControlPlaneClient } from '../../controlplane/client.ts';
import type { Credentials } from '../../controlplane/credentials.ts';
import type { ScopeDecision } from '../../controlplane/default-credentials-scope.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import type { ClaimQuery } from '../../reconcile/agentdeployment/claim-index.ts';
import type { Claim } from '../../reconcile/agentdeployment/claims.ts';
import type { AgentDeploymentFacts } from '../../reconcile/agentdeployment/facts.ts';
import type { PolicyWindows } from '../../reconcile/agentdeployment/policy-windows.ts';
import type { Pass, PendingEvent } from '../../runtime/reconcile-shell.ts';
import type { WriteFence } from '../../runtime/write-fence.ts';
import type { Verifier } from '../../verification/verifier.ts';
import type { VerifiedCondition } from '../../verification/view.ts';
import type { DeploymentObserver } from './poll/observer.ts';

/** The control-plane calls a reconcile makes. */
export type DeploymentClient = Pick<
  ControlPlaneClient,
  | 'createDeployment'
  | 'getDeployment'
  | 'patchDeployment'
  | 'deleteDeployment'
  | 'findDeploymentsByName'
  | 'getRevision'
  | 'redeployRevision'
>;

export interface AgentDeploymentDeps {
  getObject(namespace: string, name: string): AgentDeployment | undefined;
  /** The object as stored, when getObject showed a status a failed write left in memory. */
  storedObject?(obj: AgentDeployment): AgentDeployment | undefined;
  /** A Secret's data (base64 values, as the API returns them); undefined when it does not exist. */
  readSecret(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  /** Merge-patches status from obj's to this one; returns the object as written. */
  writeStatus(
    obj: AgentDeployment,
    status: AgentDeploymentStatus,
    signal: AbortSignal,
  ): Promise<AgentDeployment>;
  /** Adds the finalizer; returns the object as written (the base of the pass's later writes). */
  addFinalizer(obj: AgentDeployment, signal: AbortSignal): Promise<AgentDeployment>;
  removeFinalizer(obj: AgentDeployment, signal: AbortSignal): Promise<void>;
  recordEvent(obj: AgentDeployment, event: PendingEvent): void;
  /**
   * Asked before each write to the platform (runtime/write-fence.ts): how long it may take, or it throws
   * WriteFenced and nothing is sent. Default: no Lease bounds writes.
   */
  writeFence?: WriteFence;
  /** A client whose calls the signal cancels (the pass's: shutdown). */
  /** `namespace`: the one whose credentials Secret named them (counted against its identities). */
  controlPlane(credentials: Credentials, signal?: AbortSignal, namespace?: string): DeploymentClient;
  /** Batched observation: fresh snapshots instead of GETs, and which deployments to poll. */
  observer: Pick<DeploymentObserver, 'fresh' | 'remember' | 'forget' | 'track' | 'untrack' | 'unmatch'>;
  defaultCredentials: Partial<Credentials>;
  /** Control planes a namespace's credentials Secret may name (default: the default credentials' only). */
  allowedControlPlanes?: ControlPlaneAllowList;
  /**
   * Claims of the watched objects (informer cache) in one tenant, on a deployment name or ids, as an
   * object of credential identity `identity` sees them (claim-index.ts); the caller leaves its own object
   * out (by uid).
   */
  claims(query: ClaimQuery): Claim[];
  /**
   * Waits until the informer delivered this version of the object (a write of the pass's own), so
   * claims() then shows every object written before it; false when it did not within a few seconds.
   */
  cacheShows(obj: AgentDeployment, signal: AbortSignal): Promise<boolean>;
  /** Whether objects of this namespace may use the default credentials (the administrator's scope). */
  defaultCredentialsScope(namespace: string): ScopeDecision;
  /**
   * The DeploymentWindowPolicies that select an object of this namespace with these labels, from the
   * cache (cache/window-policies.ts); why they are not known, while it has not listed them.
   */
  windowPolicies(
    namespace: string,
    labels: Record<string, string> | undefined,
  ): PolicyWindows[] | { unknown: string };
  /** A pass's finding: the policies (and whether its own windows) holding its change now. */
  windowHolds(key: string, policies: readonly string[], own: boolean): void;
  /** Puts the in-use finalizer on the credentials Secret an object names, unless it has it. */
  protectCredentials(namespace: string, secretName: string, signal: AbortSignal): Promise<void>;
  /**
   * Takes the in-use finalizer off the namespace's credentials Secrets that no object needs any more;
   * `exceptKey`: an object whose deletion just finished (the cache may still hold it).
   */
  releaseCredentials(namespace: string, exceptKey: string | undefined, signal: AbortSignal): Promise<void>;
  /** Keys the secrets digest (per object, with its uid); never leaves the process. */
  digestKey: string;
  pollIntervalMs: number;
  revisionPollMs: number;
  /** Reconciles started per second, all objects together (--reconcile-rate): the safety resyncs' budget. */
  reconcileRate: number;
  /** About how many objects this replica reconciles (its work queue's keys, waiting, in flight or delayed). */
  heldObjects(): number;
  /** Post-deploy verification (spec.verification). */
  verifier: Pick<Verifier, 'step' | 'forget'>;
  /** Analysis of each new revision (spec.analysis): one metric measured, and counted. */
  analyst: Pick<Analyst, 'measure' | 'counted'>;
  now(): Date;
}

/**
 * One pass: the shell's state (the object, the status being written, events) and the program's facts
 * (reconcile/agentdeployment/facts.ts: everything read and derived, credentials and desired state
 * included), made once, when the first step asks for them. The rest is what the act stage did.
 */
export interface AgentDeploymentPass extends Pass<AgentDeployment, AgentDeploymentStatus> {
  spec: AgentDeploymentSpec;
  facts?: AgentDeploymentFacts;
  /** The control-plane client of the facts' credentials (`clientOf`: their identity), made once. */
  client?: DeploymentClient;
  clientOf?: string;
  /** The deployment the act stage recorded as watched (or, observe-only, observed). */
  deployment?: Deployment;
  /** The verification stage's result, when it ran. */
  verified?: VerifiedCondition;
}
