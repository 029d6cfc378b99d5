/**
 * Publishes the controller's settings that change a verdict (reconcile/settings.ts) in a ConfigMap it
 * owns in its own namespace, so `kubectl agd plan` reads what the running controller does instead of a
 * copy of its flags. Written at start, replaced only when it differs. Nothing in it is secret.
 */
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { KubeAccess } from '../kube/access.ts';
import { ConflictError, NotFoundError } from '../kube/errors.ts';
import { kubeRequest } from '../kube/request.ts';
import {
  type PublishedSettings,
  publishedSettingsOf,
  SETTINGS_CONFIGMAP,
  SETTINGS_KEY,
} from '../reconcile/settings.ts';

const StoredConfigMap = z.looseObject({
  metadata: z.looseObject({ resourceVersion: z.string().optional() }),
  data: z.record(z.string(), z.string()).optional(),
});

export async function publishSettings(
  access: KubeAccess,
  namespace: string,
  settings: PublishedSettings,
): Promise<void> {
  const collection = `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps`;
  const data = { [SETTINGS_KEY]: `${JSON.stringify(settings, null, 2)}\n` };
  const body = (resourceVersion?: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: SETTINGS_CONFIGMAP,
      namespace,
      labels: { 'app.kubernetes.io/managed-by': 'agent-deployment-operator' },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    data,
  });
  // Twice at most: a replica starting at the same moment may write between the read and the write.
  for (let attempt = 0; ; attempt++) {
    try {
      const stored = await readStored(access, `${collection}/${SETTINGS_CONFIGMAP}`);
      if (!stored) {
        await kubeRequest(access, { method: 'POST', path: collection, body: body() });
        return;
      }
      if (stored.data?.[SETTINGS_KEY] === data[SETTINGS_KEY]) return;
      await kubeRequest(access, {
        method: 'PUT',
        path: `${collection}/${SETTINGS_CONFIGMAP}`,
        body: body(stored.metadata.resourceVersion),
      });
      return;
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt > 0) throw err;
    }
  }
}

async function readStored(access: KubeAccess, path: string) {
  try {
    return StoredConfigMap.parse(await kubeRequest(access, { method: 'GET', path }));
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** The namespace the controller keeps its own objects in (key Secret, settings ConfigMap). */
export const ownNamespaceOf = (config: Config) =>
  config.podNamespace ?? config.leaderElectionNamespace ?? 'default';

/** The settings that change a verdict, as this configuration makes them (published for the plan). */
export function controllerSettings(config: Config): PublishedSettings {
  return publishedSettingsOf({
    defaultCredentialsNamespaces: config.defaultCredentialsNamespaces,
    defaultCredentialsNamespaceSelector: config.defaultCredentialsNamespaceSelector,
    allowedControlPlanes: config.allowedControlPlanes,
    defaultControlPlaneUrl: config.controlPlaneUrl,
    namespaceSecretBudget: config.namespaceSecretBudget,
  });
}
