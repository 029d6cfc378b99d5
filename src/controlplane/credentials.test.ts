import { describe, expect, it } from 'vitest';
import {
  authHeaders,
  Credentials,
  checkCredentials,
  credentialsKey,
  parseCredentials,
} from './credentials.ts';
import { CredentialsConfigError } from './errors.ts';

const BASE = 'https://cp.example.test';

describe('authHeaders', () => {
  it.each<[string, Credentials, Record<string, string>]>([
    ['API key', { baseUrl: BASE, apiKey: 'key-1' }, { 'x-api-key': 'key-1' }],
    [
      'API key with tenant',
      { baseUrl: BASE, apiKey: 'key-1', tenantId: 'ten-1' },
      { 'x-api-key': 'key-1', 'x-tenant-id': 'ten-1' },
    ],
    [
      'bearer with tenant',
      { baseUrl: BASE, bearerToken: 'tok-1', tenantId: 'ten-1' },
      { authorization: 'Bearer tok-1', 'x-tenant-id': 'ten-1' },
    ],
    [
      'API key wins over a bearer token',
      { baseUrl: BASE, apiKey: 'key-1', bearerToken: 'tok-1' },
      { 'x-api-key': 'key-1' },
    ],
  ])('%s', (_name, credentials, expected) => {
    expect(authHeaders(credentials)).toEqual(expected);
  });

  it.each<[string, Credentials, RegExp]>([
    ['bearer without tenant', { baseUrl: BASE, bearerToken: 'tok-secret-1' }, /tenant id/],
    ['nothing to authenticate with', { baseUrl: BASE }, /no API key or bearer token/],
  ])('refuses %s', (_name, credentials, message) => {
    expect(() => authHeaders(credentials)).toThrow(CredentialsConfigError);
    expect(() => authHeaders(credentials)).toThrow(message);
    expect(() => authHeaders(credentials)).not.toThrow(/tok-secret-1/);
  });
});

describe('Credentials schema', () => {
  it.each<[string, unknown]>([
    ['no secret at all', { baseUrl: BASE }],
    ['bearer without tenant', { baseUrl: BASE, bearerToken: 'tok-secret-1' }],
    ['not a URL', { baseUrl: 'cp.example.test', apiKey: 'key-secret-1' }],
    ['not http(s)', { baseUrl: 'ftp://cp.example.test', apiKey: 'key-secret-1' }],
    ['key with a space', { baseUrl: BASE, apiKey: 'key secret-1' }],
    ['empty key', { baseUrl: BASE, apiKey: '' }],
    ['a fragment in the base URL', { baseUrl: `${BASE}/#1`, apiKey: 'key-secret-1' }],
    ['an empty fragment in the base URL', { baseUrl: `${BASE}/#`, apiKey: 'key-secret-1' }],
    ['a query in the base URL', { baseUrl: `${BASE}/?n=1`, apiKey: 'key-secret-1' }],
    ['a user name in the base URL', { baseUrl: 'https://me@cp.example.test', apiKey: 'key-secret-1' }],
    ['an empty user info in the base URL', { baseUrl: 'https://@cp.example.test', apiKey: 'key-secret-1' }],
  ])('refuses %s without quoting a value', (_name, input) => {
    expect(Credentials.safeParse(input).success).toBe(false);
    expect(() => parseCredentials(input as Credentials)).toThrow(CredentialsConfigError);
    try {
      parseCredentials(input as Credentials);
    } catch (err) {
      expect(String((err as Error).message)).not.toMatch(/secret-1/);
    }
  });

  it.each<[string, string, RegExp]>([
    ['a fragment', `${BASE}/#1`, /baseUrl: must not have a fragment/],
    ['a query', `${BASE}?a=1`, /baseUrl: must not have a query/],
    ['user info', 'https://u:p@cp.example.test/', /baseUrl: must not have a user name or password/],
  ])('names the field and the rule for %s', (_name, baseUrl, message) => {
    expect(() => parseCredentials({ baseUrl, apiKey: 'key-1' })).toThrow(message);
  });

  it('trims the newline a Secret value often ends with', () => {
    expect(parseCredentials({ baseUrl: BASE, apiKey: 'key-1\n' }).apiKey).toBe('key-1');
  });
});

describe('checkCredentials', () => {
  it('answers the same fields with the one frozen object it checked first', () => {
    const first = checkCredentials({ baseUrl: `${BASE}/v1`, apiKey: ' key-1\n' });
    const again = checkCredentials({ apiKey: ' key-1\n', baseUrl: `${BASE}/v1` });
    expect(first).toEqual({ data: { baseUrl: `${BASE}/v1`, apiKey: 'key-1' } });
    expect(again).toBe(first);
    if (!('data' in first)) throw new Error('not accepted');
    expect(Object.isFrozen(first.data)).toBe(true);
    expect(() => Object.assign(first.data, { apiKey: 'other' })).toThrow(TypeError);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['no key', { baseUrl: BASE }, ['credentials: either apiKey or bearerToken is required']],
    [
      'a bearer alone',
      { baseUrl: BASE, bearerToken: 'tok-1' },
      ['tenantId: a bearer token must come with a tenant id'],
    ],
    ['a query', { baseUrl: `${BASE}?x=1`, apiKey: 'key-1' }, ['baseUrl: must not have a query (?...)']],
    [
      'a key of another type',
      { baseUrl: BASE, apiKey: 1 },
      ['apiKey: Invalid input: expected string, received number'],
    ],
  ])('names the field and the rule, every time (%s)', (_, given, problems) => {
    expect(checkCredentials(given)).toEqual({ problems });
    expect(checkCredentials({ ...given })).toEqual({ problems });
  });
});

describe('credentialsKey', () => {
  const a: Credentials = { baseUrl: BASE, apiKey: 'key-abcdef-123456' };

  it('is stable for equal credentials', () => {
    expect(credentialsKey({ ...a })).toBe(credentialsKey(a));
  });

  it.each<[string, Credentials]>([
    ['another key', { ...a, apiKey: 'key-abcdef-654321' }],
    ['a tenant', { ...a, tenantId: 't-1' }],
    ['another base URL', { ...a, baseUrl: 'https://other.example.test' }],
    ['the same value as a bearer token', { baseUrl: BASE, bearerToken: a.apiKey, tenantId: 't-1' }],
  ])('differs for %s', (_name, other) => {
    expect(credentialsKey(other)).not.toBe(credentialsKey(a));
  });

  it.each<[string, string]>([
    ['a trailing slash', `${BASE}/`],
    ['trailing slashes after a path', `${BASE}/api//`],
    ['an upper-case host', 'https://CP.example.test'],
    ['the default port', 'https://cp.example.test:443'],
  ])('is one identity whatever the spelling: %s', (_name, baseUrl) => {
    const path = baseUrl.includes('/api') ? '/api' : '';
    expect(credentialsKey({ ...a, baseUrl })).toBe(credentialsKey({ ...a, baseUrl: `${BASE}${path}` }));
  });

  it('is a digest, not the key', () => {
    const key = credentialsKey(a);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(key).not.toContain('abcdef');
  });
});
