/**
 * DeploymentWindowPolicies as an AgentDeployment pass reads them: which select the object (its
 * namespace's labels by namespaceSelector AND its own labels by selector, when set), and their windows
 * with the two knobs. The port gathers them (the controller from its cache, the plan by listing); the
 * window fact (window-fact.ts) joins them to the object's own windows.
 */
import type { DeploymentWindowPolicy } from '../../api/deployment-window-policy.ts';
import { DEPLOYMENT_WINDOW_POLICY, GROUP, VERSION } from '../../api/group.ts';
import { structuredSelector } from '../../lib/label-selector.ts';
import type { WindowSpec } from '../../lib/schedule/windows.ts';

export interface PolicyWindows {
  /** metadata.name of the policy. */
  name: string;
  windows: readonly WindowSpec[];
  manualOverride: boolean;
  allowRollback: boolean;
}

/**
 * The policies that select the object, or why they could not be read: the plan goes on without them and
 * says so; the controller (`hold`: its cache has not listed them) holds what it would send, since a
 * freeze it cannot see may be in force.
 */
export type PoliciesFact =
  | { readable: true; selecting: readonly PolicyWindows[] }
  | { readable: false; why: string; hold?: true };

/** The policies' collection on the API server (cluster-scoped). */
export const POLICIES_PATH = `/apis/${GROUP}/${VERSION}/${DEPLOYMENT_WINDOW_POLICY.plural}`;

/** How messages name a policy (the kind, so that a reader knows it is not the object's own). */
export const policyRef = (name: string): string => `DeploymentWindowPolicy/${name}`;

type PolicyLike = Pick<DeploymentWindowPolicy, 'metadata' | 'spec'>;

/** Whether `policy` selects an object of labels `objectLabels` in a namespace of labels `namespaceLabels`. */
export function selects(
  policy: PolicyLike,
  namespaceLabels: Record<string, string> | undefined,
  objectLabels: Record<string, string> | undefined,
): boolean {
  const { selector } = policy.spec;
  if (!selectsNamespace(policy, namespaceLabels)) return false;
  return !selector || structuredSelector(selector).matches(objectLabels);
}

/** Whether `policy` selects a namespace of labels `namespaceLabels` (some of its objects, or all). */
export const selectsNamespace = (policy: PolicyLike, namespaceLabels: Record<string, string> | undefined) =>
  structuredSelector(policy.spec.namespaceSelector).matches(namespaceLabels);

export const policyWindowsOf = (policy: PolicyLike): PolicyWindows => ({
  name: policy.metadata.name,
  windows: policy.spec.windows,
  manualOverride: policy.spec.manualOverride ?? false,
  allowRollback: policy.spec.allowRollback ?? true,
});

/** The policies among `policies` that select the object, ordered by name (messages name the first). */
export function selectingPolicies(
  policies: readonly PolicyLike[],
  namespaceLabels: Record<string, string> | undefined,
  objectLabels: Record<string, string> | undefined,
): PolicyWindows[] {
  return policies
    .filter((p) => selects(p, namespaceLabels, objectLabels))
    .map(policyWindowsOf)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
