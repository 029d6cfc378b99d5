import { describe, expect, it } from 'vitest';
import { ControlPlaneAllowListError, controlPlaneAllowList } from './allowed-control-planes.ts';

describe('controlPlaneAllowList', () => {
  it.each<[string, string | undefined, string, boolean]>([
    // No list: only the default credentials' URL.
    ['', 'https://api.example.com', 'https://api.example.com', true],
    ['', 'https://api.example.com', 'https://api.example.com/', true],
    ['', 'https://api.example.com', 'https://API.example.com:443', true],
    ['', 'https://api.example.com', 'https://evil.example.com', false],
    ['', 'https://api.example.com', 'http://api.example.com', false],
    ['', 'https://api.example.com', 'https://api.example.com:8443', false],
    ['', undefined, 'https://api.example.com', false],
    // Scheme and port are part of the match; no port means the scheme's default.
    ['https://cp.internal', undefined, 'https://cp.internal', true],
    ['https://cp.internal', undefined, 'http://cp.internal', false],
    ['https://cp.internal', undefined, 'https://cp.internal:9999', false],
    ['http://127.0.0.1:8080', undefined, 'http://127.0.0.1:8080', true],
    ['http://127.0.0.1:8080', undefined, 'http://127.0.0.1:8081', false],
    ['http://127.0.0.1:8080', undefined, 'https://127.0.0.1:8080', false],
    // A path allows itself and what is below it, not a sibling that shares a prefix.
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp', true],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/v1/', true],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cpx', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/', false],
    // Several entries, and the default beside them.
    [
      'https://a.example.com, https://b.example.com',
      'https://api.example.com',
      'https://b.example.com',
      true,
    ],
    [
      'https://a.example.com, https://b.example.com',
      'https://api.example.com',
      'https://api.example.com',
      true,
    ],
    // Not a URL.
    ['https://a.example.com', undefined, 'not a url', false],
  ])('list %j, default %j: %s allowed is %s', (listed, defaultUrl, baseUrl, allowed) => {
    expect(controlPlaneAllowList(listed, defaultUrl).allows(baseUrl)).toBe(allowed);
  });

  it.each([
    ['api.example.com', /absolute URL/],
    ['ftp://api.example.com', /scheme must be https or http/],
    ['https://user:pw@api.example.com', /user or password/],
    ['https://api.example.com/?x=1', /query or fragment/],
  ])('refuses the entry %s, naming it and the rule', (entry, rule) => {
    expect(() => controlPlaneAllowList(entry, undefined)).toThrow(ControlPlaneAllowListError);
    expect(() => controlPlaneAllowList(entry, undefined)).toThrow(rule);
    expect(() => controlPlaneAllowList(entry, undefined)).toThrow(entry);
  });

  it('lists the default first and each entry once', () => {
    expect(
      controlPlaneAllowList('https://b.example.com/, https://api.example.com', 'https://api.example.com')
        .entries,
    ).toEqual(['https://api.example.com', 'https://b.example.com']);
  });
});
