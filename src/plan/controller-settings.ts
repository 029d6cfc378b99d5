/**
 * The controller's published settings (runtime/publish-settings.ts) as `kubectl agd` believes them: the
 * ConfigMap of the settings' name in the namespace named, and only when it is the controller's. A
 * ConfigMap anyone may write (any user who may create ConfigMaps there, or a namespace created where no
 * controller runs) proves nothing by its name; the controller's names the controller's Deployment as
 * its controlling owner, and that Deployment exists in the same namespace with the very uid named. A
 * ConfigMap that is not, or cannot be read, is `unknown` with the reason, never a guess.
 */
import { z } from 'zod';
import type { KubeAccess } from '../kube/access.ts';
import { KubeApiError, NotFoundError } from '../kube/errors.ts';
import { kubeRequest } from '../kube/request.ts';
import { cleanPeerText } from '../lib/peer-text.ts';
import { PublishedSettings, SETTINGS_CONFIGMAP, SETTINGS_KEY } from '../reconcile/settings.ts';

export type ControllerSettingsRead =
  | {
      ok: true;
      settings: PublishedSettings /** namespace/name of the owning Deployment. */;
      deployment: string;
    }
  | { ok: false; reason: string };

const OwnerReference = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
});

const SettingsConfigMap = z.looseObject({
  metadata: z.looseObject({ ownerReferences: z.array(OwnerReference).optional() }),
  data: z.record(z.string(), z.string()).optional(),
});

const DeploymentMeta = z.looseObject({
  metadata: z.looseObject({ uid: z.string(), deletionTimestamp: z.string().optional() }),
});

/** Owner names are the cluster's text: cleaned before they reach a message. */
const shown = (text: string) => cleanPeerText(text, 120);

/** A GET that answers undefined for 404 and for 403 (`forbidden` says which), and throws the rest. */
async function get(
  access: KubeAccess,
  path: string,
  deadlineMs?: number,
): Promise<unknown | 'absent' | 'forbidden'> {
  try {
    return await kubeRequest(access, { method: 'GET', path, ...(deadlineMs ? { deadlineMs } : {}) });
  } catch (err) {
    if (err instanceof NotFoundError) return 'absent';
    if (err instanceof KubeApiError && err.status === 403) return 'forbidden';
    throw err;
  }
}

/** The settings the controller of `namespace` publishes, proved its own; other failures throw. */
export async function readControllerSettings(
  access: KubeAccess,
  namespace: string,
  deadlineMs?: number,
): Promise<ControllerSettingsRead> {
  const ns = encodeURIComponent(namespace);
  const where = `ConfigMap ${namespace}/${SETTINGS_CONFIGMAP}`;
  const stored = await get(access, `/api/v1/namespaces/${ns}/configmaps/${SETTINGS_CONFIGMAP}`, deadlineMs);
  if (stored === 'absent') return { ok: false, reason: `${where} not found` };
  if (stored === 'forbidden') return { ok: false, reason: `${where}: this user may not get it` };
  const configMap = SettingsConfigMap.safeParse(stored);
  if (!configMap.success) return { ok: false, reason: `${where} is not a ConfigMap as published` };
  const owner = configMap.data.metadata.ownerReferences?.find(
    (o) => o.controller === true && o.apiVersion === 'apps/v1' && o.kind === 'Deployment',
  );
  if (!owner)
    return {
      ok: false,
      reason: `${where} is not owned by a Deployment (no controlling ownerReference to one), so it is not known to be the controller's: a controller older than this plugin, or run without --operator-deployment, does not name its Deployment; anyone else may write a ConfigMap of that name`,
    };
  const deployment = `${namespace}/${shown(owner.name)}`;
  const found = await get(
    access,
    `/apis/apps/v1/namespaces/${ns}/deployments/${encodeURIComponent(owner.name)}`,
    deadlineMs,
  );
  if (found === 'forbidden')
    return {
      ok: false,
      reason: `${where} names Deployment ${deployment} as its owner, which this user may not get (get on Deployments in ${namespace} proves the ConfigMap the controller's)`,
    };
  const meta = found === 'absent' ? undefined : DeploymentMeta.safeParse(found).data;
  if (!meta || meta.metadata.uid !== owner.uid || meta.metadata.deletionTimestamp)
    return {
      ok: false,
      reason: `${where} names Deployment ${deployment} (uid ${shown(owner.uid)}) as its owner, and no such Deployment is there: it is not the running controller's`,
    };
  let json: unknown;
  try {
    json = JSON.parse(configMap.data.data?.[SETTINGS_KEY] ?? '');
  } catch {
    return { ok: false, reason: `${where}: its ${SETTINGS_KEY} is not JSON` };
  }
  const settings = PublishedSettings.safeParse(json);
  if (!settings.success)
    return { ok: false, reason: `${where}: its ${SETTINGS_KEY} is not settings this plugin reads` };
  return { ok: true, settings: settings.data, deployment };
}
