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
