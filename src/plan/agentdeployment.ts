/**
 * The plan of one AgentDeployment: what the controller would send the control plane for it, found with
 * the controller's own functions (desired state and digests, claims, decide) against the live platform.
 * It only reads: a GET of the recorded or adopted deployment, or a lookup of its name.
 */
import { AgentDeploymentSpec, type AgentDeploymentStatus } from '../api/agentdeployment.ts';
import { Annotation } from '../api/names.ts';
import { NotFoundError } from '../controlplane/errors.ts';
import { isDeleting, REVISION_POLL_MIN_MS } from '../controlplane/progress.ts';
import { credentialsPolicy, resolveCredentials } from '../controlplane/resolve-credentials.ts';
import type { Deployment, DeploymentCreateRequest } from '../controlplane/schemas.ts';
import { tenantDigest } from '../controlplane/tenant.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { valueAt } from '../lib/paths.ts';
import { type Claim, claimConflict, claimOf, deploymentNameOf } from '../reconcile/claims.ts';
import { type Decision, decide } from '../reconcile/decide.ts';
import { desiredDeployment } from '../reconcile/desired.ts';
import { desiredConfig } from '../reconcile/history.ts';
import { driftMessage, isObserveOnly, observeVerdict } from '../reconcile/management.ts';
import { type OwnershipFacts, ownership, type ReadById } from '../reconcile/ownership.ts';
import { checkPollInterval, pausedOutcome } from '../runtime/annotations.ts';
import { Stall, Wait } from '../runtime/outcome.ts';
import { referencedSecretNames } from '../translate/secrets.ts';
import type { FieldChange, InputObject, LiveObject, PlanEntry, PlanWorld } from './model.ts';
import { remediationPlan } from './remediation.ts';
import { schemaProblems } from './schema-problems.ts';
import { admission } from './validation/admission.ts';
import { platformValuesShown, shownChanges } from './value-visibility.ts';

type Spec = AgentDeploymentSpec;

export const NO_CREDENTIALS =
  'validated only: no control-plane credentials (set CONTROL_PLANE_URL and CONTROL_PLANE_API_KEY, or spec.credentialsSecretRef)';

/** Stops planning an object with this entry. */
class Verdict extends Error {
  readonly entry: Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes'>;
  constructor(entry: Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes'>) {
    super(entry.message);
    this.entry = entry;
  }
}
const stop = (action: PlanEntry['action'], reason: string, message: string): never => {
  throw new Verdict({ action, reason, message });
};

export async function planAgentDeployment(
  input: InputObject,
  namespace: string,
  world: PlanWorld,
): Promise<PlanEntry> {
  const notes: string[] = [];
  const head = { kind: 'AgentDeployment' as const, namespace, name: input.metadata.name, notes };
  try {
    return { ...head, ...(await plan(input, namespace, world, notes)) };
  } catch (err) {
    if (err instanceof Verdict) return { ...head, ...err.entry };
    if (err instanceof Wait) return { ...head, action: 'wait', reason: err.reason, message: err.message };
    // The controller's own checks that stall (e.g. a control plane not on the allowed list).
    if (err instanceof Stall) return { ...head, action: 'stall', reason: err.reason, message: err.message };
    throw err;
  }
}

