/**
 * What `kubectl agd plan` says about each object, and what it needs from the world to say it. The
 * planners read through `PlanWorld` only, so the tests hand them fakes or the real thing.
 */
import type { DeploymentWindowPolicy } from '../api/deployment-window-policy.ts';
import type { ControlPlaneAllowList } from '../controlplane/allowed-control-planes.ts';
import type { Credentials } from '../controlplane/credentials.ts';
import type { Deployment, Revision } from '../controlplane/schemas.ts';
import type { SandboxTemplate } from '../controlplane/template-schemas.ts';
import type { PublishedSettings } from '../reconcile/settings.ts';
import type { ControllerSettingsRead } from './controller-settings.ts';

export type PlanKind = 'AgentDeployment' | 'SandboxTemplate';

/**
 * create/patch/redeploy: the controller would send that (redeploy: the latest revision again, asked for by
 * annotation or spec.retry); none: nothing to send; refused: the API server (or the
 * schema, offline) refuses the object; stall/wait: the controller would stop there (a person must act,
 * or something is missing), sending nothing; unknown: the plan could not tell (it says why). For an
 * object removed from the input (--prune): delete, its deployment would be deleted; orphan, the object
 * would go and leave the platform as it is.
 */
export type PlanAction =
  | 'create'
  | 'patch'
  | 'redeploy'
  | 'none'
  | 'refused'
  | 'stall'
  | 'wait'
  | 'unknown'
  | 'delete'
  | 'orphan';

/** One field a PATCH changes: the platform's value, and the one sent. Secret values never appear. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface PlanEntry {
  kind: PlanKind;
  namespace: string;
  name: string;
  action: PlanAction;
  /**
   * The condition reason the controller would report, for refused/stall/wait/unknown, and for a rollback
   * (RollingBack while its revision is in progress, RolledBack once it serves).
   */
  reason?: string;
  message: string;
  /** create: the request body, each secret value replaced by "(set)". */
  request?: unknown;
  /** patch: field by field. */
  changes?: FieldChange[];
  /** create/patch: whether the control plane builds a new revision (interface document, PATCH rule 1). */
  createsRevision?: boolean;
  deploymentId?: string;
  /** The revision the controller would redeploy instead (spec.remediation rollback, or a revert): no build. */
  redeployRevision?: string;
  /** SandboxTemplate: the drift the controller would report. */
  drift?: { field: string; expected: string; observed: string }[];
  /** What the plan could not know, and so did not check. */
  notes: string[];
  /** spec.managementPolicies ["Observe"]: the controller only observes (and reports) this object. */
  observeOnly?: boolean;
  /** In the cluster, matching --prune's selector, but not in the input: this says what deleting it does. */
  removed?: boolean;
}

/** The control-plane reads a plan makes; it never writes. */
export interface PlanClient {
  getDeployment(id: string): Promise<Deployment>;
  getRevision(deploymentId: string, revisionId: string): Promise<Revision>;
  findDeploymentsByName(name: string): Promise<Deployment[]>;
  listAllSandboxTemplates(): Promise<SandboxTemplate[]>;
}

export interface PlanKube {
  /** The object as stored; undefined when it does not exist yet. */
  live(kind: PlanKind, namespace: string, name: string): Promise<LiveObject | undefined>;
  /** A Secret's data (base64 values); undefined when it does not exist. */
  secret(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  /** A server-side dry-run apply: the API server's refusal, or undefined when it accepts the object. */
  dryRun(obj: InputObject): Promise<string | undefined>;
  /** Every AgentDeployment this user may list (for the claims); undefined when it may list none. */
  agentDeployments(namespace: string): Promise<LiveObject[] | undefined>;
  /** The AgentDeployments of a namespace whose labels match a label selector (--prune). */
  agentDeploymentsMatching(namespace: string, selector: string): Promise<LiveObject[]>;
  /**
   * The settings the running controller publishes (its ConfigMap, reconcile/settings.ts), when it is
   * proved the controller's (controller-settings.ts); otherwise why not.
   */
  controllerSettings(): Promise<ControllerSettingsRead>;
  /** Where controllerSettings looks (namespace/name), for messages. */
  readonly settingsLocation: string;
  /** Every DeploymentWindowPolicy; undefined when this user may not list them. */
  windowPolicies(): Promise<DeploymentWindowPolicy[] | undefined>;
  /** A namespace's labels; undefined when it cannot be read. */
  namespaceLabels(namespace: string): Promise<Record<string, string> | undefined>;
  /** Whether this user may get Secrets in the namespace (a SelfSubjectAccessReview). */
  maySeeSecrets(namespace: string): Promise<boolean>;
}

export interface PlanWorld {
  /** The clock the plan decides at (deployment windows, deadlines); default: the time now. */
  now?: () => Date;
  /** Kubernetes access; undefined: the plan works from the files alone. */
  kube: PlanKube | undefined;
  /** The controller's credentials (flags or environment), as the controller's defaults. */
  defaultCredentials: Partial<Credentials>;
  /** Control planes a credentials Secret may name (default: the default credentials' only). */
  allowedControlPlanes?: ControlPlaneAllowList;
  /**
   * Without a cluster only: the controller's settings as the plan's flags state them (with a cluster
   * they are read from the controller's ConfigMap, and this is not used).
   */
  settings?: PublishedSettings;
  /** A Secret given in the input (what will be applied); undefined when none of that name was. */
  inputSecret?(namespace: string, name: string): Record<string, string> | undefined;
  /** The controller's secrets-digest key; undefined: secret values are not compared. */
  digestKey: string | undefined;
  /** A read-only client for these credentials. */
  controlPlane(credentials: Credentials): PlanClient;
  /** --show-values: every platform value printed, whoever may read the output (value-visibility.ts). */
  showValues?: boolean;
  /**
   * --show-values-in: the namespaces whose platform values the plan's readers may see (value-visibility.ts);
   * undefined: the plan's namespace (planObjects sets it), empty: none.
   */
  valuesNamespaces?: readonly string[];
}

export interface InputObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: unknown;
}

export interface LiveObject {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    creationTimestamp?: string;
    generation?: number;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec?: unknown;
  status?: Record<string, unknown>;
}

/** Whether the plan says the controller would write to the platform. */
export const isChange = (e: PlanEntry) =>
  e.action === 'create' || e.action === 'patch' || e.action === 'redeploy' || e.action === 'delete';
/** Whether the plan says the change would not apply cleanly. */
export const isProblem = (e: PlanEntry) => e.action === 'refused' || e.action === 'stall';
