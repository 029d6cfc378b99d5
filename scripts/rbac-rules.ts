/**
 * The one list of Kubernetes permissions the controller uses. scripts/generate-packaging.ts writes it into
 * manifests/rbac.yaml and into the chart (templates/_rules.tpl); the packaging tests fail when either
 * grants anything outside it. Each rule names the code that needs it: add a rule here when the code
 * starts calling a new verb, never in the YAML.
 */

import { SETTINGS_CONFIGMAP } from '../src/reconcile/settings.ts';
import { LEGACY_KEY_SECRET, OPERATOR_KEY_SECRET } from '../src/runtime/operator-key.ts';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

interface DocumentedRule extends PolicyRule {
  /** Which code uses these verbs (kept out of the generated YAML). */
  why: string;
}

const GROUP = 'deploy.agents.dev';

/** Granted in every watched namespace (a ClusterRole when all namespaces are watched). */
const WATCHED_NAMESPACE_RULES: readonly DocumentedRule[] = [
  {
    apiGroups: [GROUP],
    resources: ['agentdeployments'],
    verbs: ['get', 'list', 'watch', 'patch'],
    why: 'informer (list, watch); runtime/objects.ts getObject and the finalizer JSON patch',
  },
  {
    apiGroups: [GROUP],
    resources: ['agentdeployments/status'],
    verbs: ['patch'],
    why: 'runtime/objects.ts patchStatus (merge patch of the status subresource)',
  },
  {
    apiGroups: [GROUP],
    resources: ['sandboxtemplates'],
    verbs: ['get', 'list', 'watch'],
    why: 'SandboxTemplate informer',
  },
  {
    apiGroups: [GROUP],
    resources: ['sandboxtemplates/status'],
    verbs: ['patch'],
    why: 'SandboxTemplate status patch',
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get', 'list', 'watch'],
    why: 'runtime/secret-cache.ts: list/watch as metadata only (PartialObjectMetadata; RBAC cannot tell a metadata list from a full one), get to read the values of the Secrets an object references (read-only)',
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['patch'],
    why: 'controllers/agentdeployment: the credentials-in-use finalizer on Secrets named by credentialsSecretRef (a guarded JSON patch of metadata.finalizers only; RBAC cannot narrow patch to a field or to names chosen by users)',
  },
  {
    apiGroups: [''],
    resources: ['events'],
    verbs: ['create', 'patch'],
    why: 'runtime/events.ts EventRecorder (create, then patch the count of a repeated event)',
  },
];

/** Granted only in the namespace the template import writes to (--import-templates-namespace), if set. */
const TEMPLATE_IMPORT_RULES: readonly DocumentedRule[] = [
  {
    apiGroups: [GROUP],
    resources: ['sandboxtemplates'],
    verbs: ['get', 'list', 'watch', 'create'],
    why: 'the template import creates an observe-only SandboxTemplate per listed template',
  },
];

/**
 * Granted cluster-wide, in every mode: DeploymentWindowPolicies are cluster-scoped, and what they select
 * is namespaces by their labels (also what --default-credentials-namespace-selector matches).
 */
const CLUSTER_RULES: readonly DocumentedRule[] = [
  {
    apiGroups: [''],
    resources: ['namespaces'],
    verbs: ['get', 'list', 'watch'],
    why: "namespace informer: the labels a DeploymentWindowPolicy's namespaceSelector and the default-credentials selector match (read-only)",
  },
  {
    apiGroups: [GROUP],
    resources: ['deploymentwindowpolicies'],
    verbs: ['get', 'list', 'watch'],
    why: 'DeploymentWindowPolicy informer: the windows that hold the objects it selects',
  },
  {
    apiGroups: [GROUP],
    resources: ['deploymentwindowpolicies/status'],
    verbs: ['patch'],
    why: 'the DeploymentWindowPolicy status patch (the objects it holds now)',
  },
];