async function plan(input: InputObject, namespace: string, world: PlanWorld, notes: string[]) {
  const { kube } = world;
  const refusal = await admission(input, namespace, world, notes);
  if (refusal) stop('refused', 'Invalid', refusal);
  const parsed = AgentDeploymentSpec.safeParse(input.spec);
  if (!parsed.success) stop('refused', 'Invalid', schemaProblems(parsed.error, 'spec'));
  const spec = parsed.data as Spec;
  const live = kube ? await kube.live('AgentDeployment', namespace, input.metadata.name) : undefined;
  const status = (live?.status ?? {}) as AgentDeploymentStatus;
  // The controller's own annotation checks: paused sends nothing, a bad poll interval stalls.
  const paused = pausedOutcome({ ...input, metadata: { ...input.metadata, namespace } });
  if (paused) return { action: 'none' as const, message: `${paused.message}: the controller sends nothing` };
  try {
    checkPollInterval({ ...input, metadata: { ...input.metadata, namespace } });
  } catch (err) {
    if (err instanceof Stall) stop('stall', err.reason, err.message);
    throw err;
  }
  if (!spec.credentialsSecretRef && !world.defaultCredentials.baseUrl)
    stop('unknown', 'NoCredentials', NO_CREDENTIALS);
  const obj = {
    metadata: {
      ...input.metadata,
      namespace,
      uid: live?.metadata.uid,
      creationTimestamp: live?.metadata.creationTimestamp,
    },
    spec,
    status,
  };

  // The Secrets the object reads, its credentials among them.
  const secretNames = referencedSecretNames(spec);
  const unknown = secretNames.filter((name) => !world.inputSecret?.(namespace, name));
  if (!kube && unknown.length > 0) {
    stop(
      'unknown',
      'NoCluster',
      `reads Secrets ${unknown.join(', ')}, which are neither in the input nor readable without a cluster: give them, or run the plan with a kubeconfig`,
    );
  }
  const data = new Map<string, Record<string, string> | undefined>();
  for (const name of secretNames) {
    data.set(name, world.inputSecret?.(namespace, name) ?? (await kube?.secret(namespace, name)));
  }
  const lookup = (name: string) => data.get(name);
  const credentials = resolveCredentials(
    spec.credentialsSecretRef,
    lookup,
    credentialsPolicy(world.defaultCredentials, world.allowedControlPlanes),
  );
  const tenant = tenantDigest(credentials);

  const desired = desiredDeployment(obj, lookup, world.digestKey ?? 'no-digest-key');
  if (!desired.ok) stop('wait', 'WaitingForSecret', desired.message);
  if (!desired.ok) throw new Error('unreachable');
  const digests = { ...desired.digests };
  if (!world.digestKey) {
    // Without the controller's key the digest cannot match: take the values as unchanged, and say so.
    digests.secrets = status.secretsDigest ?? digests.secrets;
    if (spec.secrets?.length || spec.secretsFrom?.length)
      notes.push('secret values not compared (no secrets-digest key): only their names are');
  }
  if (!live) {
    // Nothing recorded: the platform does not echo these, so nothing says what was sent.
    if (!kube)
      notes.push(
        "no cluster: the object's status is unknown, so the install and build commands are not compared",
      );
    status.appliedConfigDigest ??= digests.unechoed;
  }

  let claims: Claim[] = [];
  if (kube) {
    const others = await kube.agentDeployments(namespace);
    if (!others) notes.push('ownership not checked: this user may not list AgentDeployments');
    claims = others ? claimsOf(others, obj, tenant) : [];
    const conflict = others && claimConflict(claimOf(obj, tenant), claims);
    if (conflict) stop('stall', conflict.reason, conflict.message);
  }

  const client = world.controlPlane(credentials);
  const observeOnly = isObserveOnly(spec);
  const observed = await observe(
    client,
    obj,
    status,
    { tenant, knowsStatus: !!kube, claims, now: new Date(), observeOnly },
    notes,
  );
  const decision = decide({ desired: desired.request, observed, digests, applied: status });
  // The platform's values only for a reader who could read them anyway (value-visibility.ts).
  const shown =
    (decision.action === 'patch' || decision.action === 'stall') &&
    (await platformValuesShown(world, {
      namespace,
      ownCredentials: !!spec.credentialsSecretRef,
      recordedId: status.deploymentId,
      observedId: observed?.id,
    }));
  const changesOf = (fields: readonly string[]) =>
    shownChanges(
      fields.map((field) => change(field, desired.request, observed)),
      shown,
      notes,
    );
  if (observeOnly) return observeOnlyEntry(decision, desired.request, observed, changesOf);
  const unchanged = !!live && sameSpec(live.spec, spec);
  const liveGeneration = live?.metadata.generation ?? 0;
  const remedy = remediationPlan({
    spec,
    status,
    unchangedGeneration: unchanged ? liveGeneration : undefined,
    generation: unchanged ? liveGeneration : liveGeneration + 1,
    decision,
    desired: desiredConfig(desired.request, digests.secrets),
    observed,
  });
  if (remedy) return remedy;
  switch (decision.action) {
    case 'create':
      return {
        action: 'create' as const,
        message: `create deployment ${desired.request.name}`,
        request: redacted(desired.request),
        createsRevision: true,
      };
    case 'patch':
      return {
        action: 'patch' as const,
        message: `patch deployment ${observed?.id}: ${decision.changed.join(', ')}`,
        deploymentId: observed?.id,
        changes: changesOf(decision.changed),
        createsRevision: decision.createsRevision,
      };
    case 'none':
      return {
        action: 'none' as const,
        message: `deployment ${observed?.id} matches`,
        deploymentId: observed?.id,
      };
    case 'wait':
    case 'stall':
      return {
        action: decision.action,
        reason: decision.reason,
        message: decision.message,
        deploymentId: observed?.id,
      };
  }
}

/**
 * The deployment the controller would take as this object's: its observe step's own verdict
 * (reconcile/ownership.ts), fed with read-only reads.
 */
