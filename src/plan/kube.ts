/**
 * The plan's Kubernetes reads, through the controller's own HTTP path: the object as stored, Secrets, a
 * server-side dry-run apply (it writes nothing), and the AgentDeployments for the claims.
 */

import type { DeploymentWindowPolicy } from '../api/deployment-window-policy.ts';
import { AGENT_DEPLOYMENT, GROUP, SANDBOX_TEMPLATE, VERSION } from '../api/group.ts';
import type { KubeAccess } from '../kube/access.ts';
import { KubeApiError, NotFoundError } from '../kube/errors.ts';
import { type KubeRequest, kubeRequest as send } from '../kube/request.ts';
import { POLICIES_PATH } from '../reconcile/agentdeployment/policy-windows.ts';
import { SETTINGS_CONFIGMAP } from '../reconcile/settings.ts';
import { readControllerSettings } from './controller-settings.ts';
import type { LiveObject, PlanKind, PlanKube } from './model.ts';

/** The namespace the manifests and the chart install the controller in. */
export const DEFAULT_CONTROLLER_NAMESPACE = 'agent-deployment-operator';

const FIELD_MANAGER = 'kubectl-agd-plan';
const plural = (kind: PlanKind) => (kind === 'AgentDeployment' ? AGENT_DEPLOYMENT : SANDBOX_TEMPLATE).plural;
const collection = (kind: PlanKind, namespace?: string) =>
  `/apis/${GROUP}/${VERSION}${namespace ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${plural(kind)}`;

/** A request to the cluster; one that cannot reach it says so, and how to plan without it. */
async function kubeRequest(access: KubeAccess, request: KubeRequest): Promise<unknown> {
  try {
    return await send(access, request);
  } catch (err) {
    if (err instanceof KubeApiError) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot reach the cluster ${access.server} (${why}): plan without it with --no-cluster`, {
      cause: err,
    });
  }
}

async function getOrUndefined<T>(access: KubeAccess, path: string): Promise<T | undefined> {
  try {
    return (await kubeRequest(access, { method: 'GET', path })) as T;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/**
 * The API server refusing the object: 422 (invalid) or 400; server-side apply answers a field the
 * schema does not declare with a 500 whose message names the field ("failed to create typed patch
 * object (...): .spec.x: field not declared in schema").
 */
function isRefusal(err: unknown): err is KubeApiError {
  if (!(err instanceof KubeApiError)) return false;
  if (err.status === 422 || err.status === 400) return true;
  return err.status === 500 && err.message.startsWith('failed to create typed patch object');
}

/** `controllerNamespace`: where the running controller publishes its settings (its own namespace). */
export function kubePlanReads(
  access: KubeAccess,
  controllerNamespace = DEFAULT_CONTROLLER_NAMESPACE,
): PlanKube {
  return {
    settingsLocation: `${controllerNamespace}/${SETTINGS_CONFIGMAP}`,
    controllerSettings: () => readControllerSettings(access, controllerNamespace),
    async namespaceLabels(namespace) {
      try {
        const ns = await getOrUndefined<{ metadata?: { labels?: Record<string, string> } }>(
          access,
          `/api/v1/namespaces/${encodeURIComponent(namespace)}`,
        );
        return ns ? (ns.metadata?.labels ?? {}) : undefined;
      } catch (err) {
        if (err instanceof KubeApiError && err.status === 403) return undefined;
        throw err;
      }
    },
    async windowPolicies() {
      try {
        const list = (await kubeRequest(access, { method: 'GET', path: POLICIES_PATH })) as {
          items?: DeploymentWindowPolicy[];
        };
        return list.items ?? [];
      } catch (err) {
        // Not allowed to list them, or the kind not installed: the plan says it could not read them.
        if (err instanceof KubeApiError && (err.status === 403 || err.status === 404)) return undefined;
        throw err;
      }
    },
    live: (kind, namespace, name) =>
      getOrUndefined<LiveObject>(access, `${collection(kind, namespace)}/${encodeURIComponent(name)}`),
    async secret(namespace, name) {
      const secret = await getOrUndefined<{ data?: Record<string, string> }>(
        access,
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`,
      );
      return secret ? (secret.data ?? {}) : undefined;
    },
    async dryRun(obj) {
      const kind = obj.kind as PlanKind;
      try {
        await kubeRequest(access, {
          method: 'PATCH',
          path: `${collection(kind, obj.metadata.namespace)}/${encodeURIComponent(obj.metadata.name)}`,
          query: { dryRun: 'All', fieldManager: FIELD_MANAGER, force: 'true' },
          body: obj,
          contentType: 'application/apply-patch+yaml',
        });
        return undefined;
      } catch (err) {
        if (isRefusal(err)) return err.message;
        throw err;
      }
    },
    async agentDeployments(namespace) {
      for (const path of [collection('AgentDeployment'), collection('AgentDeployment', namespace)]) {
        try {
          const list = (await kubeRequest(access, { method: 'GET', path })) as { items?: LiveObject[] };
          return list.items ?? [];
        } catch (err) {
          if (!(err instanceof KubeApiError && err.status === 403)) throw err;
        }
      }
      return undefined;
    },
    async maySeeSecrets(namespace) {
      const review = (await kubeRequest(access, {
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { namespace, verb: 'get', resource: 'secrets' } },
        },
      })) as { status?: { allowed?: boolean } };
      return review.status?.allowed === true;
    },
    async agentDeploymentsMatching(namespace, selector) {
      const list = (await kubeRequest(access, {
        method: 'GET',
        path: collection('AgentDeployment', namespace),
        query: { labelSelector: selector },
      })) as { items?: LiveObject[] };
      return list.items ?? [];
    },
  };
}
