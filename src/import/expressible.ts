/**
 * Whether an imported object reproduces its deployment exactly, proved rather than assumed: the spec
 * must survive the CRD's schema whole (nothing pruned, nothing refused), and the controller's own
 * decision (reconcile/agentdeployment/desired-deployment.ts and driftDecision.ts, as at adoption) must be to send nothing. Each problem
 * names the field; an object with any problem is not written.
 */
import { AgentDeploymentSpec } from '../api/agentdeployment.ts';
import { isDeleting } from '../controlplane/progress.ts';
import { DO_NOT_USE_RESOURCE_FIELDS } from '../controlplane/schemas.ts';
import { schemaProblems } from '../plan/schema-problems.ts';
import { desiredDeployment } from '../reconcile/agentdeployment/desired-deployment.ts';
import { driftDecision } from '../reconcile/agentdeployment/drift-decision.ts';
import type { Imported } from './manifests.ts';

/** Paths present in `given` that `kept` lacks: what a schema would prune. */
export function droppedPaths(given: unknown, kept: unknown, path = 'spec'): string[] {
  if (Array.isArray(given)) {
    if (!Array.isArray(kept)) return [path];
    return given.flatMap((item, i) => droppedPaths(item, kept[i], `${path}[${i}]`));
  }
  if (given === null || typeof given !== 'object') return [];
  if (kept === null || typeof kept !== 'object') return [path];
  const keptRecord = kept as Record<string, unknown>;
  return Object.entries(given).flatMap(([k, v]) =>
    k in keptRecord ? droppedPaths(v, keptRecord[k], `${path}.${k}`) : [`${path}.${k}`],
  );
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

export function expressibilityProblems(imported: Imported): string[] {
  const { deployment: d, agentDeployment: obj, secret } = imported;
  if (isDeleting(d.status)) return [`the platform is deleting it (${d.status})`];
  if (obj.metadata.name === '')
    return [`no Kubernetes object name can be made of the name ${JSON.stringify(d.name)}`];
  const problems: string[] = [];
  const stored = d.source_config.resource_spec ?? {};
  for (const field of DO_NOT_USE_RESOURCE_FIELDS) {
    if (stored[field] !== null && stored[field] !== undefined)
      problems.push(
        `source_config.resource_spec.${field} is set, and the document marks it "do not use": the CRD refuses it`,
      );
  }
  const parsed = AgentDeploymentSpec.safeParse(obj.spec);
  if (!parsed.success) return [...problems, schemaProblems(parsed.error, 'spec')];
  for (const path of droppedPaths(obj.spec, parsed.data))
    problems.push(`${path} has no place in the AgentDeployment schema`);
  if (problems.length > 0) return problems;

  // The controller's decision at adoption, from exactly what the YAML holds.
  const data = secret
    ? Object.fromEntries(Object.entries(secret.stringData).map(([k, v]) => [k, base64(v)]))
    : {};
  const desired = desiredDeployment(
    { metadata: obj.metadata, spec: parsed.data },
    (name) => (secret && name === secret.metadata.name ? data : undefined),
    'import',
  );
  if (!desired.ok) return [desired.message];
  const decision = driftDecision({
    desired: desired.request,
    observed: d,
    digests: desired.digests,
    applied: {},
  });
  switch (decision.kind) {
    case 'none':
      return [];
    case 'patch':
      return decision.changed.map(
        (field) => `${field} cannot be stated so that the controller sends nothing`,
      );
    case 'create':
      return ['the controller would create it'];
    case 'wait':
    case 'stall':
      return [decision.message];
  }
}
