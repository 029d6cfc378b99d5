/**
 * Gate `resolve`: the one template of the exact name (reconcile/sandboxtemplate/resolve.ts). None: waiting
 * NotFound, naming near names; several: Stalled Ambiguous.
 */
import { resolveTemplate } from '../resolve.ts';
import type { TemplateGate } from '../verdict.ts';

export const resolve: TemplateGate = (facts) => {
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
