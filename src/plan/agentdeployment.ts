/**
 * The plan of one AgentDeployment: the controller's own program (reconcile/agentdeployment/: the same
 * facts, the same chain of gates) run with a read-only gather (gather.ts), and its verdict printed. No
 * decision is made here: a gate added to the chain shows in the plan. What is the plan's own is only
 * what the controller cannot meet: the API server's refusal of the object, and what the plan cannot know.
 */

import { AgentDeploymentSpec, type AgentDeploymentStatus } from '../api/agentdeployment.ts';
import { REVISION_POLL_MIN_MS } from '../controlplane/progress.ts';
import type { Deployment, DeploymentCreateRequest } from '../controlplane/schemas.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { valueAt } from '../lib/paths.ts';
import type { AgentDeploymentFacts } from '../reconcile/agentdeployment/facts.ts';
import { agentDeploymentFacts } from '../reconcile/agentdeployment/facts-of.ts';
import { ownedDeployment, ownershipOf } from '../reconcile/agentdeployment/owned.ts';
import { runAgentDeployment } from '../reconcile/agentdeployment/program.ts';
import type { FinalVerdict } from '../reconcile/agentdeployment/verdict.ts';
import { analysisNotes } from './analysis-notes.ts';
import { PlanStop, planPort, planSettings, stop } from './gather.ts';
import type { FieldChange, InputObject, LiveObject, PlanEntry, PlanWorld } from './model.ts';
import { schemaProblems } from './schema-problems.ts';
import { admission } from './validation/admission.ts';
import { HIDDEN_NOTE, platformValuesHidden, shownChanges } from './value-visibility.ts';

type Spec = AgentDeploymentSpec;
type Printed = Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes'>;

export const NO_CREDENTIALS =
  'validated only: no control-plane credentials (set CONTROL_PLANE_URL and CONTROL_PLANE_API_KEY, or spec.credentialsSecretRef)';

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
    if (err instanceof PlanStop) return { ...head, ...err.entry };
    throw err;
  }
}

async function plan(
  input: InputObject,
  namespace: string,
  world: PlanWorld,
  notes: string[],
): Promise<Printed> {
  const { kube } = world;
  const refusal = await admission(input, namespace, world, notes);
  if (refusal) stop('refused', 'Invalid', refusal);
  const parsed = AgentDeploymentSpec.safeParse(input.spec);
  if (!parsed.success) stop('refused', 'Invalid', schemaProblems(parsed.error, 'spec'));
  const spec = parsed.data as Spec;
  const live = kube ? await kube.live('AgentDeployment', namespace, input.metadata.name) : undefined;
  const status = structuredClone(live?.status ?? {}) as AgentDeploymentStatus;
  const metadata = {
    ...input.metadata,
    namespace,
    uid: live?.metadata.uid,
    creationTimestamp: live?.metadata.creationTimestamp,
    generation: generationOnApply(live, spec),
    finalizers: live?.metadata.finalizers,
  };
  const facts = agentDeploymentFacts({
    object: { metadata, spec, status },
    settings: await planSettings(world, namespace),
    statusKnown: !!kube,
    appliedUnknown: !live,
    digestKey: world.digestKey,
    now: world.now?.() ?? new Date(),
    revisionPollMs: REVISION_POLL_MIN_MS,
  });
  if (!world.digestKey && (spec.secrets?.length || spec.secretsFrom?.length))
    notes.push('secret values not compared (no secrets-digest key): only their names are');
  if (!live && !kube)
    notes.push(
      "no cluster: the object's status is unknown, so the install and build commands are not compared",
    );
  const verdict = await runAgentDeployment(
    facts,
    planPort(world, namespace, { spec, labels: input.metadata.labels }, notes),
  );
  notes.push(...analysisNotes(spec, facts.object.status, verdict));
  // Without the controller's credentials the plan cannot call: it says so instead of the controller's wait.
  if (
    verdict.kind === 'wait' &&
    facts.credentials?.ok === false &&
    !spec.credentialsSecretRef &&
    !world.defaultCredentials.baseUrl
  )
    stop('unknown', 'NoCredentials', NO_CREDENTIALS);
  const owner = ownershipOf(facts);
  if (owner.kind === 'owned' && owner.how === 'assumed') notes.push(`no cluster: ${owner.message}`);
  // The platform's values only for a reader who could read them anyway (value-visibility.ts).
  const found = facts.followed?.deployment ?? ownedDeployment(facts);
  const drifted = verdict.kind === 'patch' || verdict.kind === 'stall';
  const hidden = drifted
    ? await platformValuesHidden(world, {
        namespace,
        ownCredentials: !!spec.credentialsSecretRef,
        recordedId: (live?.status as AgentDeploymentStatus | undefined)?.deploymentId,
        observedId: found?.id,
      })
    : HIDDEN_NOTE;
  return printed(verdict, facts, found, (changes) => shownChanges(changes, hidden, notes));
}

/**
 * The generation the object has once the input is applied: the stored one when the spec is unchanged (a
 * stall held for a person stays held), the next one when it changes.
 */
