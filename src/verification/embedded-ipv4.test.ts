import { describe, expect, it } from 'vitest';
import { embeddedIpv4, ipv6Groups } from './embedded-ipv4.ts';

describe('ipv6Groups: an IPv6 address as its eight groups', () => {
  it.each<[string, number[] | undefined]>([
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['::1', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['1::', [1, 0, 0, 0, 0, 0, 0, 0]],
    ['1:2:3:4:5:6:7:8', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['1:2:3:4:5:6:1.2.3.4', [1, 2, 3, 4, 5, 6, 0x102, 0x304]],
    ['::ffff:127.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['64:FF9B::A00:1', [0x64, 0xff9b, 0, 0, 0, 0, 0xa00, 1]],
    ['fe80::1%eth0', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ['127.0.0.1', undefined],
    ['1:::2', undefined],
  ])('%s', (address, groups) => {
    expect(ipv6Groups(address)).toEqual(groups);
  });
});

describe('embeddedIpv4: the IPv4 address an IPv6 address carries', () => {
  it.each<[string, string | undefined, string | undefined]>([
    ['::ffff:10.0.0.1', '10.0.0.1', 'IPv4-mapped, ::ffff:0:0/96'],
    ['::ffff:0:a00:1', '10.0.0.1', 'IPv4-translated, ::ffff:0:0:0/96'],
    ['::10.0.0.1', '10.0.0.1', 'IPv4-compatible, ::/96'],
    ['64:ff9b::10.0.0.1', '10.0.0.1', 'NAT64, 64:ff9b::/96'],
    ['2002:a00:1:5::9', '10.0.0.1', '6to4, 2002::/16'],
    ['2a00:1:2:3:200:5efe:a00:1', '10.0.0.1', 'ISATAP, interface id 0:5efe'],
    ['2a00:1:2:3:300:5efe:a00:1', '10.0.0.1', 'ISATAP, interface id 0:5efe'],
    ['64:ff9b:1::a00:1', undefined, undefined],
    ['2a00:1:2:3:400:5efe:a00:1', undefined, undefined],
    ['2606:2800:220:1::1', undefined, undefined],
  ])('%s', (address, ipv4, form) => {
    const carried = embeddedIpv4(address);
    expect(carried?.ipv4).toBe(ipv4);
    expect(carried?.form).toBe(form);
  });
});
