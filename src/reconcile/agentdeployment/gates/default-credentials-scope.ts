/**
 * Gate `defaultCredentialsScope`: an object naming no credentials of its own, in a namespace the
 * administrator did not allow to use the controller's, stops here: before its finalizer (so it leaves
 * freely) and before any call.
 */
import { Annotation } from '../../../api/names.ts';
import type { AgentDeploymentFacts } from '../facts.ts';
import type { Gate } from '../verdict.ts';

/** Why this object may not use the default credentials; undefined when it may (or names its own). */
export function defaultCredentialsRefused(facts: Pick<AgentDeploymentFacts, 'object' | 'settings'>) {
  const { metadata, spec } = facts.object;
  if (spec.credentialsSecretRef) return undefined;
  const decision = facts.settings.defaultCredentialsScope;
  if (decision.allowed) return undefined;
  return metadata.annotations?.[Annotation.AdoptDeploymentId]
    ? `${decision.message}; the ${Annotation.AdoptDeploymentId} annotation is not acted on either`
    : decision.message;
}

export const defaultCredentialsScope: Gate = (facts) => {
  const refused = defaultCredentialsRefused(facts);
  if (!refused) return undefined;
  return {
    gate: 'defaultCredentialsScope',
    kind: 'stall',
    reason: 'DefaultCredentialsNotAllowed',
    message: refused,
  };
};
