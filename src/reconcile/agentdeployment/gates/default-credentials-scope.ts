/**
 * Gate `defaultCredentialsScope`: an object naming no credentials of its own, in a namespace the
 * administrator did not allow to use the controller's, stops here: before its finalizer (so it leaves
 * freely) and before any call.
 */
import { Annotation } from '../../../api/names.ts';
import type { VerdictSettings } from '../facts.ts';
import type { Verdict } from '../verdict.ts';

/** What the scope reads (both kinds). */
interface ScopeFacts {
  object: {
    metadata: { annotations?: Record<string, string> | undefined };
    spec: { credentialsSecretRef?: { name: string } | undefined };
  };
  settings: Pick<VerdictSettings, 'defaultCredentialsScope'>;
}

/** Why this object may not use the default credentials; undefined when it may (or names its own). */
export function defaultCredentialsRefused(facts: ScopeFacts) {
  const { metadata, spec } = facts.object;
  if (spec.credentialsSecretRef) return undefined;
  const decision = facts.settings.defaultCredentialsScope;
  if (decision.allowed) return undefined;
  return metadata.annotations?.[Annotation.AdoptDeploymentId]
    ? `${decision.message}; the ${Annotation.AdoptDeploymentId} annotation is not acted on either`
    : decision.message;
}

export const defaultCredentialsScope = (facts: ScopeFacts): (Verdict & { kind: 'stall' }) | undefined => {
  const refused = defaultCredentialsRefused(facts);
  if (!refused) return undefined;
  return {
    gate: 'defaultCredentialsScope',
    kind: 'stall',
    reason: 'DefaultCredentialsNotAllowed',
    message: refused,
    forgetPolled: true,
  };
};
