/**
 * The objects the hands-on verbs act on (`kubectl agd history|suspend|resume|reconcile|undo|status`): a name
 * as kubectl takes it (`NAME` for an AgentDeployment, `KIND/NAME` for either kind, by any of its names),
 * its API path, and the few reads and writes the verbs make. Only the fields the verbs read are parsed.
 */
import { z } from 'zod';
import { AGENT_DEPLOYMENT, GROUP, type KindNames, SANDBOX_TEMPLATE, VERSION } from '../api/group.ts';
import { HistoryEntry } from '../api/remediation.ts';
import type { KubeAccess } from '../kube/access.ts';
import { kubeRequest } from '../kube/request.ts';

export const KINDS: readonly KindNames[] = [AGENT_DEPLOYMENT, SANDBOX_TEMPLATE];

export interface ObjectRef {
  kind: KindNames;
  namespace: string;
  name: string;
}

export class ObjectArgError extends Error {}

/** The kind a word names (kind, plural, singular or short name, any case). */
export function kindNamed(word: string): KindNames | undefined {
  const w = word.toLowerCase();
  return KINDS.find(
    (k) =>
      [k.kind.toLowerCase(), k.plural, k.singular, ...k.shortNames].includes(w) ||
      w === `${k.plural}.${GROUP}`,
  );
}

/** A DNS subdomain, as the API server requires of every name: nothing a terminal would act on. */
const isObjectName = (name: string) => /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) && name.length <= 253;

/** `NAME` (an AgentDeployment) or `KIND/NAME`; `kinds`: those the verb acts on. */
export function parseObjectArg(arg: string, namespace: string, kinds: readonly KindNames[]): ObjectRef {
  const slash = arg.indexOf('/');
  const kind = slash < 0 ? AGENT_DEPLOYMENT : kindNamed(arg.slice(0, slash));
  const name = slash < 0 ? arg : arg.slice(slash + 1);
  if (!kind || !kinds.includes(kind))
    throw new ObjectArgError(
      `${JSON.stringify(arg)}: the kind must be one of ${kinds.map((k) => k.singular).join(', ')}`,
    );
  if (!isObjectName(name)) throw new ObjectArgError(`${JSON.stringify(arg)}: not an object name`);
  return { kind, namespace, name };
}

/** How messages name an object: `AgentDeployment team-a/agent`. */
export const describeRef = (ref: ObjectRef) => `${ref.kind.kind} ${ref.namespace}/${ref.name}`;

export const collectionPath = (kind: KindNames, namespace: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/${kind.plural}`;

export const objectPath = (ref: ObjectRef) =>
  `${collectionPath(ref.kind, ref.namespace)}/${encodeURIComponent(ref.name)}`;

const Condition = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

/** What the verbs read of an object of either kind. */
export const VerbObject = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    namespace: z.string().optional(),
    generation: z.number().optional(),
    resourceVersion: z.string().optional(),
    deletionTimestamp: z.string().optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  status: z
    .looseObject({
      observedGeneration: z.number().optional(),
      conditions: z.array(Condition).optional(),
      lastHandledReconcileAt: z.string().optional(),
      lastHandledUndoAt: z.string().optional(),
      latestRevisionId: z.string().optional(),
      activeRevisionId: z.string().optional(),
      revisionStatus: z.string().optional(),
      lastGoodRevision: z.string().optional(),
      history: z.array(HistoryEntry.partial().extend({ id: z.string() })).optional(),
    })
    .optional(),
});
export type VerbObject = z.infer<typeof VerbObject>;

export async function getObject(access: KubeAccess, ref: ObjectRef): Promise<VerbObject> {
  return VerbObject.parse(await kubeRequest(access, { method: 'GET', path: objectPath(ref) }));
}

/** The names of the kind's objects in the namespace, sorted (completion prints them). */
export async function listNames(access: KubeAccess, kind: KindNames, namespace: string): Promise<string[]> {
  const list = z.object({ items: z.array(z.object({ metadata: z.object({ name: z.string() }) })) }).parse(
    await kubeRequest(access, {
      method: 'GET',
      path: collectionPath(kind, namespace),
      accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    }),
  );
  // The API server allows no other names; checked all the same, as text from the cluster.
  return list.items
    .map((i) => i.metadata.name)
    .filter(isObjectName)
    .sort();
}

/** Sets (a string) or removes (null) annotations with a merge patch; returns the object patched. */
export async function annotate(
  access: KubeAccess,
  ref: ObjectRef,
  annotations: Record<string, string | null>,
): Promise<VerbObject> {
  return VerbObject.parse(
    await kubeRequest(access, {
      method: 'PATCH',
      path: objectPath(ref),
      body: { metadata: { annotations } },
      contentType: 'application/merge-patch+json',
    }),
  );
}
