/**
 * The three security schemes as alternatives: X-Api-Key, or a bearer token that comes with X-Tenant-Id
 * or X-Organization-Id. Missing credentials are 401, wrong ones 403.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from './http.ts';

export interface AuthConfig {
  apiKeys: ReadonlySet<string>;
  bearerTokens: ReadonlySet<string>;
  /** When set, an X-Tenant-Id that is sent must equal it. */
  tenantId?: string;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Throws the HttpError the request earns, or returns when it is authenticated. */
export function authenticate(headers: IncomingHttpHeaders, config: AuthConfig): void {
  const apiKey = header(headers, 'x-api-key');
  const tenant = header(headers, 'x-tenant-id');
  const organization = header(headers, 'x-organization-id');
  const bearer = /^Bearer\s+(.+)$/i.exec(header(headers, 'authorization') ?? '')?.[1]?.trim();

  if (apiKey !== undefined) {
    if (!config.apiKeys.has(apiKey)) throw new HttpError(403, 'Invalid API key');
  } else if (bearer !== undefined) {
    if (!config.bearerTokens.has(bearer)) throw new HttpError(403, 'Invalid bearer token');
    if (!tenant && !organization) {
      throw new HttpError(401, 'A bearer token must come with an X-Tenant-Id or X-Organization-Id header');
    }
  } else {
    throw new HttpError(401, 'Not authenticated: send X-Api-Key, or Authorization: Bearer with X-Tenant-Id');
  }
  if (config.tenantId !== undefined && tenant !== undefined && tenant !== config.tenantId) {
    throw new HttpError(403, 'X-Tenant-Id does not match a tenant these credentials may use');
  }
}
