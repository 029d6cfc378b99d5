/**
 * Control-plane credentials: the headers they turn into, and a key that tells them apart without
 * revealing them.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { BoundedMemo } from '../lib/bounded-memo.ts';
import { CredentialsConfigError } from './errors.ts';

// Trimmed because values read from Secrets often end in a newline; header-safe characters only.
const nonEmpty = z
  .string()
  .trim()
  .regex(/^[\x21-\x7e]+$/, 'must be non-empty printable ASCII without spaces');

/**
 * What a base URL may not carry: nothing but scheme, host, port and path reaches the control plane, so
 * anything else would only tell apart identities that are one (issue 32: `https://cp/#1`, `#2`... minted
 * a limiter, a breaker and a template snapshot each with one key).
 */
export function baseUrlProblem(raw: string): string | undefined {
  if (raw.includes('?')) return 'must not have a query (?...)';
  if (raw.includes('#')) return 'must not have a fragment (#...)';
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(raw.trim()))
    return 'must not have a user name or password (...@)';
  return undefined;
}

const BaseUrl = z.url({ protocol: /^https?$/ }).check((ctx) => {
  const problem = baseUrlProblem(ctx.value);
  if (problem) ctx.issues.push({ code: 'custom', input: ctx.value, message: problem });
});

/** The base URL as the transport uses it: origin and path, without trailing slashes. */
export function normalisedBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** API key, or bearer token with tenant id. Messages never quote a value. */
export const Credentials = z
  .object({
    baseUrl: BaseUrl,
    apiKey: nonEmpty.optional(),
    bearerToken: nonEmpty.optional(),
    tenantId: nonEmpty.optional(),
  })
  .check((ctx) => {
    const c = ctx.value;
    if (c.apiKey === undefined && c.bearerToken === undefined) {
      ctx.issues.push({ code: 'custom', input: c, message: 'either apiKey or bearerToken is required' });
    }
    if (c.apiKey === undefined && c.bearerToken !== undefined && c.tenantId === undefined) {
      ctx.issues.push({
        code: 'custom',
        input: c,
        path: ['tenantId'],
        message: 'a bearer token must come with a tenant id',
      });
    }
  });
export type Credentials = z.infer<typeof Credentials>;

/** The credentials checked by the schema; throws CredentialsConfigError naming what is wrong. */
export function parseCredentials(c: Credentials): Credentials {
  const checked = checkCredentials(c);
  if ('data' in checked) return checked.data;
  throw new CredentialsConfigError(`invalid control-plane credentials: ${checked.problems.join('; ')}`);
}

/** Credentials the schema accepted (frozen: one object answers every check of the same fields), or its problems. */
export type CheckedCredentials = { data: Readonly<Credentials> } | { problems: readonly string[] };

/**
 * The schema's verdict on credentials, each problem as `field: rule` (never a value). Kept by the
 * fields, like computedKeys: a pass checks its credentials three times (resolving them, the pool, the
 * transport), each a URL parse and the schema's checks: done every time, about a tenth of the CPU of a
 * pass that calls nothing.
 */
export function checkCredentials(c: Partial<Record<keyof Credentials, unknown>>): CheckedCredentials {
  const fields = JSON.stringify([c.baseUrl, c.apiKey, c.bearerToken, c.tenantId]);
  return checkedCredentials.get(fields, () => {
    const parsed = Credentials.safeParse(c);
    return parsed.success
      ? { data: Object.freeze(parsed.data) }
      : { problems: parsed.error.issues.map((i) => `${i.path.join('.') || 'credentials'}: ${i.message}`) };
  });
}

/**
 * The authentication headers: X-Api-Key when there is an API key, otherwise Authorization: Bearer
 * (which the control plane accepts only with a tenant id); X-Tenant-Id whenever a tenant id is set.
 * Throws CredentialsConfigError when the credentials cannot authenticate.
 */
export function authHeaders(
  c: Pick<Credentials, 'apiKey' | 'bearerToken' | 'tenantId'>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (c.apiKey) {
    headers['x-api-key'] = c.apiKey;
  } else if (c.bearerToken) {
    if (!c.tenantId) {
      throw new CredentialsConfigError('a bearer token needs a tenant id (X-Tenant-Id); none is configured');
    }
    headers.authorization = `Bearer ${c.bearerToken}`;
  } else {
    throw new CredentialsConfigError('no API key or bearer token is configured');
  }
  if (c.tenantId) headers['x-tenant-id'] = c.tenantId;
  return headers;
}

// A per-process key: the digest cannot be checked against guessed keys outside this process.
const KEY_SECRET = randomBytes(32);

/**
 * A stable (within this process), non-reversible key for per-credential pools and limiters: one identity
 * per normalised origin and path and credentials, the very ones the transport sends. Equal credentials
 * give equal keys; the key contains no part of any credential.
 */
export function credentialsKey(c: Credentials): string {
  const fields = JSON.stringify([c.baseUrl, c.apiKey ?? '', c.bearerToken ?? '', c.tenantId ?? '']);
  return computedKeys.get(fields, () =>
    createHmac('sha256', KEY_SECRET)
      .update(
        JSON.stringify([normalisedBaseUrl(c.baseUrl), c.apiKey ?? '', c.bearerToken ?? '', c.tenantId ?? '']),
      )
      .digest('hex')
      .slice(0, 32),
  );
}

/**
 * Keys already computed, by the credentials' fields (held in memory anyway, in the Secrets cache). A
 * pass asks for its credentials' key several times (the queue's tenant, the claims, the poll), and an
 * HMAC each time would cost about 1 ms of CPU per object converged.
 */
const computedKeys = new BoundedMemo<string>(1024);
/** Verdicts of the schema by the same fields (checkCredentials), bounded alike: a process sees a few credentials. */
const checkedCredentials = new BoundedMemo<CheckedCredentials>(1024);
