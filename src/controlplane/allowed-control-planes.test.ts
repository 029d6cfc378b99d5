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
    // Compared on the decoded path: an encoded letter is that letter.
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/c%70/v1', true],
    // Dot segments are resolved before the comparison (and climb out).
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/../admin', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/%2e%2e/admin', false],
    // Below the prefix here, elsewhere behind a gateway that decodes or strips: refused.
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/..%2fadmin', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/..%2Fadmin', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/%2e%2e%2fadmin', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/..;/admin', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/..%5cadmin', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/..%252fadmin', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/x%3b/admin', false],
    ['https://gw.example.com/cp', undefined, 'https://gw.example.com/cp/x%00', false],
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

  it.each([
    ['https://gw.example.com/cp/..%2fadmin', /%2f, an encoded separator/],
    ['https://gw.example.com/cp/..%5cadmin', /%5c, an encoded separator/],
    ['https://gw.example.com/cp/%2e%2e%2fadmin', /%2e, an encoded separator, dot/],
    ['https://gw.example.com/cp/..;/admin', /carries ';'/],
    ['https://gw.example.com/cp/%zz', /malformed percent-encoding/],
    ['https://other.example.com/cp', /not among the control planes/],
  ])('says why %s is refused', (baseUrl, rule) => {
    const list = controlPlaneAllowList('https://gw.example.com/cp', undefined);
    expect(list.refusal(baseUrl)).toMatch(rule);
    expect(list.allows(baseUrl)).toBe(false);
  });

  it('refuses an entry whose path a gateway could read otherwise', () => {
    expect(() => controlPlaneAllowList('https://gw.example.com/cp%2fv1', undefined)).toThrow(
      /"https:\/\/gw.example.com\/cp%2fv1" is not an allowed control-plane URL: its path carries %2f/,
    );
  });

  it('lists the default first and each entry once', () => {
    expect(
      controlPlaneAllowList('https://b.example.com/, https://api.example.com', 'https://api.example.com')
        .entries,
    ).toEqual(['https://api.example.com', 'https://b.example.com']);
  });
});
