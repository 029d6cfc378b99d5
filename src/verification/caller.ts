/**
 * Which key a verification sends to the deployment's URL, and under which rules (issue 52, hole 1). A
 * control-plane key (the controller's default credentials, or the object's spec.credentialsSecretRef)
 * goes only to a URL the platform assigned to that very deployment (custom_url of a source the platform
 * hosts, `repo_host`), never to a URL a namespace chose (`external_image`'s customUrl): there the
 * namespace names its own verification key (spec.verification.credentialsSecretRef), or the calls carry
 * none. So no namespace can point the controller's key at a server it runs, nor start runs with it on
 * another namespace's agent server.
 */
import type { Credentials } from '../controlplane/credentials.ts';

/** What authenticates a call to an agent server. */
export type AgentServerKey = Pick<Credentials, 'apiKey' | 'bearerToken' | 'tenantId'>;

/** Who set the deployment's URL: the platform (repo_host), or the namespace (external_image's customUrl). */
export type UrlChosenBy = 'platform' | 'namespace';

export type VerificationCaller =
  /** The controller's default credentials: allow-listed hosts only, answers quoted short. */
  | { kind: 'controller'; key: AgentServerKey }
  /** A key of the namespace's own: no internal address, nothing of an answer quoted. */
  | { kind: 'namespace'; key: AgentServerKey }
  /** No key: as a namespace's own call, and the object says that none was sent. */
  | { kind: 'keyless'; note: string };

/** spec.verification.credentialsSecretRef as read: its key, or why it cannot be used. */
export type VerificationKeyRead =
  | { key: AgentServerKey }
  | { reason: 'WaitingForCredentials' | 'InvalidCredentials'; problem: string };

const KEYLESS_NOTE =
  "no key was sent: the deployment's URL is spec.sourceConfig.customUrl, chosen in the namespace, and control-plane keys go only to a URL the platform assigned; name a Secret in spec.verification.credentialsSecretRef to send one";

/** A key the namespace named wins; else the object's credentials to a platform-assigned URL; else none. */
export function verificationCaller(input: {
  urlChosenBy: UrlChosenBy;
  credentials: Credentials;
  credentialsOwner: 'controller' | 'namespace';
  verificationKey?: VerificationKeyRead | undefined;
}): VerificationCaller {
  const named = input.verificationKey;
  if (named && 'key' in named) return { kind: 'namespace', key: named.key };
  if (input.urlChosenBy === 'namespace') return { kind: 'keyless', note: KEYLESS_NOTE };
  return { kind: input.credentialsOwner, key: input.credentials };
}

const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * The key in a verification Secret's data (base64 values, as the API returns them): apiKey, or
 * bearerToken with tenantId. Problems name the Secret and the rule, never a value.
 */
export function readVerificationKey(
  name: string,
  data: Record<string, string> | undefined,
): VerificationKeyRead {
  const where = `verification credentials Secret ${name} (spec.verification.credentialsSecretRef)`;
  if (!data) return { reason: 'WaitingForCredentials', problem: `${where} not found` };
  const value = (k: string) => {
    const b64 = data[k];
    return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8').trim();
  };
  const key: AgentServerKey = {};
  for (const k of ['apiKey', 'bearerToken', 'tenantId'] as const) {
    const v = value(k);
    if (v === undefined) continue;
    if (!PRINTABLE.test(v))
      return { reason: 'InvalidCredentials', problem: `${where}: ${k} must be non-empty printable ASCII` };
    key[k] = v;
  }
  if (!key.apiKey && !key.bearerToken)
    return { reason: 'InvalidCredentials', problem: `${where}: either apiKey or bearerToken is required` };
  if (!key.apiKey && !key.tenantId)
    return { reason: 'InvalidCredentials', problem: `${where}: a bearer token must come with a tenantId` };
  return { key };
}
