import { describe, expect, it } from 'vitest';
import { InternalAddressListError, internalAddressPolicy } from './internal-addresses.ts';

describe('internal addresses: what a namespace-credential verification may not reach', () => {
  it.each<[string, string, string | undefined]>([
    ['loopback', '127.0.0.1', 'loopback'],
    ['loopback, anywhere in 127/8', '127.255.0.9', 'loopback'],
    ['IPv6 loopback', '::1', 'loopback'],
    ['IPv6 loopback in brackets', '[::1]', 'loopback'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1', 'loopback'],
    ['IPv4-mapped loopback, in hex', '::ffff:7f00:1', 'loopback'],
    ['the metadata service', '169.254.169.254', 'link-local'],
    ['IPv6 link-local', 'fe80::1', 'link-local'],
    ['unspecified', '0.0.0.0', 'unspecified'],
    ['IPv6 unspecified', '::', 'unspecified'],
    ['private 10/8 (a kubeadm service range)', '10.96.0.1', 'private'],
    ['private 172.16/12', '172.31.255.255', 'private'],
    ['private 192.168/16', '192.168.1.1', 'private'],
    ['IPv6 unique-local', 'fd12:3456::1', 'private'],
    ['shared address space', '100.64.0.1', 'shared (carrier-grade NAT)'],
    ['multicast', '224.0.0.1', 'multicast or reserved'],
    ['broadcast', '255.255.255.255', 'multicast or reserved'],
    ['a public address', '93.184.216.34', undefined],
    ['just past 172.16/12', '172.32.0.1', undefined],
    ['a public IPv6 address', '2606:2800:220:1::1', undefined],
    ['not an address', 'example.com', 'not an IP address'],
  ])('%s (%s)', (_case, address, refusal) => {
    expect(internalAddressPolicy().refusalOf(address)).toBe(refusal);
  });

  it.each<[string, string, string, string | undefined]>([
    ['a range allows what is in it', '10.20.0.0/16', '10.20.3.4', undefined],
    ['and nothing outside', '10.20.0.0/16', '10.21.0.1', 'private'],
    ['an address allows itself', '127.0.0.1', '127.0.0.1', undefined],
    ['an IPv6 range', 'fd00::/8', 'fd00::5', undefined],
    ['an IPv6 address in brackets', '[::1]', '::1', undefined],
    ['a mapped address against an IPv4 range', '127.0.0.0/8', '::ffff:127.0.0.1', undefined],
  ])('the administrator allows: %s', (_case, setting, address, refusal) => {
    expect(internalAddressPolicy(setting).refusalOf(address)).toBe(refusal);
  });

  it('allows a named host exactly, in any case, with or without the trailing dot', () => {
    const policy = internalAddressPolicy('Agents.Internal.example., localhost');
    expect(policy.allowed).toEqual(['agents.internal.example', 'localhost']);
    expect(policy.allowsHost('agents.internal.example')).toBe(true);
    expect(policy.allowsHost('AGENTS.internal.example.')).toBe(true);
    expect(policy.allowsHost('x.agents.internal.example')).toBe(false);
    expect(policy.allowsHost('127.0.0.1')).toBe(false);
  });

  it.each(['10.0.0.0/33', '10.0.0.0/8/1', '10.0.0.0/x', 'http://10.0.0.1', '*.internal', 'a b'])(
    'refuses the entry %s, naming it',
    (entry) => {
      expect(() => internalAddressPolicy(`127.0.0.1,${entry}`)).toThrow(InternalAddressListError);
      expect(() => internalAddressPolicy(entry)).toThrow(`"${entry.toLowerCase()}" is not an address`);
    },
  );
});

/** What the special-purpose ranges are refused as. */
const SPECIAL = 'special-purpose, not globally reachable';

/** The refusal's kind, without what a carried IPv4 address adds to it. */
const kindOf = (refusal: string | undefined) => refusal?.replace(/ \(it carries .*\)$/, '');

describe('hole 5: IPv6 forms that carry an IPv4 address are judged by the address they carry', () => {
  it.each<[string, string, string | undefined]>([
    // NAT64, the well-known prefix (RFC 6052): a NAT64 reaches the IPv4 address in the last 32 bits.
    ['NAT64 of a private address', '64:ff9b::10.0.0.1', 'private'],
    ['NAT64 of loopback, in hex', '64:ff9b::7f00:1', 'loopback'],
    ['NAT64 of the metadata service', '64:ff9b::169.254.169.254', 'link-local'],
    ['NAT64 of 192.168/16, written out', '64:ff9b:0:0:0:0:c0a8:101', 'private'],
    ['NAT64 of a public address', '64:ff9b::8.8.8.8', undefined],
    // The local-use NAT64 prefix (RFC 8215): where the address sits is its operator's choice.
    ['local-use NAT64, whatever it carries', '64:ff9b:1::8.8.8.8', 'local-use NAT64'],
    ['local-use NAT64, a /64 inside it', '64:ff9b:1:ffff::a00:1', 'local-use NAT64'],
    // 6to4 (RFC 3056): the IPv4 address is bits 16 to 47.
    ['6to4 of a private address', '2002:a00:1::1', 'private'],
    ['6to4 of loopback', '2002:7f00:1::', 'loopback'],
    ['6to4 of the metadata service', '2002:a9fe:a9fe:1::1', 'link-local'],
    ['6to4 of a public address', '2002:808:808::1', undefined],
    // IPv4-compatible (RFC 4291, deprecated): the last 32 bits.
    ['IPv4-compatible private', '::10.0.0.1', 'private'],
    ['IPv4-compatible loopback', '::127.0.0.1', 'loopback'],
    ['IPv4-compatible metadata service, in hex', '::a9fe:a9fe', 'link-local'],
    ['IPv4-compatible public', '::8.8.8.8', undefined],
    // IPv4-translated (RFC 2765, SIIT): the last 32 bits.
    ['IPv4-translated private', '::ffff:0:10.0.0.1', 'private'],
    ['IPv4-translated loopback, in hex', '::ffff:0:7f00:1', 'loopback'],
    ['IPv4-translated public', '::ffff:0:8.8.8.8', undefined],
    // IPv4-mapped (RFC 4291): the address itself on a dual-stack socket.
    ['IPv4-mapped private', '::ffff:10.0.0.1', 'private'],
    ['IPv4-mapped, upper case', '::FFFF:127.0.0.1', 'loopback'],
    ['IPv4-mapped, written out', '0:0:0:0:0:ffff:a9fe:a9fe', 'link-local'],
    ['IPv4-mapped public', '::ffff:8.8.8.8', undefined],
    // ISATAP (RFC 5214): interface id 0:5efe or 200:5efe and the IPv4 address, in any /64.
    ['ISATAP carrying a private address', '2a00:1450:1:2:200:5efe:a00:1', 'private'],
    ['ISATAP carrying loopback', '2a00:1450:1:2:0:5efe:127.0.0.1', 'loopback'],
    ['ISATAP carrying a public address', '2a00:1450:1:2:200:5efe:808:808', undefined],
    ['ISATAP in link-local: link-local', 'fe80::5efe:a00:1', 'link-local'],
    // Teredo (RFC 4380): its client address goes through a relay, so 2001::/32 is refused whole.
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'an IPv4 tunnel (Teredo)'],
    ['Teredo in brackets', '[2001::1]', 'an IPv4 tunnel (Teredo)'],
    ['with a zone id', 'fe80::1%eth0', 'link-local'],
  ])('%s (%s)', (_case, address, kind) => {
    expect(kindOf(internalAddressPolicy().refusalOf(address))).toBe(kind);
  });

  it('a refusal names the IPv4 address carried and the form', () => {
    expect(internalAddressPolicy().refusalOf('64:ff9b::a00:1')).toBe(
      'private (it carries 10.0.0.1: NAT64, 64:ff9b::/96)',
    );
    expect(internalAddressPolicy().refusalOf('2002:a9fe:a9fe::1')).toBe(
      'link-local (it carries 169.254.169.254: 6to4, 2002::/16)',
    );
  });

  it.each<[string, string, string, string | undefined]>([
    ['an IPv4 range allows what a NAT64 address carries', '10.20.0.0/16', '64:ff9b::10.20.3.4', undefined],
    ['and not beyond it', '10.20.0.0/16', '64:ff9b::10.21.3.4', 'private'],
    ['an IPv6 range allows its own addresses', '64:ff9b::/96', '64:ff9b::10.0.0.1', undefined],
    ['the local-use NAT64 prefix, allowed by name', '64:ff9b:1::/48', '64:ff9b:1::a00:1', undefined],
  ])('the administrator allows: %s', (_case, setting, address, kind) => {
    expect(kindOf(internalAddressPolicy(setting).refusalOf(address))).toBe(kind);
  });
});

