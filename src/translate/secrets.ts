/**
 * Secrets of an AgentDeployment: resolved from literal values and Kubernetes Secrets (pure: the Secret
 * lookup is injected), and summarised by a keyed digest so status can say what was applied without ever
 * holding a value or a plain hash of one.
 */
import { createHash, createHmac } from 'node:crypto';
import type { AgentDeploymentSpec } from '../api/agentdeployment.ts';
import type { Secret } from '../controlplane/schemas.ts';

/** The data of a Kubernetes Secret, base64 values as the API returns them; undefined when absent. */
export type SecretLookup = (name: string) => Record<string, string> | undefined;

export type SecretResolution =
  | { ok: true; secrets: Secret[] }
  | { ok: false; missing: string[]; invalid: string[] };

const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function decode(b64: string): string {
  return Buffer.from(b64, 'base64').toString('utf8');
}

/** Every Kubernetes Secret name the spec reads, for the secondary watch and the index behind it. */
export function referencedSecretNames(spec: AgentDeploymentSpec): string[] {
  const names = new Set<string>();
  for (const s of spec.secrets ?? []) if (s.valueFrom) names.add(s.valueFrom.secretKeyRef.name);
  for (const f of spec.secretsFrom ?? []) names.add(f.secretRef.name);
  if (spec.credentialsSecretRef) names.add(spec.credentialsSecretRef.name);
  if (spec.verification?.credentialsSecretRef) names.add(spec.verification.credentialsSecretRef.name);
  return [...names].sort();
}

/**
 * Resolves `secretsFrom` first, then `secrets` (an explicit item wins over a key of the same name, as
 * env does over envFrom). Problems are reported by Secret and key name, never with a value.
 */
export function resolveSecrets(spec: AgentDeploymentSpec, lookup: SecretLookup): SecretResolution {
  const byName = new Map<string, string>();
  const missing: string[] = [];
  const invalid: string[] = [];
  for (const from of spec.secretsFrom ?? []) {
    const data = lookup(from.secretRef.name);
    if (!data) {
      missing.push(`Secret ${from.secretRef.name}`);
      continue;
    }
    for (const [key, value] of Object.entries(data)) {
      const name = `${from.prefix ?? ''}${key}`;
      if (!C_IDENTIFIER.test(name)) {
        invalid.push(`Secret ${from.secretRef.name} key ${key} gives "${name}", not a C identifier`);
        continue;
      }
      byName.set(name, decode(value));
    }
  }
  for (const item of spec.secrets ?? []) {
    if (item.valueFrom) {
      const ref = item.valueFrom.secretKeyRef;
      const data = lookup(ref.name);
      const value = data?.[ref.key];
      if (value === undefined) {
        missing.push(data ? `key ${ref.key} in Secret ${ref.name}` : `Secret ${ref.name}`);
        continue;
      }
      byName.set(item.name, decode(value));
    } else {
      byName.set(item.name, item.value ?? '');
    }
  }
  if (missing.length > 0 || invalid.length > 0) return { ok: false, missing, invalid };
  const secrets = [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => ({ name, value }));
  return { ok: true, secrets };
}

/** The per-object key of the secrets digest: the operator's digest key bound to the object's uid. */
export function objectSecretsKey(digestKey: string, uid: string): string {
  return createHmac('sha256', digestKey).update(uid).digest('hex');
}

/**
 * HMAC-SHA256 over the sorted name/value pairs, keyed per object: comparable between reconciles, useless
 * for guessing a value without the key. Length-prefixed so no two different sets share an input.
 */
export function secretsDigest(key: string, secrets: readonly Secret[]): string {
  const hmac = createHmac('sha256', key);
  for (const { name, value } of [...secrets].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    hmac.update(`${Buffer.byteLength(name)}:${name}${Buffer.byteLength(value)}:${value}`);
  }
  return `hmac-sha256:${hmac.digest('hex').slice(0, 32)}`;
}

/** Plain digest of non-secret values (commands the service does not echo back). */
export function plainDigest(value: unknown): string {
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(value ?? null))
    .digest('hex')
    .slice(0, 32)}`;
}