/** Granted in the controller's own namespace only (the Role named after leader election). */
const LEADER_ELECTION_RULES: readonly DocumentedRule[] = [
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
    why: "runtime/leader.ts: read, create and replace (PUT) the Lease; runtime/shard-membership.ts (--sharding=auto): also list and watch the member Leases (member-lease-watch.ts: each renewal seen as it is written), and delete its own on leaving and a dead member's (only the version seen expired)",
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get'],
    resourceNames: [OPERATOR_KEY_SECRET, LEGACY_KEY_SECRET],
    why: 'runtime/operator-key.ts reads the operator key (secrets digests, webhook tokens), and once its pre-0.2 name to carry the key over; those Secrets only',
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['create'],
    why: 'runtime/operator-key.ts creates that Secret on first use (RBAC cannot narrow create by name)',
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'update'],
    resourceNames: [SETTINGS_CONFIGMAP],
    why: 'runtime/publish-settings.ts reads and replaces the settings ConfigMap kubectl agd plan reads; that ConfigMap only',
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['create'],
    why: 'runtime/publish-settings.ts creates that ConfigMap at the first start (RBAC cannot narrow create by name)',
  },
  {
    apiGroups: ['apps'],
    resources: ['deployments'],
    verbs: ['get'],
    why: "runtime/publish-settings.ts reads the controller's own Deployment (--operator-deployment) for its uid, the settings ConfigMap's owner (its name varies with the release: not narrowed by name)",
  },
];

/**
 * For people, not the controller: ClusterRoles that Kubernetes' aggregation folds into the built-in view,
 * edit and admin roles, so a namespace admin or editor can manage the two namespaced kinds without a
 * cluster admin's grant. Status stays the controller's: nobody is granted a write on it. The
 * DeploymentWindowPolicy is only read (through a ClusterRoleBinding to view: a RoleBinding grants nothing
 * of a cluster-scoped kind): a freeze is the platform team's, never lifted by a namespace's editor.
 */
export const USER_ROLES = {
  view: {
    aggregateTo: ['view', 'edit', 'admin'],
    rules: [
      {
        apiGroups: [GROUP],
        resources: [
          'agentdeployments',
          'agentdeployments/status',
          'sandboxtemplates',
          'sandboxtemplates/status',
          'deploymentwindowpolicies',
          'deploymentwindowpolicies/status',
        ],
        verbs: ['get', 'list', 'watch'],
      },
    ],
  },
  edit: {
    aggregateTo: ['edit', 'admin'],
    rules: [
      {
        apiGroups: [GROUP],
        resources: ['agentdeployments', 'sandboxtemplates'],
        verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'],
      },
    ],
  },
} as const satisfies Record<string, { aggregateTo: readonly string[]; rules: readonly PolicyRule[] }>;

/** The label that marks a ClusterRole for aggregation into a built-in role. */
export const aggregateLabel = (role: string): string => `rbac.authorization.k8s.io/aggregate-to-${role}`;

const strip = ({ apiGroups, resources, verbs, resourceNames }: DocumentedRule): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
  ...(resourceNames ? { resourceNames } : {}),
});

export const watchedNamespaceRules = (): PolicyRule[] => WATCHED_NAMESPACE_RULES.map(strip);
export const leaderElectionRules = (): PolicyRule[] => LEADER_ELECTION_RULES.map(strip);
export const templateImportRules = (): PolicyRule[] => TEMPLATE_IMPORT_RULES.map(strip);
export const clusterRules = (): PolicyRule[] => CLUSTER_RULES.map(strip);

/** Every (apiGroup, resource, verb) the controller may be granted, as "group/resource:verb" strings. */
export function allowedPermissions(): Set<string> {
  return new Set(
    [
      ...WATCHED_NAMESPACE_RULES,
      ...TEMPLATE_IMPORT_RULES,
      ...CLUSTER_RULES,
      ...LEADER_ELECTION_RULES,
    ].flatMap(permissionsOf),
  );
}

export function permissionsOf(rule: PolicyRule): string[] {
  return rule.apiGroups.flatMap((g) =>
    rule.resources.flatMap((r) => rule.verbs.map((v) => `${g}/${r}:${v}`)),
  );
}
