/**
 * The plan of one SandboxTemplate: the controller's own program (reconcile/sandboxtemplate/) with
 * read-only reads, its verdict printed: in sync, the drift (field by field), not found, ambiguous, or
 * where the controller stops first (paused, the default-credentials scope, the credentials).
 */
import { SandboxTemplateSpec } from '../api/sandboxtemplate.ts';
import { describeDrift } from '../reconcile/sandboxtemplate/drift.ts';
import type { TemplateFacts } from '../reconcile/sandboxtemplate/facts.ts';
import { runTemplate } from '../reconcile/sandboxtemplate/program.ts';
import { NO_CREDENTIALS } from './agentdeployment.ts';
import { PlanStop, planSettings } from './gather.ts';
import type { InputObject, PlanEntry, PlanWorld } from './model.ts';
import { schemaProblems } from './schema-problems.ts';
import { admission } from './validation/admission.ts';

export async function planSandboxTemplate(
  input: InputObject,
  namespace: string,
  world: PlanWorld,
): Promise<PlanEntry> {
  const notes: string[] = [];
  const head = { kind: 'SandboxTemplate' as const, namespace, name: input.metadata.name, notes };
  const refusal = await admission(input, namespace, world, notes);
  if (refusal) return { ...head, action: 'refused', reason: 'Invalid', message: refusal };
  const parsed = SandboxTemplateSpec.safeParse(input.spec);
  if (!parsed.success) {
    return { ...head, action: 'refused', reason: 'Invalid', message: schemaProblems(parsed.error, 'spec') };
  }
  const spec = parsed.data;
  const { kube } = world;
  const ref = spec.credentialsSecretRef;
  if (ref && !kube && !world.inputSecret?.(namespace, ref.name)) {
    return {
      ...head,
      action: 'unknown',
      reason: 'NoCluster',
      message: `reads credentials Secret ${ref.name}, which only a cluster can show: run the plan with a kubeconfig`,
    };
  }
  let facts: TemplateFacts;
  try {
    facts = {
      object: { metadata: { ...input.metadata, namespace }, spec },
      settings: await planSettings(world, namespace),
    };
  } catch (err) {
    if (err instanceof PlanStop) return { ...head, ...err.entry };
    throw err;
  }
  const verdict = await runTemplate(facts, {
    async read(read, f) {
      if (read === 'credentialsSecret') {
        const data = ref
          ? (world.inputSecret?.(namespace, ref.name) ?? (await kube?.secret(namespace, ref.name)))
          : undefined;
        f.credentialsSecret = { data };
        return;
      }
      if (!f.credentials?.ok) throw new Error('templates listed before the credentials resolved');
      f.templates = await world.controlPlane(f.credentials.credentials).listAllSandboxTemplates();
    },
  });
  // Without the controller's credentials the plan cannot call: it says so where the controller waits
  // for credentials (after the pause, as the controller's chain decides).
  if (verdict.kind === 'wait' && facts.credentials?.ok === false && !ref && !world.defaultCredentials.baseUrl)
    return { ...head, action: 'unknown', reason: 'NoCredentials', message: NO_CREDENTIALS };
  switch (verdict.kind) {
    case 'paused':
      return { ...head, action: 'none', message: `${verdict.message}: the controller reports nothing new` };
    case 'wait':
    case 'stall':
      return { ...head, action: verdict.kind, reason: verdict.reason, message: verdict.message };
    case 'found': {
      const { template, drift } = verdict;
      if (drift.length === 0)
        return { ...head, action: 'none', message: `template ${template.id} matches the spec` };
      return {
        ...head,
        action: 'stall',
        reason: 'DriftDetected',
        message: `template ${template.id} differs from the spec: ${describeDrift(drift)}`,
        drift,
      };
    }
  }
}
