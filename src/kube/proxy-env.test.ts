import { describe, expect, it } from 'vitest';
import { KubeconfigError } from './kubeconfig.ts';
import { environmentProxy } from './proxy-env.ts';

const P = 'http://proxy.corp:3128/';
const Q = 'http://other.corp:8080/';

describe("environmentProxy: Go's http.ProxyFromEnvironment", () => {
  it.each<{ name: string; env: NodeJS.ProcessEnv; server: string; proxy: string | undefined }>([
    { name: 'nothing set', env: {}, server: 'https://k.example.com', proxy: undefined },
    { name: 'HTTPS_PROXY for https', env: { HTTPS_PROXY: P }, server: 'https://k.example.com', proxy: P },
    { name: 'https_proxy for https', env: { https_proxy: P }, server: 'https://k.example.com', proxy: P },
    {
      name: 'the upper-case name wins',
      env: { HTTPS_PROXY: P, https_proxy: Q },
      server: 'https://k.example.com',
      proxy: P,
    },
    {
      name: 'an empty upper-case name gives way',
      env: { HTTPS_PROXY: '', https_proxy: Q },
      server: 'https://k.example.com',
      proxy: Q,
    },
    {
      name: 'HTTP_PROXY is not for https',
      env: { HTTP_PROXY: P },
      server: 'https://k.example.com',
      proxy: undefined,
    },
    {
      name: 'HTTP_PROXY for http',
      env: { HTTP_PROXY: P, HTTPS_PROXY: Q },
      server: 'http://k.example.com',
      proxy: P,
    },
    { name: 'http_proxy for http', env: { http_proxy: P }, server: 'http://k.example.com', proxy: P },
    {
      name: 'host:port is http://',
      env: { HTTPS_PROXY: 'proxy.corp:3128' },
      server: 'https://k.example.com',
      proxy: P,
    },
    {
      name: 'an https proxy',
      env: { HTTPS_PROXY: 'https://proxy.corp' },
      server: 'https://k.example.com',
      proxy: 'https://proxy.corp/',
    },
    {
      name: 'never for localhost',
      env: { HTTPS_PROXY: P },
      server: 'https://localhost:6443',
      proxy: undefined,
    },
    { name: 'never for 127.x', env: { HTTPS_PROXY: P }, server: 'https://127.3.0.1:6443', proxy: undefined },
    { name: 'never for ::1', env: { HTTPS_PROXY: P }, server: 'https://[::1]:6443', proxy: undefined },
    {
      name: 'NO_PROXY=*',
      env: { HTTPS_PROXY: P, NO_PROXY: '*' },
      server: 'https://k.example.com',
      proxy: undefined,
    },
    {
      name: 'no_proxy when NO_PROXY is unset',
      env: { HTTPS_PROXY: P, no_proxy: 'k.example.com' },
      server: 'https://k.example.com',
      proxy: undefined,
    },
    ...(
      [
        ['the same name', 'k.example.com', 'https://k.example.com', true],
        ['a parent domain', 'example.com', 'https://k.example.com', true],
        ['a parent domain, any case and spaces', ' other.org , Example.COM ', 'https://K.example.com', true],
        ['not a suffix of the name alone', 'ample.com', 'https://k.example.com', false],
        ['a leading dot: subdomains', '.example.com', 'https://k.example.com', true],
        ['a leading dot: not the domain itself', '.example.com', 'https://example.com', false],
        ['*.domain: subdomains', '*.example.com', 'https://k.example.com', true],
        ['*.domain: not the domain itself', '*.example.com', 'https://example.com', false],
        ['a domain with the port', 'k.example.com:6443', 'https://k.example.com:6443', true],
        ['a domain with another port', 'k.example.com:443', 'https://k.example.com:6443', false],
        ['the default port counts', 'k.example.com:443', 'https://k.example.com', true],
        ['an IP address', '10.0.0.5', 'https://10.0.0.5:6443', true],
        ['another IP address', '10.0.0.6', 'https://10.0.0.5:6443', false],
        ['an IP address with the port', '10.0.0.5:6443', 'https://10.0.0.5:6443', true],
        ['an IP address with another port', '10.0.0.5:443', 'https://10.0.0.5:6443', false],
        ['a CIDR range', '10.96.0.0/12', 'https://10.96.0.1', true],
        ['outside a CIDR range', '10.96.0.0/12', 'https://10.112.0.1', false],
        ['an IPv6 range', 'fd00::/8', 'https://[fd00:10:96::1]:443', true],
        ['an IPv6 address in brackets with a port', '[fd00::1]:443', 'https://[fd00::1]', true],
        ['an IP range does not cover a name', '10.0.0.0/8', 'https://k.example.com', false],
        ['a malformed range is ignored', '10.0.0.0/99', 'https://10.0.0.1', false],
      ] as const
    ).map(([name, noProxy, server, exempt]) => ({
      name: `NO_PROXY ${name}`,
      env: { HTTPS_PROXY: P, NO_PROXY: noProxy },
      server,
      proxy: exempt ? undefined : P,
    })),
  ])('$name', ({ env, server, proxy }) => {
    expect(environmentProxy(env, server)).toBe(proxy);
  });

  it.each<{ name: string; env: NodeJS.ProcessEnv; message: string }>([
    {
      name: 'a socks proxy',
      env: { HTTPS_PROXY: 'socks5://proxy.corp:1080' },
      message:
        'HTTPS_PROXY: only http:// and https:// proxies are supported (set NO_PROXY for the API server, or a proxy-url in the kubeconfig)',
    },
    {
      name: 'not a URL',
      env: { https_proxy: 'http://[oops' },
      message: 'https_proxy: "http://[oops" is not a proxy URL',
    },
  ])('refuses $name, naming the variable', ({ env, message }) => {
    expect(() => environmentProxy(env, 'https://k.example.com')).toThrow(new KubeconfigError(message));
  });

  it('does not read a proxy that NO_PROXY exempts the server from', () => {
    expect(
      environmentProxy({ HTTPS_PROXY: 'socks5://x', NO_PROXY: 'k.example.com' }, 'https://k.example.com'),
    ).toBe(undefined);
  });
});