describe('hole 5: every entry of the IANA special-purpose address registries', () => {
  // IANA IPv4 Special-Purpose Address Registry (and the IPv4 multicast space): prefix, name, an address
  // in it, what it is refused as (undefined: globally reachable, allowed).
  it.each<[string, string, string, string | undefined]>([
    ['0.0.0.0/8', '"This network"', '0.1.2.3', 'unspecified'],
    ['0.0.0.0/32', '"This host on this network"', '0.0.0.0', 'unspecified'],
    ['10.0.0.0/8', 'Private-Use', '10.1.2.3', 'private'],
    ['100.64.0.0/10', 'Shared Address Space', '100.127.255.254', 'shared (carrier-grade NAT)'],
    ['127.0.0.0/8', 'Loopback', '127.1.2.3', 'loopback'],
    ['169.254.0.0/16', 'Link Local', '169.254.169.254', 'link-local'],
    ['172.16.0.0/12', 'Private-Use', '172.20.0.1', 'private'],
    ['192.0.0.0/24', 'IETF Protocol Assignments', '192.0.0.100', SPECIAL],
    ['192.0.0.0/29', 'IPv4 Service Continuity Prefix', '192.0.0.1', SPECIAL],
    ['192.0.0.8/32', 'IPv4 dummy address', '192.0.0.8', SPECIAL],
    // Globally reachable, refused with their /24: no agent server runs on an anycast of these.
    ['192.0.0.9/32', 'Port Control Protocol Anycast', '192.0.0.9', SPECIAL],
    ['192.0.0.10/32', 'Traversal Using Relays around NAT Anycast', '192.0.0.10', SPECIAL],
    ['192.0.0.170/32', 'NAT64/DNS64 Discovery', '192.0.0.170', SPECIAL],
    ['192.0.0.171/32', 'NAT64/DNS64 Discovery', '192.0.0.171', SPECIAL],
    ['192.0.2.0/24', 'Documentation (TEST-NET-1)', '192.0.2.1', SPECIAL],
    ['192.31.196.0/24', 'AS112-v4', '192.31.196.1', undefined],
    ['192.52.193.0/24', 'AMT', '192.52.193.1', undefined],
    ['192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)', '192.88.99.1', SPECIAL],
    ['192.168.0.0/16', 'Private-Use', '192.168.0.1', 'private'],
    ['192.175.48.0/24', 'Direct Delegation AS112 Service', '192.175.48.1', undefined],
    ['198.18.0.0/15', 'Benchmarking', '198.19.255.1', SPECIAL],
    ['198.51.100.0/24', 'Documentation (TEST-NET-2)', '198.51.100.1', SPECIAL],
    ['203.0.113.0/24', 'Documentation (TEST-NET-3)', '203.0.113.1', SPECIAL],
    ['224.0.0.0/4', 'Multicast (IPv4 Multicast Address Space)', '239.1.2.3', 'multicast or reserved'],
    ['240.0.0.0/4', 'Reserved', '240.0.0.1', 'multicast or reserved'],
    ['255.255.255.255/32', 'Limited Broadcast', '255.255.255.255', 'multicast or reserved'],
  ])('IPv4 %s, %s (%s)', (_prefix, _name, address, kind) => {
    expect(internalAddressPolicy().refusalOf(address)).toBe(kind);
  });

  // IANA IPv6 Special-Purpose Address Registry (and the multicast and deprecated site-local blocks of the
  // IPv6 Address Space registry): prefix, name, an address in it, what it is refused as.
  it.each<[string, string, string, string | undefined]>([
    ['::1/128', 'Loopback Address', '::1', 'loopback'],
    ['::/128', 'Unspecified Address', '::', 'unspecified'],
    ['::ffff:0:0/96', 'IPv4-mapped Address (private carried)', '::ffff:192.168.0.1', 'private'],
    ['::ffff:0:0/96', 'IPv4-mapped Address (public carried)', '::ffff:93.184.216.34', undefined],
    ['64:ff9b::/96', 'IPv4-IPv6 Translat. (private carried)', '64:ff9b::172.16.0.1', 'private'],
    ['64:ff9b::/96', 'IPv4-IPv6 Translat. (public carried)', '64:ff9b::93.184.216.34', undefined],
    ['64:ff9b:1::/48', 'IPv4-IPv6 Translat. (local-use)', '64:ff9b:1::93.184.216.34', 'local-use NAT64'],
    ['100::/64', 'Discard-Only Address Block', '100::1', SPECIAL],
    ['100:0:0:1::/64', 'Dummy IPv6 Prefix', '100:0:0:1::1', SPECIAL],
    ['2001::/23', 'IETF Protocol Assignments', '2001:1ff::1', SPECIAL],
    ['2001::/32', 'TEREDO', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'an IPv4 tunnel (Teredo)'],
    // Globally reachable, refused with 2001::/23: no agent server runs on these.
    ['2001:1::1/128', 'Port Control Protocol Anycast', '2001:1::1', SPECIAL],
    ['2001:1::2/128', 'Traversal Using Relays around NAT Anycast', '2001:1::2', SPECIAL],
    ['2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast', '2001:1::3', SPECIAL],
    ['2001:2::/48', 'Benchmarking', '2001:2::1', SPECIAL],
    ['2001:3::/32', 'AMT', '2001:3::1', SPECIAL],
    ['2001:4:112::/48', 'AS112-v6', '2001:4:112::1', SPECIAL],
    ['2001:10::/28', 'Deprecated (previously ORCHID)', '2001:10::1', SPECIAL],
    ['2001:20::/28', 'ORCHIDv2', '2001:20::1', SPECIAL],
    ['2001:30::/28', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', '2001:30::1', SPECIAL],
    ['2001:db8::/32', 'Documentation', '2001:db8::1', SPECIAL],
    ['2002::/16', '6to4 (private carried)', '2002:c0a8:1::1', 'private'],
    ['2002::/16', '6to4 (public carried)', '2002:5db8:d822::1', undefined],
    ['2620:4f:8000::/48', 'Direct Delegation AS112 Service', '2620:4f:8000::1', undefined],
    ['3fff::/20', 'Documentation', '3fff:fff::1', SPECIAL],
    ['5f00::/16', 'Segment Routing (SRv6) SIDs', '5f00::1', SPECIAL],
    ['fc00::/7', 'Unique-Local', 'fd00::1', 'private'],
    ['fe80::/10', 'Link-Local Unicast', 'fe80::1', 'link-local'],
    ['fec0::/10', 'Site-local, deprecated (IPv6 Address Space)', 'fec0::1', 'private'],
    ['ff00::/8', 'Multicast (IPv6 Address Space)', 'ff02::1', 'multicast or reserved'],
  ])('IPv6 %s, %s (%s)', (_prefix, _name, address, kind) => {
    expect(kindOf(internalAddressPolicy().refusalOf(address))).toBe(kind);
  });
});
