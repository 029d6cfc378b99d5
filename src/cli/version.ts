/**
 * `kubectl agd version`: the plugin's own version, and when a cluster is reachable the version of the
 * controller that runs there and the versions its CRDs serve. The controller's version is what the
 * controller publishes in its own namespace (the settings ConfigMap, runtime/publish-settings.ts), read
 * only once it is proved the controller's (plan/controller-settings.ts): a Deployment's label or image
 * tag says what whoever wrote that Deployment chose, in any namespace. Every string the cluster supplies
 * is cleaned before it is printed. A plan against a controller of another version says so
 * (planVersionNote).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AGENT_DEPLOYMENT, GROUP, SANDBOX_TEMPLATE, VERSION } from '../api/group.ts';
import type { KubeAccess } from '../kube/access.ts';
import { kubeRequest } from '../kube/request.ts';
import { cleanPeerText } from '../lib/peer-text.ts';
import { readControllerSettings } from '../plan/controller-settings.ts';
import { DEFAULT_CONTROLLER_NAMESPACE } from '../plan/kube.ts';

/** The package's version: package.json is two levels up from src/cli/ and from dist/cli/ alike. */
export const CLIENT_VERSION: string = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'))).version;

/** A short deadline: the version is an aside, never worth a long wait. */
const DEADLINE_MS = 10_000;

/** The cluster's text (names, versions, API errors) as printed: one line, no control characters. */
const clean = (text: string) => cleanPeerText(text, 300);

const Crd = z.looseObject({
  spec: z.looseObject({
    versions: z.array(z.looseObject({ name: z.string(), served: z.boolean(), storage: z.boolean() })),
  }),
});

export interface ControllerVersion {
  /** namespace/name of its Deployment (the owner of the settings it publishes). */
  deployment: string;
  /** The version it publishes; undefined for a controller that publishes none (older than 0.2). */
  version: string | undefined;
}

export interface CrdVersions {
  /** The CRD's name, e.g. agentdeployments.deploy.agents.dev */
  name: string;
  served: string[];
  storage: string | undefined;
}

/** A read that failed is reported as its reason, never thrown: the other reads still say something. */
export type Read<T> = { ok: true; value: T } | { ok: false; reason: string };

async function settled<T>(fn: () => Promise<Read<T>>): Promise<Read<T>> {
  try {
    return await fn();
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** The version the controller of `namespace` publishes, once its settings are proved its own. */
export async function controllerVersion(
  access: KubeAccess,
  namespace: string,
): Promise<Read<ControllerVersion>> {
  const settings = await readControllerSettings(access, namespace, DEADLINE_MS);
  if (!settings.ok) return settings;
  return {
    ok: true,
    value: { deployment: settings.deployment, version: settings.settings.controllerVersion },
  };
}

/** The versions each of the operator's CRDs serves in the cluster. */
export async function crdVersions(access: KubeAccess): Promise<CrdVersions[]> {
  return Promise.all(
    [AGENT_DEPLOYMENT, SANDBOX_TEMPLATE].map(async (kind) => {
      const name = `${kind.plural}.${GROUP}`;
      const crd = Crd.parse(
        await kubeRequest(access, {
          method: 'GET',
          path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
          deadlineMs: DEADLINE_MS,
        }),
      );
      return {
        name,
        served: crd.spec.versions.filter((v) => v.served).map((v) => v.name),
        storage: crd.spec.versions.find((v) => v.storage)?.name,
      };
    }),
  );
}

export interface ClusterVersions {
  server: string;
  /** The namespace the controller was looked for in. */
  namespace: string;
  controller: Read<ControllerVersion>;
  crds: Read<CrdVersions[]>;
}

/** `namespace`: the controller's (--operator-namespace); default where the chart and manifests put it. */
export async function clusterVersions(
  access: KubeAccess,
  namespace = DEFAULT_CONTROLLER_NAMESPACE,
): Promise<ClusterVersions> {
  const [controller, crds] = await Promise.all([
    settled(() => controllerVersion(access, namespace)),
    settled(async () => ({ ok: true as const, value: await crdVersions(access) })),
  ]);
  return { server: access.server, namespace, controller, crds };
}

/** The lines `kubectl agd version` prints. */
export function formatVersions(cluster: ClusterVersions | { unreachable: string } | undefined): string {
  const lines = [
    `kubectl-agd ${CLIENT_VERSION} (speaks ${GROUP}/${VERSION}, Node.js ${process.versions.node})`,
  ];
  if (cluster === undefined) return `${lines.join('\n')}\n`;
  if ('unreachable' in cluster)
    return `${lines.concat(`cluster: ${clean(cluster.unreachable)}`).join('\n')}\n`;
  lines.push(`cluster: ${clean(cluster.server)}`);
  const { controller, crds } = cluster;
  if (!controller.ok) lines.push(`controller: unknown (${clean(controller.reason)})`);
  else {
    const { version, deployment } = controller.value;
    const differs = version !== undefined && version !== CLIENT_VERSION ? ' (differs from this plugin)' : '';
    lines.push(
      `controller: ${version === undefined ? 'unknown (it publishes no version: older than 0.2)' : clean(version)} (${clean(deployment)})${differs}`,
    );
  }
  if (!crds.ok) lines.push(`CRDs: unknown (${clean(crds.reason)})`);
  for (const crd of crds.ok ? crds.value : []) {
    const missing = crd.served.includes(VERSION)
      ? ''
      : ` (does not serve ${VERSION}, the version this plugin speaks)`;
    const served = crd.served.map(clean).join(', ') || 'nothing';
    lines.push(
      `CRD ${clean(crd.name)}: serves ${served}, stores ${crd.storage === undefined ? '?' : clean(crd.storage)}${missing}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * What a plan prints when the cluster's controller is of another version than the plugin: the plan
 * says what this plugin's code would do. Undefined when they agree or the version cannot be read
 * (the plan does not fail for an aside).
 */
export async function planVersionNote(
  access: KubeAccess,
  namespace = DEFAULT_CONTROLLER_NAMESPACE,
): Promise<string | undefined> {
  const controller = await settled(() => controllerVersion(access, namespace));
  if (!controller.ok) return undefined;
  const { version, deployment } = controller.value;
  if (version === undefined || version === CLIENT_VERSION) return undefined;
  // The version matched the release pattern when it was read (reconcile/settings.ts): cleaned all the same.
  const which = clean(version);
  return `the controller in the cluster runs version ${which} (${clean(deployment)}) and this plugin is ${CLIENT_VERSION}: the plan says what ${CLIENT_VERSION} would do; install kubectl-agd ${which} to plan with the controller's code`;
}
