/**
 * Which addresses verification with a namespace's own credentials may not reach: the controller's pod
 * sits inside the cluster, so a URL a namespace chooses could otherwise point its requests at the node's
 * metadata service (169.254.169.254), the pod itself, or a service no namespace should call (SSRF).
 *
 * "Internal" is decided from the address alone. The cluster's pod and service ranges are not known to
 * the controller (nothing in the API tells it the service CIDR), so the private ranges where clusters put
 * them stand in for them: RFC 1918 (10/8, 172.16/12, 192.168/16), the shared address space some clouds
 * use for pods (100.64/10) and IPv6 unique-local (fc00::/7). A cluster whose ranges are public addresses
 * (GKE's 34.118.224.0/20 service range, for one) is not covered: docs/security.md says what to do.
 *
 * The administrator can allow ranges, addresses and host names (--agent-server-allowed-internal-addresses):
 * `10.20.0.0/16`, `10.20.3.4`, `fd00::/8`, `agents.internal.example` (that exact host, whatever it
 * resolves to).
 */
import { BlockList, isIP } from 'node:net';

/** Every internal range, with the words a refusal uses for it. */
const INTERNAL: readonly (readonly [kind: string, cidrs: readonly string[]])[] = [
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fec0::/10']],
  ['shared (carrier-grade NAT)', ['100.64.0.0/10']],
  ['multicast or reserved', ['224.0.0.0/4', '240.0.0.0/4', 'ff00::/8']],
];

export const ALLOWED_INTERNAL_SETTING = '--agent-server-allowed-internal-addresses';

export class InternalAddressListError extends Error {}

export interface InternalAddressPolicy {
  /** The allow-list entries as written (normalised), for messages. */
  readonly allowed: readonly string[];
  /** Whether requests to this host name skip the address check (the administrator named it). */
  allowsHost(hostname: string): boolean;
  /** Why this IP address may not be reached (e.g. "loopback"); undefined when it may. */
  refusalOf(address: string): string | undefined;
}

interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefixText, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? String(max)) || prefix > max) return undefined;
  return { address, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

function blockListOf(cidrs: readonly Cidr[]): BlockList {
  const list = new BlockList();
  for (const c of cidrs) list.addSubnet(c.address, c.prefix, c.family);
  return list;
}

const internal = INTERNAL.map(
  ([kind, cidrs]) => [kind, blockListOf(cidrs.map((c) => parseCidr(c) as Cidr))] as const,
);

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** IPv4 written inside IPv6 (::ffff:127.0.0.1) is the IPv4 address it carries. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return { address: mapped[1] as string, family: 'ipv4' };
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(bare)) {
    const [hi = 0, lo = 0] = bare
      .slice(7)
      .split(':')
      .map((h) => Number.parseInt(h, 16));
    return { address: [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.'), family: 'ipv4' };
  }
  return { address: bare, family: isIP(bare) === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * The policy from the administrator's comma-separated list (CIDR ranges, addresses, host names); throws
 * InternalAddressListError naming the entry that is none of these.
 */
export function internalAddressPolicy(value = ''): InternalAddressPolicy {
  const entries = value
    .split(',')
    .map((s) => s.trim().toLowerCase().replace(/\.$/, ''))
    .filter(Boolean);
  const ranges: Cidr[] = [];
  const hosts = new Set<string>();
  for (const entry of entries) {
    const bare = entry.replace(/^\[([^\]]*)\]/, '$1');
    const cidr = parseCidr(bare);
    if (cidr) ranges.push(cidr);
    else if (HOST_NAME.test(entry)) hosts.add(entry);
    else {
      throw new InternalAddressListError(
        `"${entry}" is not an address, a CIDR range (10.0.0.0/8, fd00::/8) or a host name`,
      );
    }
  }
  const allowedRanges = blockListOf(ranges);
  return {
    allowed: entries,
    allowsHost: (hostname) => hosts.has(hostname.toLowerCase().replace(/\.$/, '')),
    refusalOf(address) {
      const ip = unmapped(address);
      if (isIP(ip.address) === 0) return 'not an IP address';
      if (allowedRanges.check(ip.address, ip.family)) return undefined;
      return internal.find(([, list]) => list.check(ip.address, ip.family))?.[0];
    },
  };
}
