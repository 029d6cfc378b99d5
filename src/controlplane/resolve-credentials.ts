/**
 * Which control-plane credentials an AgentDeployment uses: the controller's defaults, or a Secret in the
 * object's own namespace named by spec.credentialsSecretRef (keys apiKey, bearerToken, tenantId,
 * baseUrl; baseUrl falls back to the controller's). Never another namespace's Secret, and never a base
 * URL the administrator has not allowed.
 */
import { Stall, Wait } from '../runtime/outcome.ts';
import type { SecretLookup } from '../translate/secrets.ts';
import {
  ALLOWED_CONTROL_PLANES_SETTING,
  type ControlPlaneAllowList,
  controlPlaneAllowList,
} from './allowed-control-planes.ts';
import { type Credentials, checkCredentials } from './credentials.ts';

export const CREDENTIAL_KEYS = ['apiKey', 'bearerToken', 'tenantId', 'baseUrl'] as const;

/** What every resolution is measured against: the controller's credentials and the allowed control planes. */
export interface CredentialsPolicy {
  defaults: Partial<Credentials>;
  allowed: ControlPlaneAllowList;
}

/** The policy of a controller or plan; no list given: the default credentials' control plane only. */
export function credentialsPolicy(
  defaults: Partial<Credentials>,
  allowed?: ControlPlaneAllowList,
): CredentialsPolicy {
  return { defaults, allowed: allowed ?? controlPlaneAllowList('', defaults.baseUrl) };
}

export function resolveCredentials(
  ref: { name: string } | undefined,
  lookup: SecretLookup,
  policy: CredentialsPolicy,
): Credentials {
  const { defaults } = policy;
  let candidate: Record<string, unknown> = { ...defaults };
  let source = 'the controller credentials';
  if (ref) {
    const data = lookup(ref.name);
    if (!data) throw new Wait('WaitingForCredentials', `credentials Secret ${ref.name} not found`);
    source = `credentials Secret ${ref.name}`;
    const fromSecret: Record<string, string> = {};
    for (const key of CREDENTIAL_KEYS) {
      const b64 = data[key];
      if (b64 !== undefined) fromSecret[key] = Buffer.from(b64, 'base64').toString('utf8').trim();
    }
    candidate = { baseUrl: defaults.baseUrl, ...fromSecret };
  }
  const parsed = checkCredentials(candidate);
  if ('problems' in parsed) {
    // zod messages here describe the rule, never the value.
    throw new Wait('InvalidCredentials', `${source} cannot be used: ${parsed.problems.join('; ')}`);
  }
  // The controller's own credentials name the one control plane that is always allowed.
  const refused = ref ? policy.allowed.refusal(parsed.data.baseUrl) : undefined;
  if (refused) {
    throw new Stall(
      'ControlPlaneNotAllowed',
      `${source} names baseUrl ${parsed.data.baseUrl}, which is refused: ${refused} (${ALLOWED_CONTROL_PLANES_SETTING}: ${policy.allowed.entries.join(', ') || 'none'}); nothing was sent to it`,
    );
  }
  return parsed.data;
}