function generationOnApply(live: LiveObject | undefined, spec: Spec): number {
  if (!live) return 1;
  const stored = live.metadata.generation ?? 0;
  const was = AgentDeploymentSpec.safeParse(live.spec);
  return was.success && canonicalJson(was.data) === canonicalJson(spec) ? stored : stored + 1;
}

/** The verdict as the plan shows it; `shown`: the changes with the platform's values a reader may see. */
function printed(
  verdict: FinalVerdict,
  facts: AgentDeploymentFacts,
  found: Deployment | undefined,
  shown: (changes: FieldChange[]) => FieldChange[],
): Printed {
  const desired = facts.desired?.ok ? facts.desired.request : undefined;
  const observeOnly =
    (verdict.kind === 'wait' && verdict.observeOnly) || facts.observation ? { observeOnly: true } : {};
  switch (verdict.kind) {
    case 'paused':
      return {
        action: 'none',
        ...(verdict.reason ? { reason: verdict.reason } : {}),
        message: `${verdict.message}: the controller sends nothing`,
      };
    case 'measure':
      return {
        action: 'none',
        reason: 'AnalysisRunning',
        message: `deployment ${found?.id} matches; ${verdict.message} (the controller measures: the plan does not)`,
        ...(found ? { deploymentId: found.id } : {}),
      };
    case 'wait':
      return {
        ...observeOnly,
        action: 'wait',
        reason: verdict.reason,
        message: verdict.message,
        ...(found ? { deploymentId: found.id } : {}),
      };
    case 'stall': {
      const drift = verdict.drift;
      return {
        ...observeOnly,
        action: 'stall',
        reason: verdict.reason,
        message: verdict.message,
        ...(found ? { deploymentId: found.id } : {}),
        ...(drift
          ? { changes: shown(drift.fields.map((field) => change(field, desired, drift.deployment))) }
          : {}),
      };
    }
    case 'create':
      return {
        action: 'create',
        message: `create deployment ${verdict.request.name}`,
        request: redacted(verdict.request),
        createsRevision: true,
      };
    case 'patch':
      return {
        action: 'patch',
        message: `patch deployment ${verdict.deployment.id}: ${verdict.changed.join(', ')}`,
        deploymentId: verdict.deployment.id,
        changes: shown(verdict.changed.map((field) => change(field, desired, verdict.deployment))),
        createsRevision: verdict.createsRevision,
      };
    case 'redeploy':
      return {
        action: 'redeploy',
        message: `redeploy revision ${verdict.revision.id} of deployment ${verdict.deployment.id} (${verdict.why})`,
        deploymentId: verdict.deployment.id,
      };
    case 'revert':
      return {
        action: 'redeploy',
        message: `would redeploy revision ${verdict.target} (no build): the spec's configuration equals it, instead of patching ${verdict.patch.changed.join(', ')}`,
        deploymentId: verdict.deployment.id,
        redeployRevision: verdict.target,
        createsRevision: true,
      };
    case 'rollback':
      return {
        action: 'redeploy',
        message: `would roll back to revision ${verdict.to} (a redeploy, no build): ${verdict.message}`,
        deploymentId: verdict.deployment.id,
        redeployRevision: verdict.to,
        createsRevision: true,
      };
    case 'ready':
      if (verdict.rolledBack)
        return {
          action: 'none',
          reason: 'RolledBack',
          message: verdict.message,
          ...(found ? { deploymentId: found.id } : {}),
        };
      return {
        ...observeOnly,
        action: 'none',
        message: facts.observation
          ? `observe-only: deployment ${found?.id} matches; nothing is sent (${verdict.message})`
          : `deployment ${found?.id} matches; ${verdict.message}${verdict.noRollback ? `; its verification failed: ${verdict.noRollback}` : ''}`,
        ...(found ? { deploymentId: found.id } : {}),
      };
    case 'progressing':
      return {
        ...observeOnly,
        action: 'none',
        ...(verdict.rollingBack ? { reason: 'RollingBack' } : {}),
        ...(verdict.analysisRunning ? { reason: 'AnalysisRunning' } : {}),
        message: facts.observation
          ? `observe-only: deployment ${found?.id} matches; nothing is sent (${verdict.message})`
          : `deployment ${found?.id} matches; ${verdict.message}`,
        ...(found ? { deploymentId: found.id } : {}),
      };
  }
}

function change(
  field: string,
  desired: DeploymentCreateRequest | undefined,
  observed: Deployment,
): FieldChange {
  if (field === 'secrets') {
    const names = (list: readonly { name: string }[] | undefined) => (list ?? []).map((s) => s.name).sort();
    const from = names(observed.secrets);
    const to = names(desired?.secrets);
    // The values never appear: only that they changed.
    return { field, from, to: to.join() === from.join() ? 'the same names, values changed' : to };
  }
  return { field, from: valueAt(observed, field) ?? null, to: valueAt(desired, field) ?? null };
}

/** The create request as shown: every secret value replaced. */
function redacted(request: DeploymentCreateRequest): DeploymentCreateRequest {
  return { ...request, secrets: request.secrets.map((s) => ({ ...s, value: '(set)' })) };
}
