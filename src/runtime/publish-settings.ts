/**
 * Publishes the controller's settings that change a verdict (reconcile/settings.ts) in a ConfigMap it
 * owns in its own namespace, so `kubectl agd plan` reads what the running controller does instead of a
 * copy of its flags. Written at start, replaced only when it differs. Nothing in it is secret.
 *
 * The ConfigMap names the controller's Deployment (--operator-deployment) as its controlling owner: the
 * plan believes it only then (plan/controller-settings.ts), so a ConfigMap of that name written by
 * anyone else, or left behind by an uninstalled controller (the garbage collector deletes it with its
 * Deployment), is not taken for the controller's.
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
import { OPERATOR_VERSION } from '../version.ts';

const StoredConfigMap = z.looseObject({
  metadata: z.looseObject({
    resourceVersion: z.string().optional(),
    ownerReferences: z.array(z.looseObject({ uid: z.string() })).optional(),
  }),
  data: z.record(z.string(), z.string()).optional(),
});

/** The controlling owner reference the ConfigMap carries: the controller's Deployment. */
export interface SettingsOwner {
  apiVersion: 'apps/v1';
  kind: 'Deployment';
  name: string;
  uid: string;
  controller: true;
}

const DeploymentMeta = z.looseObject({ metadata: z.looseObject({ name: z.string(), uid: z.string() }) });

/** The owner reference to the Deployment `name` of `namespace` (read for its uid). */
export async function settingsOwner(
  access: KubeAccess,
  namespace: string,
  name: string,
): Promise<SettingsOwner> {
  const deployment = DeploymentMeta.parse(
    await kubeRequest(access, {
      method: 'GET',
      path: `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments/${encodeURIComponent(name)}`,
    }),
  );
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: deployment.metadata.name,
    uid: deployment.metadata.uid,
    controller: true,
  };
}

export async function publishSettings(
  access: KubeAccess,
  namespace: string,
  settings: PublishedSettings,
  owner?: SettingsOwner,
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
      ...(owner ? { ownerReferences: [owner] } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    data,
  });
  const ownedAsWanted = (stored: z.infer<typeof StoredConfigMap>) => {
    const refs = stored.metadata.ownerReferences ?? [];
    return owner ? refs.length === 1 && refs[0]?.uid === owner.uid : refs.length === 0;
  };
  // Twice at most: a replica starting at the same moment may write between the read and the write.
  for (let attempt = 0; ; attempt++) {
    try {
      const stored = await readStored(access, `${collection}/${SETTINGS_CONFIGMAP}`);
      if (!stored) {
        await kubeRequest(access, { method: 'POST', path: collection, body: body() });
        return;
      }
      if (stored.data?.[SETTINGS_KEY] === data[SETTINGS_KEY] && ownedAsWanted(stored)) return;
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
    controllerVersion: OPERATOR_VERSION,
    defaultCredentialsNamespaces: config.defaultCredentialsNamespaces,
    defaultCredentialsNamespaceSelector: config.defaultCredentialsNamespaceSelector,
    allowedControlPlanes: config.allowedControlPlanes,
    defaultControlPlaneUrl: config.controlPlaneUrl,
    namespaceSecretBudget: config.namespaceSecretBudget,
  });
}

/**
 * The settings of this configuration, published in the controller's namespace and owned by its
 * Deployment (--operator-deployment; unset: no owner, and a plan says the settings are unknown). When
 * the Deployment cannot be read they are still published, without an owner (a plan then says why it
 * does not believe them, rather than believing settings this start did not write), and this rejects.
 */
export async function publishOwnSettings(access: KubeAccess, config: Config): Promise<void> {
  const namespace = ownNamespaceOf(config);
  const settings = controllerSettings(config);
  if (!config.operatorDeployment) return publishSettings(access, namespace, settings);
  let owner: SettingsOwner;
  try {
    owner = await settingsOwner(access, namespace, config.operatorDeployment);
  } catch (err) {
    await publishSettings(access, namespace, settings);
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `published without an owner: Deployment ${namespace}/${config.operatorDeployment}: ${why}`,
    );
  }
  await publishSettings(access, namespace, settings, owner);
}
