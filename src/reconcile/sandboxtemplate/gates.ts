/**
 * The SandboxTemplate's gates, in order: the two it shares with the AgentDeployment (paused, the
 * default-credentials scope, the credentials), then its own: list the templates, resolve the exact name
 * (none: waiting NotFound; several: Stalled Ambiguous), and its drift.
 */

import { credentials } from '../agentdeployment/gates/credentials.ts';
import { defaultCredentialsScope } from '../agentdeployment/gates/default-credentials-scope.ts';
import { paused } from '../agentdeployment/gates/paused.ts';
import { templateDrift } from '../template-drift.ts';
import { observedFacts } from '../template-observed.ts';
import { resolveTemplate } from '../template-resolve.ts';
import type { TemplateFacts, TemplateGateName, TemplateVerdict } from './program.ts';

export type TemplateGate = (facts: TemplateFacts) => TemplateVerdict | undefined;

/** Reads the credentials Secret it names, then the credentials as for an AgentDeployment. */
const templateCredentials: TemplateGate = (facts) => {
  if (facts.object.spec.credentialsSecretRef && !facts.credentialsSecret)
    return { gate: 'credentials', kind: 'read', read: 'credentialsSecret' };
  return credentials(facts) as TemplateVerdict | undefined;
};

const templates: TemplateGate = (facts) =>
  facts.templates ? undefined : { gate: 'templates', kind: 'read', read: 'templates' };

/** The one template of the exact name. */
const resolve: TemplateGate = (facts) => {
  const name = facts.object.spec.templateName;
  const found = resolveTemplate(facts.templates ?? [], name);
  if (found.kind === 'notFound') {
    const similar = found.similar.length ? `; names containing it: ${found.similar.join(', ')}` : '';
    return {
      gate: 'resolve',
      kind: 'wait',
      reason: 'NotFound',
      message: `no sandbox template named "${name}" on the control plane${similar}`,
      unresolved: true,
    };
  }
  if (found.kind === 'ambiguous') {
    return {
      gate: 'resolve',
      kind: 'stall',
      reason: 'Ambiguous',
      message: `${found.ids.length} sandbox templates are named "${name}" (ids ${found.ids.join(', ')}); the name must be unique`,
      unresolved: true,
    };
  }
  return undefined;
};

/** How the one template differs from the spec (always decides: the last gate). */
const drift: TemplateGate = (facts) => {
  const found = resolveTemplate(facts.templates ?? [], facts.object.spec.templateName);
  if (found.kind !== 'found') throw new Error('drift asked before the template was resolved');
  const observed = observedFacts(found.template);
  return {
    gate: 'drift',
    kind: 'found',
    template: found.template,
    drift: templateDrift(facts.object.spec, { ...observed.observed, registryName: observed.registryName }),
  };
};

export const TEMPLATE_GATES: readonly (readonly [TemplateGateName, TemplateGate])[] = [
  ['paused', paused as TemplateGate],
  ['defaultCredentialsScope', defaultCredentialsScope as TemplateGate],
  ['credentials', templateCredentials],
  ['templates', templates],
  ['resolve', resolve],
  ['drift', drift],
];
