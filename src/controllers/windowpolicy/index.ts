/**
 * Wiring of the DeploymentWindowPolicies: their informer cache (the AgentDeployment passes read which
 * select an object), the wake-up of the objects a policy selects when it changes, and its status (the
 * objects it holds, held-status.ts), patched through the status subresource.
 */
import type { Logger } from 'pino';
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import type { DeploymentWindowPolicy } from '../../api/deployment-window-policy.ts';
import type { KubeAccess } from '../../kube/access.ts';
import { selects, selectsNamespace } from '../../reconcile/agentdeployment/policy-windows.ts';
import { patchStatus } from '../../runtime/objects.ts';
import { statusMergePatch } from '../../runtime/status-patch.ts';
import { type WindowPolicies, watchWindowPolicies } from '../agentdeployment/cache/window-policies.ts';
import { POLICY_RESOURCE, PolicyHolds } from './held-status.ts';

export interface WindowPolicyController extends WindowPolicies {
  /** What the AgentDeployment passes find held, and the policies' status written from it. */
  holds: PolicyHolds;
}

export function startWindowPolicies(options: {
  access: KubeAccess;
  logger: Logger;
  /** The AgentDeployments this replica works on (in full). */
  objects: () => Iterable<AgentDeployment>;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  /** Every namespace with its labels. */
  namespaces: () => { name: string; labels: Record<string, string> | undefined }[];
  /** The namespaces this controller watches (empty: all) and its label selector (empty: none). */
  scope: { namespaces: readonly string[]; labelSelector: string };
  enqueue: (obj: AgentDeployment) => void;
}): WindowPolicyController {
  const { access, logger, scope } = options;
  const watched = new Set(scope.namespaces);
  /**
   * Whether this controller works on every object the policy selects, so that its count is the whole:
   * a release watching some namespaces writes only a policy whose namespaces are all among them; one
   * with a label selector sees a slice of each namespace and writes none.
   */
  const coversPolicy = (policy: DeploymentWindowPolicy) =>
    !scope.labelSelector &&
    (!watched.size ||
      options.namespaces().every((ns) => watched.has(ns.name) || !selectsNamespace(policy, ns.labels)));
  const holds = new PolicyHolds({
    mayWrite: coversPolicy,
    policyOf: (name) => policies.list().find((p) => p.metadata.name === name),
    writeStatus: async (policy, status) => {
      const patch = statusMergePatch((policy.status ?? {}) as Record<string, unknown>, status);
      await patchStatus<DeploymentWindowPolicy>(
        access,
        { resource: POLICY_RESOURCE, namespace: '', name: policy.metadata.name },
        patch as Record<string, unknown>,
      );
    },
    logger,
  });
  const policies = watchWindowPolicies({
    access,
    logger,
    // The objects it selected or selects now look again (a hold starts or ends); its status follows.
    changed: (policy, before) => {
      holds.changed(policy.metadata.name);
      for (const obj of options.objects()) {
        const ns = options.namespaceLabels(obj.metadata.namespace ?? '');
        const labels = obj.metadata.labels;
        if (selects(policy, ns, labels) || (before && selects(before, ns, labels))) options.enqueue(obj);
      }
    },
  });
  return { ...policies, holds };
}
