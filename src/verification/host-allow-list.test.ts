import { describe, expect, it } from 'vitest';
import { defaultHostAllowList, HostAllowListError, parseHostAllowList } from './host-allow-list.ts';

describe('parseHostAllowList: allows', () => {
  it.each<[string, string, string, boolean]>([
    ['exact host, https on its default port', 'agents.example.com', 'https://agents.example.com/x', true],
    [
      'exact host, https on port 443 written out',
      'agents.example.com',
      'https://agents.example.com:443/',
      true,
    ],
    ['exact host on another port', 'agents.example.com', 'https://agents.example.com:8443', false],
    [
      'exact host over http: the key would travel in clear text',
      'agents.example.com',
      'http://agents.example.com/',
      false,
    ],
    [
      'http on another port under an https entry',
      'agents.example.com',
      'http://agents.example.com:9999/',
      false,
    ],
    [
      'an http:// entry allows http on port 80',
      'http://agents.example.com',
      'http://agents.example.com/',
      true,
    ],
    [
      'an http:// entry does not allow https',
      'http://agents.example.com',
      'https://agents.example.com/',
      false,
    ],
    ['an https:// entry written out', 'https://agents.example.com', 'https://agents.example.com', true],
    ['exact host is case-insensitive', 'Agents.Example.com', 'https://AGENTS.example.com', true],
    ['exact host with a trailing dot in the URL', 'agents.example.com', 'https://agents.example.com./', true],
    ['another host', 'agents.example.com', 'https://evil.example.net', false],
    ['a subdomain of an exact host', 'example.com', 'https://a.example.com', false],
    ['a look-alike suffix', 'example.com', 'https://notexample.com', false],
    ['http host:port, that port', 'http://127.0.0.1:8787', 'http://127.0.0.1:8787/deployments/1', true],
    ['http host:port, another port', 'http://127.0.0.1:8787', 'http://127.0.0.1:9999/', false],
    ['host:port without a scheme is https', '127.0.0.1:8787', 'http://127.0.0.1:8787/', false],
    ['host:443 and https without a port', 'agents.example.com:443', 'https://agents.example.com', true],
    ['host:443 and http without a port', 'agents.example.com:443', 'http://agents.example.com', false],
    ['wildcard, a subdomain', '*.example.com', 'https://a.example.com', true],
    ['wildcard, a subdomain on another port', '*.example.com', 'https://a.example.com:9999', false],
    ['wildcard, a subdomain over http', '*.example.com', 'http://x.example.com:9999/', false],
    ['wildcard, a deeper subdomain', '*.example.com', 'https://a.b.example.com', true],
    ['wildcard, the domain itself', '*.example.com', 'https://example.com', false],
    ['wildcard, a look-alike', '*.example.com', 'https://a.evilexample.com', false],
    ['wildcard with a port', '*.example.com:8443', 'https://a.example.com:8443', true],
    ['wildcard with a port, another port', '*.example.com:8443', 'https://a.example.com', false],
    ['http wildcard with a port', 'http://*.example.com:8080', 'http://a.example.com:8080', true],
    ['IPv6', 'http://[::1]:8080', 'http://[::1]:8080/', true],
    [
      'userinfo does not fool it',
      'agents.example.com',
      'https://agents.example.com@evil.example.net/',
      false,
    ],
    ['several entries', 'a.example.com, b.example.com', 'https://b.example.com', true],
    ['an empty list', '', 'https://agents.example.com', false],
    ['not a URL', 'agents.example.com', 'agents.example.com', false],
    ['not http(s)', 'agents.example.com', 'ftp://agents.example.com', false],
  ])('%s', (_case, list, url, want) => {
    expect(parseHostAllowList(list).allows(url)).toBe(want);
  });
});

describe('parseHostAllowList: refuses', () => {
  it.each<[string, string]>([
    ['another scheme', 'ftp://agents.example.com'],
    ['a path', 'agents.example.com/x'],
    ['a wildcard inside', 'a.*.example.com'],
    ['a bare wildcard', '*'],
    ['a wildcard on a single label', '*.com'],
    ['a bad port', 'agents.example.com:99999'],
    ['a space', 'agents example.com'],
  ])('%s', (_case, list) => {
    expect(() => parseHostAllowList(list)).toThrow(HostAllowListError);
    expect(() => parseHostAllowList(list)).toThrow(/is not an allowed-host entry/);
  });
});

describe('defaultHostAllowList', () => {
  it.each<[string, string | undefined, string[]]>([
    ['a DNS name', 'https://api.example.com', ['https://api.example.com']],
    ['a deeper DNS name', 'https://api.eu.example.com/v2', ['https://api.eu.example.com']],
    ['a two-label name', 'https://example.com', ['https://example.com']],
    ['a port', 'https://api.example.com:8443', ['https://api.example.com:8443']],
    // No label is dropped: a derived wildcard would climb to a public suffix (*.co.uk).
    ['under a public suffix', 'https://acme.co.uk', ['https://acme.co.uk']],
    ['the local simulator', 'http://127.0.0.1:8787', ['http://127.0.0.1:8787']],
    ['localhost', 'http://localhost:8787', ['http://localhost:8787']],
    ['no control plane', undefined, []],
  ])('%s', (_case, controlPlaneUrl, entries) => {
    expect(defaultHostAllowList(controlPlaneUrl).entries).toEqual(entries);
  });

  it.each<[string, string, boolean]>([
    ['the simulator serves agent servers at its own origin', 'http://127.0.0.1:8787/deployments/d1', true],
    ['another port on the same machine', 'http://127.0.0.1:8788/', false],
  ])('simulator: %s', (_case, url, want) => {
    expect(defaultHostAllowList('http://127.0.0.1:8787').allows(url)).toBe(want);
  });

  it.each<[string, string, string, boolean]>([
    ['the control plane itself', 'https://acme.co.uk', 'https://acme.co.uk/ok', true],
    ['a host under the public suffix', 'https://acme.co.uk', 'https://attacker-owned.co.uk/ok', false],
    [
      'a sibling under a shared cloud domain',
      'https://api.example.cloudapp.net',
      'https://evil.cloudapp.net/',
      false,
    ],
    ['a subdomain of the control plane', 'https://api.example.com', 'https://agents.example.com/', false],
  ])('the controller key goes to the exact host only: %s', (_case, controlPlaneUrl, url, want) => {
    expect(defaultHostAllowList(controlPlaneUrl).allows(url)).toBe(want);
  });
});
