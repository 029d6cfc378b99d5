import { describe, expect, it } from 'vitest';
import { tenantDigest } from './tenant.ts';

describe('tenantDigest', () => {
  const base = { baseUrl: 'https://api.example.com', tenantId: 't-1' };
  it.each<[string, Parameters<typeof tenantDigest>[0], boolean]>([
    ['the same tenant and URL', { ...base }, true],
    ['a trailing slash and upper-case host', { baseUrl: 'https://API.example.com/', tenantId: 't-1' }, true],
    ['another tenant', { ...base, tenantId: 't-2' }, false],
    ['no tenant id', { baseUrl: base.baseUrl }, false],
    ['another base URL', { ...base, baseUrl: 'https://api.example.org' }, false],
    ['another path', { ...base, baseUrl: 'https://api.example.com/v2' }, false],
  ])('%s', (_, other, same) => {
    expect(tenantDigest(other) === tenantDigest(base)).toBe(same);
  });

  it('ignores the key or token (rotating them is not a tenant change) and looks like sha256:<hex>', () => {
    const withKey = { ...base, apiKey: 'k-1' } as Parameters<typeof tenantDigest>[0];
    expect(tenantDigest(withKey)).toBe(tenantDigest(base));
    expect(tenantDigest(base)).toMatch(/^sha256:[0-9a-f]{32}$/);
  });
});
