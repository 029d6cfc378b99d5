/**
 * Which control-plane credentials an AgentDeployment uses: the controller's defaults, or a Secret in the
 * object's own namespace named by spec.credentialsSecretRef (keys apiKey, bearerToken, tenantId,
 * baseUrl; baseUrl falls back to the controller's). Never another namespace's Secret.
 */
import { Wait } from '../runtime/outcome.ts';
import type { SecretLookup } from '../translate/secrets.ts';
import { Credentials } from './credentials.ts';

export const CREDENTIAL_KEYS = ['apiKey', 'bearerToken', 'tenantId', 'baseUrl'] as const;

export function resolveCredentials(
  ref: { name: string } | undefined,
  lookup: SecretLookup,
  defaults: Partial<Credentials>,
): Credentials {
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
  const parsed = Credentials.safeParse(candidate);
  if (!parsed.success) {
    // zod messages here describe the rule, never the value.
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'credentials'}: ${i.message}`);
    throw new Wait('InvalidCredentials', `${source} cannot be used: ${problems.join('; ')}`);
  }
  return parsed.data;
}
