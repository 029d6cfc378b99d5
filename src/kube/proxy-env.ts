/**
 * The proxy the environment names for the API server, read as Go's http.ProxyFromEnvironment reads it
 * (client-go uses that whenever the kubeconfig has no proxy-url): HTTPS_PROXY for an https:// server,
 * HTTP_PROXY for http://, the upper-case name before the lower-case one; a value without a scheme is
 * taken as http://. Never a proxy for localhost or a loopback address, nor for a host NO_PROXY lists:
 * `*` (everything), an IP address or CIDR range, or a domain, each optionally with a port; `foo.com`
 * covers foo.com and its subdomains, `.foo.com` (or `*.foo.com`) the subdomains only.
 */
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { KubeconfigError } from './kubeconfig.ts';

/** The first of the names that is set and not empty, with its name (for messages). */
function variable(env: NodeJS.ProcessEnv, ...names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value) return { name, value };
  }
  return undefined;
}

/** host:port, [v6]:port, or host alone (Go's net.SplitHostPort, leniently). */
function splitHostPort(entry: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] ?? '' };
  const colon = entry.indexOf(':');
  if (colon !== -1 && colon === entry.lastIndexOf(':')) {
    return { host: entry.slice(0, colon), port: entry.slice(colon + 1) };
  }
  return { host: entry, port: '' };
}

/** 127.0.0.0/8 and ::1 (an IPv4-mapped ::ffff:127.x included). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const familyName = (family: number) => (family === 4 ? 'ipv4' : 'ipv6');

function isLoopback(host: string): boolean {
  const family = isIP(host);
  return host === 'localhost' || (family !== 0 && LOOPBACK.check(host, familyName(family)));
}

/** Whether `host` (an address of `family`) lies in the entry's range or is its address. */
function inRange(network: string, bits: number, host: string, family: number): boolean {
  if (isIP(network) !== family) return false;
  const list = new BlockList();
  try {
    list.addSubnet(network, bits, familyName(family));
  } catch {
    return false; // a prefix longer than the address: Go ignores a malformed entry
  }
  return list.check(host, familyName(family));
}

/** Whether NO_PROXY exempts this host (lower case, no brackets) and port. */
function exempt(noProxy: string, host: string, port: string): boolean {
  const family = isIP(host);
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      if (family !== 0 && inRange(cidr[1] ?? '', Number(cidr[2]), host, family)) return true;
      continue;
    }
    const { host: entryHost, port: entryPort } = splitHostPort(entry);
    if (entryHost === '') continue;
    const portMatches = entryPort === '' || entryPort === port;
    const entryFamily = isIP(entryHost);
    if (entryFamily !== 0) {
      const bits = entryFamily === 4 ? 32 : 128;
      if (family !== 0 && portMatches && inRange(entryHost, bits, host, family)) return true;
      continue;
    }
    // foo.com covers itself and its subdomains; .foo.com and *.foo.com the subdomains only.
    const itself = !entryHost.startsWith('.') && !entryHost.startsWith('*.');
    const name = entryHost.replace(/^\*?\./, '');
    const suffix = `.${domainToASCII(name) || name}`;
    if ((host.endsWith(suffix) || (itself && host === suffix.slice(1))) && portMatches) return true;
  }
  return false;
}

/** Go's parseProxy: a full URL, or host[:port] taken as http://. */
function proxyUrl(from: { name: string; value: string }): string {
  const value = from.value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  const url = URL.canParse(withScheme) ? new URL(withScheme) : undefined;
  if (!url || url.hostname === '') {
    throw new KubeconfigError(`${from.name}: "${from.value}" is not a proxy URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KubeconfigError(
      `${from.name}: only http:// and https:// proxies are supported (set NO_PROXY for the API server, or a proxy-url in the kubeconfig)`,
    );
  }
  return url.href;
}

/** The proxy URL for requests to `server`, or undefined for a direct connection. */
export function environmentProxy(env: NodeJS.ProcessEnv, server: string): string | undefined {
  const target = new URL(server);
  const proxy =
    target.protocol === 'https:'
      ? variable(env, 'HTTPS_PROXY', 'https_proxy')
      : variable(env, 'HTTP_PROXY', 'http_proxy');
  if (!proxy) return undefined;
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (isLoopback(host)) return undefined;
  const noProxy = variable(env, 'NO_PROXY', 'no_proxy')?.value ?? '';
  if (exempt(noProxy, host, port)) return undefined;
  return proxyUrl(proxy);
}
