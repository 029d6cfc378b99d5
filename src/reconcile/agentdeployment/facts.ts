/**
 * The facts one AgentDeployment pass decides on: the object, the controller's settings that change a
 * verdict, and what has been read so far. Gathered lazily: a gate that needs a fact not read yet asks
 * for it (a `read` verdict) and the gatherer (the controller's port, or the plan's read-only one) fills
 * it in; what is computed from facts already held (credentials, desired state) is derived here, purely.
 */

import type { ConditionsFact } from '../../analysis/conditions.ts';
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import type { Credentials } from '../../controlplane/credentials.ts';
import type { ScopeDecision } from '../../controlplane/default-credentials-scope.ts';
import type { CredentialsPolicy } from '../../controlplane/resolve-credentials.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import type { ClaimQuery } from './claim-index.ts';
import type { Claim } from './claims.ts';
import type { ClaimsMet } from './claims-met.ts';
import type { AppliedDigests, DesiredDeployment } from './desired-deployment.ts';
import type { DriftDecision } from './drift-decision.ts';
import type { FollowInput } from './follow.ts';
import type { NameLookup, ReadById } from './ownership.ts';
import type { PoliciesFact } from './policy-windows.ts';
import type { Verdict } from './verdict.ts';
import type { WindowFact } from './window-fact.ts';

/** The controller's settings that change a verdict, as they apply to this object's namespace. */
export interface VerdictSettings {
  /** Whether this object's namespace may use the controller's default credentials. */
  defaultCredentialsScope: ScopeDecision;
  /** The default credentials and the control planes a credentials Secret may name. */
  credentialsPolicy: CredentialsPolicy;
  /** The most bytes of Secret values one object may reference. */
  objectSecretBudget: number;
}

/** The object as the pass sees it (its spec parsed). */
export interface FactsObject {
  metadata: {
    name: string;
    namespace?: string | undefined;
    uid?: string | undefined;
    creationTimestamp?: string | Date | undefined;
    generation?: number | undefined;
    annotations?: Record<string, string> | undefined;
    finalizers?: string[] | undefined;
    deletionTimestamp?: string | Date | undefined;
  };
  spec: AgentDeploymentSpec;
  /**
   * The status as the chain knows it: the stored one, advanced by what the pass learns (advance.ts: a
   * deployment owned, forgotten, found in sync or observed, its revision read, a verification's result).
   * The facts' own copy: the act stage starts the status it writes from it.
   */
  status: AgentDeploymentStatus;
}

/** The Secrets the object references, as read. */
export interface SecretsRead {
  byName: ReadonlyMap<string, Record<string, string> | undefined>;
  /** Reading one would pass its namespace's budget: why (the Secret cache's message). */
  namespaceBudgetExceeded?: string | undefined;
}

/** The credentials the object would call with, or why there are none (a wait or a stall). */
export type CredentialsFact =
  | { ok: true; credentials: Credentials; tenant: string; identity: string }
  | { ok: false; kind: 'wait' | 'stall'; reason: string; message: string };

/** Other objects' claims as this object sees them (claims.ts's visibility rule applied). */
export interface ClaimsFact {
  claims(query: ClaimQuery): Claim[];
}

/** Kubernetes-side preparations the chain asks for before it goes on (the plan only assumes them made). */
export type Preparation = 'addFinalizer' | 'credentialsInUse';

export interface AgentDeploymentFacts {
  object: FactsObject;
  settings: VerdictSettings;
  /** The reconcile-requested-at annotation holds a value not handled yet. */
  reconcileRequested: boolean;
  /**
   * False when the object's status cannot be known (a plan without a cluster): the status is assumed
   * empty and a live deployment of its name taken as its own.
   */
  statusKnown: boolean;
  /** Keys the secrets digest; undefined (a plan without the key): secret values are not compared. */
  digestKey: string | undefined;
  now: Date;
  revisionPollMs: number;
  /** Nothing records what was last applied (a plan of an object not in the cluster). */
  appliedUnknown: boolean;
  /** Preparations made (or, in a plan, assumed). */
  prepared: Set<Preparation>;
  // What has been read or derived so far.
  secrets?: SecretsRead;
  credentials?: CredentialsFact;
  desired?: DesiredDeployment;
  claims?: ClaimsFact;
  recorded?: ReadById;
  adopted?: ReadById;
  byName?: NameLookup;
  /** The deployment matches the spec (converge): its revision is followed. */
  inSync?: boolean;
  /** Observe-only: what differs from the spec (spec paths, and request paths); its revision is followed. */
  observation?: { drift: string[]; fields: string[]; digests: AppliedDigests };
  /** The DeploymentWindowPolicies that select the object (policy-windows.ts). */
  policies?: PoliciesFact;
  /** Whether spec.analysis's conditions compile (analysis/conditions.ts: CEL loaded on this read). */
  conditions?: ConditionsFact;
  /** The deployment as last read and its latest revision (none yet: undefined), for revision following. */
  followed?: { deployment: Deployment; revision: FollowInput['revision'] | undefined };
  // Derived (advance.ts, derive), once, when the first gate that reads them asks.
  /** The claims this object meets, as the claims were when derived; null without credentials (claims-met.ts). */
  claimsMet?: ClaimsMet | null;
  /** The drift decision between the spec and the owned deployment (derived.ts). */
  drift?: DriftDecision;
  /** The follow verdict of the revision read (follow-verdict.ts). */
  follow?: Verdict;
  /** What spec.deploymentWindows and the policies selecting the object say now (window-fact.ts). */
  window?: WindowFact;
}

/** A secret lookup over the Secrets read. */
export const lookupOf =
  (facts: AgentDeploymentFacts) =>
  (name: string): Record<string, string> | undefined =>
    facts.secrets?.byName.get(name);
