/** Gate `drift`: how the one template differs from the spec (always decides: the last gate). */
import { templateDrift } from '../drift.ts';
import { observedFacts } from '../observed.ts';
import { resolveTemplate } from '../resolve.ts';
import type { TemplateGate } from '../verdict.ts';

export const drift: TemplateGate = (facts) => {
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
