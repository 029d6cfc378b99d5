/**
 * The one way an AgentDeployment's credentials are found, for its own pass, the claims of others, the
 * work queue's tenant and the plan: the controller's defaults (when the object's namespace may use them)
 * or the Secret spec.credentialsSecretRef names, measured against the allowed control planes.
 */
import { type Credentials, credentialsKey } from '../controlplane/credentials.ts';
import type { ScopeDecision } from '../controlplane/default-credentials-scope.ts';
import { type CredentialsPolicy, resolveCredentials } from '../controlplane/resolve-credentials.ts';
import { tenantDigest } from '../controlplane/tenant.ts';
import { Stall, Wait } from '../runtime/outcome.ts';
import type { SecretLookup } from '../translate/secrets.ts';
import type { CredentialIdentity } from './agentdeployment/claims.ts';
import type { CredentialsFact } from './agentdeployment/facts.ts';

/** The credentials an object's pass calls with, or the wait or stall that says why it has none. */
export function credentialsFact(
  ref: { name: string } | undefined,
  lookup: SecretLookup,
  policy: CredentialsPolicy,
): CredentialsFact {
  try {
    const credentials = resolveCredentials(ref, lookup, policy);
    return {
      ok: true,
      credentials,
      tenant: tenantDigest(credentials),
      identity: credentialsKey(credentials),
    };
  } catch (err) {
    if (err instanceof Wait) return { ok: false, kind: 'wait', reason: err.reason, message: err.message };
    if (err instanceof Stall) return { ok: false, kind: 'stall', reason: err.reason, message: err.message };
    throw err;
  }
}

/**
 * The credentials an object would call with, from Secrets already at hand; undefined when it calls
 * nothing: default credentials its namespace may not use, or credentials that do not resolve or are not
 * allowed.
 */
export function usableCredentials(
  obj: { spec: { credentialsSecretRef?: { name: string } | undefined } },
  lookup: SecretLookup,
  scope: ScopeDecision,
  policy: CredentialsPolicy,
): Credentials | undefined {
  if (!obj.spec.credentialsSecretRef && !scope.allowed) return undefined;
  const fact = credentialsFact(obj.spec.credentialsSecretRef, lookup, policy);
  return fact.ok ? fact.credentials : undefined;
}

/** The tenant and identity of usable credentials (what claims are measured by). */
export function identityOf(credentials: Credentials | undefined): CredentialIdentity | undefined {
  return credentials && { tenant: tenantDigest(credentials), identity: credentialsKey(credentials) };
}
