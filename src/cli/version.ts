/**
 * `kubectl agd version`: the plugin's own version, and when a cluster is reachable the version of the
 * controller that runs there and the versions its CRDs serve. The controller publishes nothing for
 * this: its Deployment says it already, as the chart labels it (`app.kubernetes.io/version`, the chart's
 * appVersion) and as every install names its image (`agent-deployment-operator:<version>`; manifests/
 * sets the tag with kustomize). A plan against a controller of another version says so (planVersionNote).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AGENT_DEPLOYMENT, GROUP, SANDBOX_TEMPLATE, VERSION } from '../api/group.ts';
import type { KubeAccess } from '../kube/access.ts';
import { kubeRequest } from '../kube/request.ts';

/** The package's version: package.json is two levels up from src/cli/ and from dist/cli/ alike. */
export const CLIENT_VERSION: string = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'))).version;

/** The label every install (the chart, manifests/) puts on the controller's Deployment. */
export const CONTROLLER_SELECTOR = 'app.kubernetes.io/name=agent-deployment-operator';
const VERSION_LABEL = 'app.kubernetes.io/version';
/** A short deadline: the version is an aside, never worth a long wait. */
const DEADLINE_MS = 10_000;

const DeploymentList = z.object({
  items: z.array(
    z.looseObject({
      metadata: z.looseObject({
        name: z.string(),
        namespace: z.string(),
        labels: z.record(z.string(), z.string()).optional(),
      }),
      spec: z.looseObject({
        template: z.looseObject({
          spec: z.looseObject({
            containers: z.array(z.looseObject({ name: z.string(), image: z.string().optional() })),
          }),
        }),
      }),
    }),
  ),
});

const Crd = z.looseObject({
  spec: z.looseObject({
    versions: z.array(z.looseObject({ name: z.string(), served: z.boolean(), storage: z.boolean() })),
  }),
});

export interface ControllerVersion {
  /** namespace/name of its Deployment. */
  deployment: string;
  /** The version label, else the image's tag; undefined when neither says (an image by digest only). */
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

async function read<T>(fn: () => Promise<T>): Promise<Read<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return {
      ok: false,
      reason: (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' '),
    };
  }
}

/** The tag of an image reference (`repo:tag`, `repo:tag@sha256:…`), if it has one. */
export function imageTag(image: string): string | undefined {
  const withoutDigest = image.split('@')[0] ?? '';
  const lastPart = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  const colon = lastPart.indexOf(':');
  return colon === -1 ? undefined : lastPart.slice(colon + 1);
}

/** The controller Deployments (in `namespace`, else in every namespace) and the version of each. */
export async function controllerVersions(
  access: KubeAccess,
  namespace: string | undefined,
): Promise<ControllerVersion[]> {
  const path = namespace
    ? `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments`
    : '/apis/apps/v1/deployments';
  const list = DeploymentList.parse(
    await kubeRequest(access, {
      method: 'GET',
      path,
      query: { labelSelector: CONTROLLER_SELECTOR },
      deadlineMs: DEADLINE_MS,
    }),
  );
  return list.items.map((d) => {
    const containers = d.spec.template.spec.containers;
    const controller = containers.find((c) => c.name === 'controller') ?? containers[0];
    const image = controller?.image;
    return {
      deployment: `${d.metadata.namespace}/${d.metadata.name}`,
      version: d.metadata.labels?.[VERSION_LABEL] ?? (image ? imageTag(image) : undefined),
    };
  });
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
  controllers: Read<ControllerVersion[]>;
  crds: Read<CrdVersions[]>;
}

export async function clusterVersions(
  access: KubeAccess,
  namespace: string | undefined,
): Promise<ClusterVersions> {
  const [controllers, crds] = await Promise.all([
    read(() => controllerVersions(access, namespace)),
    read(() => crdVersions(access)),
  ]);
  return { server: access.server, controllers, crds };
}

/** The lines `kubectl agd version` prints. */
export function formatVersions(cluster: ClusterVersions | { unreachable: string } | undefined): string {
  const lines = [
    `kubectl-agd ${CLIENT_VERSION} (speaks ${GROUP}/${VERSION}, Node.js ${process.versions.node})`,
  ];
  if (cluster === undefined) return `${lines.join('\n')}\n`;
  if ('unreachable' in cluster) return `${lines.concat(`cluster: ${cluster.unreachable}`).join('\n')}\n`;
  lines.push(`cluster: ${cluster.server}`);
  const { controllers, crds } = cluster;
  if (!controllers.ok) lines.push(`controller: unknown (${controllers.reason})`);
  else if (controllers.value.length === 0)
    lines.push(`controller: none found (no Deployment labelled ${CONTROLLER_SELECTOR})`);
  for (const c of controllers.ok ? controllers.value : []) {
    const differs =
      c.version !== undefined && c.version !== CLIENT_VERSION ? ' (differs from this plugin)' : '';
    lines.push(
      `controller: ${c.version ?? 'unknown (no version label, image by digest)'} (${c.deployment})${differs}`,
    );
  }
  if (!crds.ok) lines.push(`CRDs: unknown (${crds.reason})`);
  for (const crd of crds.ok ? crds.value : []) {
    const missing = crd.served.includes(VERSION)
      ? ''
      : ` (does not serve ${VERSION}, the version this plugin speaks)`;
    lines.push(
      `CRD ${crd.name}: serves ${crd.served.join(', ') || 'nothing'}, stores ${crd.storage ?? '?'}${missing}`,
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
  namespace: string | undefined,
): Promise<string | undefined> {
  const controllers = await read(() => controllerVersions(access, namespace));
  if (!controllers.ok) return undefined;
  const other = controllers.value.filter((c) => c.version !== undefined && c.version !== CLIENT_VERSION);
  if (other.length === 0) return undefined;
  const which = other.map((c) => `${c.version} (${c.deployment})`).join(', ');
  return `the controller in the cluster runs version ${which} and this plugin is ${CLIENT_VERSION}: the plan says what ${CLIENT_VERSION} would do; install kubectl-agd ${other[0]?.version} to plan with the controller's code`;
}
