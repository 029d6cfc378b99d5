/**
 * The plan of one SandboxTemplate: the controller only observes templates, so the plan says what it
 * would report: in sync, the drift (field by field), not found, or ambiguous.
 */
import { SandboxTemplateSpec } from '../api/sandboxtemplate.ts';
import { credentialsPolicy, resolveCredentials } from '../controlplane/resolve-credentials.ts';
import { describeDrift, templateDrift } from '../reconcile/template-drift.ts';
import { observedFacts } from '../reconcile/template-observed.ts';
import { resolveTemplate } from '../reconcile/template-resolve.ts';
import { Stall, Wait } from '../runtime/outcome.ts';
import { NO_CREDENTIALS } from './agentdeployment.ts';
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
  if (!ref && !world.defaultCredentials.baseUrl) {
    return { ...head, action: 'unknown', reason: 'NoCredentials', message: NO_CREDENTIALS };
  }
  if (ref && !kube && !world.inputSecret?.(namespace, ref.name)) {
    return {
      ...head,
      action: 'unknown',
      reason: 'NoCluster',
      message: `reads credentials Secret ${ref.name}, which only a cluster can show: run the plan with a kubeconfig`,
    };
  }
  try {
    const data = ref
      ? (world.inputSecret?.(namespace, ref.name) ?? (await kube?.secret(namespace, ref.name)))
      : undefined;
    const credentials = resolveCredentials(
      ref,
      () => data,
      credentialsPolicy(world.defaultCredentials, world.allowedControlPlanes),
    );
    const templates = await world.controlPlane(credentials).listAllSandboxTemplates();
    const found = resolveTemplate(templates, spec.templateName);
    if (found.kind === 'notFound') {
      const similar = found.similar.length ? `; names containing it: ${found.similar.join(', ')}` : '';
      return {
        ...head,
        action: 'wait',
        reason: 'NotFound',
        message: `no sandbox template named "${spec.templateName}" on the control plane${similar}`,
      };
    }
    if (found.kind === 'ambiguous') {
      return {
        ...head,
        action: 'stall',
        reason: 'Ambiguous',
        message: `${found.ids.length} sandbox templates are named "${spec.templateName}" (ids ${found.ids.join(', ')})`,
      };
    }
    const facts = observedFacts(found.template);
    const drift = templateDrift(spec, { ...facts.observed, registryName: facts.registryName });
    if (drift.length === 0)
      return { ...head, action: 'none', message: `template ${found.template.id} matches the spec` };
    return {
      ...head,
      action: 'stall',
      reason: 'DriftDetected',
      message: `template ${found.template.id} differs from the spec: ${describeDrift(drift)}`,
      drift,
    };
  } catch (err) {
    if (err instanceof Wait) return { ...head, action: 'wait', reason: err.reason, message: err.message };
    if (err instanceof Stall) return { ...head, action: 'stall', reason: err.reason, message: err.message };
    throw err;
  }
}
