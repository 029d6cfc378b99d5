/**
 * Which control-plane tenant a set of credentials reaches, as a digest of the tenant id and the base URL:
 * ownership claims are exclusive per tenant, and the digest recorded with a deployment tells a deployment
 * gone from its tenant apart from credentials that now point elsewhere. Neither input is a secret; the key
 * and token are left out, so rotating them changes nothing.
 */
import { createHash } from 'node:crypto';
import { type Credentials, normalisedBaseUrl } from './credentials.ts';

export function tenantDigest(c: Pick<Credentials, 'baseUrl' | 'tenantId'>): string {
  const given = JSON.stringify([c.baseUrl, c.tenantId ?? '']);
  const known = digests.get(given);
  if (known !== undefined) return known;
  const fields = JSON.stringify([normalisedBaseUrl(c.baseUrl), c.tenantId ?? '']);
  const digest = `sha256:${createHash('sha256').update(fields).digest('hex').slice(0, 32)}`;
  // Emptied past its bound, not evicted one by one: a process sees a few tenants, not thousands.
  if (digests.size >= DIGESTS_MAX) digests.clear();
  digests.set(given, digest);
  return digest;
}

/**
 * Digests computed, by the fields as given: every pass asks for its tenant's (the claims of each object
 * it reads), and a URL parse and a SHA-256 each time were about a tenth of the CPU of a pass that calls
 * nothing (profiled in a takeover at N = 10,000).
 */
const digests = new Map<string, string>();
const DIGESTS_MAX = 1024;
