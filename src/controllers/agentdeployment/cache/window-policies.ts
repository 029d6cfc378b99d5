/**
 * The DeploymentWindowPolicies, watched cluster-wide (they are cluster-scoped), one informer cache: which
 * select an object (policy-windows.ts, with the namespace's labels from the namespace cache), and a
 * wake-up of the objects a policy selected before or selects now when it comes, changes or goes.
 */
import type { Logger } from 'pino';
import type { DeploymentWindowPolicy } from '../../../api/deployment-window-policy.ts';
import type { KubeAccess } from '../../../kube/access.ts';
import {
  POLICIES_PATH,
  type PolicyWindows,
  selectingPolicies,
} from '../../../reconcile/agentdeployment/policy-windows.ts';
import { startInformer } from '../../../runtime/informer.ts';

export interface WindowPolicies {
  /** The policies selecting an object of labels `labels` in a namespace of labels `namespaceLabels`. */
  selecting(
    namespaceLabels: Record<string, string> | undefined,
    labels: Record<string, string> | undefined,
  ): PolicyWindows[];
  list(): DeploymentWindowPolicy[];
  hasSynced(): boolean;
  /** Why the policies are not known yet (not listed, or the listing fails), or undefined once listed. */
  unknown(): string | undefined;
  stop(): Promise<void>;
}

export function watchWindowPolicies(options: {
  access: KubeAccess;
  logger: Logger;
  /** A policy came, changed (`before` is its previous version) or went. */
  changed: (policy: DeploymentWindowPolicy, before?: DeploymentWindowPolicy) => void;
}): WindowPolicies {
  const { changed } = options;
  const policies = startInformer<DeploymentWindowPolicy>({
    access: options.access,
    path: POLICIES_PATH,
    logger: options.logger.child({ informer: 'deploymentwindowpolicies' }),
    onAdd: (policy) => changed(policy),
    onUpdate: (before, after) => {
      // Its own status writes change nothing it selects nor holds.
      if (
        JSON.stringify(before.spec) !== JSON.stringify(after.spec) ||
        before.metadata.name !== after.metadata.name
      )
        changed(after, before);
    },
    onDelete: (policy) => changed(policy),
  });
  return {
    selecting: (namespaceLabels, labels) => selectingPolicies(policies.list(), namespaceLabels, labels),
    list: () => policies.list(),
    hasSynced: () => policies.hasSynced(),
    unknown: () => {
      if (policies.hasSynced()) return undefined;
      const error = policies.namespaceStates()[0]?.error;
      return `the DeploymentWindowPolicies are not listed yet${error ? ` (${error})` : ''}`;
    },
    stop: () => policies.stop(),
  };
}
