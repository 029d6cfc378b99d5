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
 * An IPv6 address that carries an IPv4 address (mapped, NAT64, 6to4 ...: embedded-ipv4.ts) reaches it,
 * so it is judged by the IPv4 address it carries as well as by its own ranges.
 *
 * The administrator can allow ranges, addresses and host names (--agent-server-allowed-internal-addresses):
 * `10.20.0.0/16`, `10.20.3.4`, `fd00::/8`, `agents.internal.example` (that exact host, whatever it
 * resolves to).
 */
import { BlockList, isIP } from 'node:net';
import { embeddedIpv4 } from './embedded-ipv4.ts';

/**
 * Every internal range, with the words a refusal uses for it: the ranges the IANA special-purpose
 * registries (IPv4 and IPv6) mark not globally reachable, and multicast. Two blocks are refused whole
 * although a few entries in them are globally reachable (anycast services, AS112, AMT, ORCHIDv2, DETs in
 * 2001::/23; the PCP and TURN anycasts in 192.0.0.0/24): none is where an agent server runs, and the
 * administrator's setting allows one if need be. Teredo (inside 2001::/23) and the local-use NAT64
 * prefix carry an IPv4 address that cannot be judged from the address, so they are refused whole too.
 * The table test in internal-addresses.test.ts walks both registries.
 */
const INTERNAL: readonly (readonly [kind: string, cidrs: readonly string[]])[] = [
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fec0::/10']],
  ['shared (carrier-grade NAT)', ['100.64.0.0/10']],
  ['multicast or reserved', ['224.0.0.0/4', '240.0.0.0/4', 'ff00::/8']],
  ['an IPv4 tunnel (Teredo)', ['2001::/32']],
  ['local-use NAT64', ['64:ff9b:1::/48']],
  [
    'special-purpose, not globally reachable',
    [
      '192.0.0.0/24',
      '192.0.2.0/24',
      '192.88.99.0/24',
      '198.18.0.0/15',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '100::/64',
      '100:0:0:1::/64',
      '2001::/23',
      '2001:db8::/32',
      '3fff::/20',
      '5f00::/16',
    ],
  ],
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

const internalKind = (address: string, family: 'ipv4' | 'ipv6') =>
  internal.find(([, list]) => list.check(address, family))?.[0];

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

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
  const refusalIn = (address: string, family: 'ipv4' | 'ipv6') =>
    allowedRanges.check(address, family) ? undefined : internalKind(address, family);
  return {
    allowed: entries,
    allowsHost: (hostname) => hosts.has(hostname.toLowerCase().replace(/\.$/, '')),
    refusalOf(address) {
      const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
      const family = isIP(bare);
      if (family === 0) return 'not an IP address';
      if (family === 4) return refusalIn(bare, 'ipv4');
      const carried = embeddedIpv4(bare);
      // A mapped address is the IPv4 address itself: a dual-stack socket connects to that.
      if (carried?.form.startsWith('IPv4-mapped')) return refusalIn(carried.ipv4, 'ipv4');
      if (allowedRanges.check(bare, 'ipv6')) return undefined;
      const kind = internalKind(bare, 'ipv6');
      if (kind || !carried) return kind;
      // It reaches the IPv4 address it carries (through a NAT64, a relay, a tunnel): judged as that.
      const carriedKind = refusalIn(carried.ipv4, 'ipv4');
      return carriedKind && `${carriedKind} (it carries ${carried.ipv4}: ${carried.form})`;
    },
  };
}