async function observe(
  client: ReturnType<PlanWorld['controlPlane']>,
  obj: { metadata: { annotations?: Record<string, string> }; spec: Spec },
  status: AgentDeploymentStatus,
  context: {
    tenant: string;
    knowsStatus: boolean;
    claims: readonly Claim[];
    now: Date;
    observeOnly: boolean;
  },
  notes: string[],
): Promise<Deployment | undefined> {
  const name = deploymentNameOf(obj as Parameters<typeof deploymentNameOf>[0]);
  const readById = async (id: string): Promise<ReadById> => {
    try {
      return await client.getDeployment(id);
    } catch (err) {
      if (err instanceof NotFoundError) return 'missing';
      throw err;
    }
  };
  const known: OwnershipFacts = {
    name,
    recordedId: status.deploymentId,
    recordedTenant: status.credentialsDigest,
    pendingSince: status.createPendingSince,
    adoptId: obj.metadata.annotations?.[Annotation.AdoptDeploymentId],
    tenant: context.tenant,
    claimedBy: (id) =>
      context.claims.find((c) => c.tenant === context.tenant && (c.deploymentId === id || c.adoptId === id))
        ?.key,
    statusKnown: context.knowsStatus,
    observeOnly: context.observeOnly,
    now: context.now,
    revisionPollMs: REVISION_POLL_MIN_MS,
  };
  for (;;) {
    const verdict = ownership(known);
    switch (verdict.kind) {
      case 'read':
        if (verdict.read === 'recorded') known.recorded = await readById(known.recordedId as string);
        else if (verdict.read === 'adopted') known.adopted = await readById(known.adoptId as string);
        else {
          const named = await client.findDeploymentsByName(name);
          known.byName = {
            live: named.find((d) => !isDeleting(d.status)),
            deleting: named.find((d) => isDeleting(d.status)),
          };
        }
        continue;
      case 'forget':
        notes.push(verdict.message);
        known.recordedId = undefined;
        continue;
      case 'owned':
        if (verdict.how === 'assumed') notes.push(`no cluster: ${verdict.message}`);
        return verdict.deployment;
      case 'none':
        return undefined;
      case 'stall':
      case 'wait':
        return stop(verdict.kind, verdict.reason, verdict.message);
    }
  }
}

/** The input's spec is the live object's (its defaults applied): its generation would not change. */
function sameSpec(live: unknown, spec: Spec): boolean {
  const parsed = AgentDeploymentSpec.safeParse(live);
  return parsed.success && canonicalJson(parsed.data) === canonicalJson(spec);
}

/** What an observe-only object would report: it sends nothing, whatever differs. */
function observeOnlyEntry(
  decision: Decision,
  desired: DeploymentCreateRequest,
  observed: Deployment | undefined,
  changesOf: (fields: readonly string[]) => FieldChange[],
): Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes'> {
  const verdict = observeVerdict(decision);
  const base = { observeOnly: true, ...(observed ? { deploymentId: observed.id } : {}) };
  if (verdict.kind === 'notFound' || !observed) {
    return {
      ...base,
      action: 'wait',
      reason: 'NotFound',
      message: `observe-only: no deployment named ${desired.name} to observe; nothing is created`,
    };
  }
  if (verdict.kind === 'deleting')
    return { ...base, action: 'wait', reason: 'Deleting', message: verdict.message };
  if (verdict.drift.length === 0) {
    return {
      ...base,
      action: 'none',
      message: `observe-only: deployment ${observed.id} matches; nothing is sent`,
    };
  }
  const fields =
    decision.action === 'patch' ? decision.changed : decision.action === 'stall' ? decision.fields : [];
  return {
    ...base,
    action: 'stall',
    reason: 'DriftDetected',
    message: driftMessage(observed.id, verdict.drift),
    changes: changesOf(fields),
  };
}

/**
 * Other objects' claims. Their tenant: the digest recorded with their id; else, as far as the plan can
 * tell without reading their Secrets, this object's when they name the same credentials (or none).
 */
export function claimsOf(
  others: readonly LiveObject[],
  self: { metadata: { namespace: string; name: string }; spec: Spec },
  tenant: string,
): Claim[] {
  const sameCredentials = (o: LiveObject) => {
    const ref = (o.spec as Spec | undefined)?.credentialsSecretRef?.name;
    const mine = self.spec.credentialsSecretRef?.name;
    return ref === mine && (ref === undefined || o.metadata.namespace === self.metadata.namespace);
  };
  return others
    .filter(
      (o) => !(o.metadata.namespace === self.metadata.namespace && o.metadata.name === self.metadata.name),
    )
    .map((o) => claimOf(o as Parameters<typeof claimOf>[0], sameCredentials(o) ? tenant : undefined));
}

function change(
  field: string,
  desired: DeploymentCreateRequest,
  observed: Deployment | undefined,
): FieldChange {
  if (field === 'secrets') {
    const names = (list: readonly { name: string }[] | undefined) => (list ?? []).map((s) => s.name).sort();
    const from = names(observed?.secrets);
    const to = names(desired.secrets);
    // The values never appear: only that they changed.
    return { field, from, to: to.join() === from.join() ? 'the same names, values changed' : to };
  }
  return { field, from: valueAt(observed, field) ?? null, to: valueAt(desired, field) ?? null };
}

/** The create request as shown: every secret value replaced. */
function redacted(request: DeploymentCreateRequest): DeploymentCreateRequest {
  return { ...request, secrets: request.secrets.map((s) => ({ ...s, value: '(set)' })) };
}
