/**
 * Which control-plane tenant a set of credentials reaches, as a digest of the tenant id and the base URL:
 * ownership claims are exclusive per tenant, and the digest recorded with a deployment tells a deployment
 * gone from its tenant apart from credentials that now point elsewhere. Neither input is a secret; the key
 * and token are left out, so rotating them changes nothing.
 */
import { createHash } from 'node:crypto';
import { BoundedMemo } from '../lib/bounded-memo.ts';
import { type Credentials, normalisedBaseUrl } from './credentials.ts';

export function tenantDigest(c: Pick<Credentials, 'baseUrl' | 'tenantId'>): string {
  return digests.get(JSON.stringify([c.baseUrl, c.tenantId ?? '']), () => {
    const fields = JSON.stringify([normalisedBaseUrl(c.baseUrl), c.tenantId ?? '']);
    return `sha256:${createHash('sha256').update(fields).digest('hex').slice(0, 32)}`;
  });
}

/**
 * Digests computed, by the fields as given: every pass asks for its tenant's (the claims of each object
 * it reads), and a URL parse and a SHA-256 each time would be about a tenth of the CPU of a pass that
 * calls nothing. A process sees a few tenants, not thousands.
 */
const digests = new BoundedMemo<string>(1024);
