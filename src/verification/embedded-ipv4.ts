/**
 * The IPv4 address an IPv6 address carries, and in which form: an IPv6 address of one of these forms
 * reaches that IPv4 address (a dual-stack socket, a NAT64, a 6to4 relay, a tunnel), so whether it is
 * internal is the IPv4 address's question (internal-addresses.ts).
 *
 * | Form | Prefix | Where the IPv4 address is |
 * |---|---|---|
 * | IPv4-mapped (RFC 4291) | `::ffff:0:0/96` | the last 32 bits |
 * | IPv4-translated (RFC 2765) | `::ffff:0:0:0/96` | the last 32 bits |
 * | IPv4-compatible, deprecated (RFC 4291) | `::/96` | the last 32 bits |
 * | NAT64 well-known prefix (RFC 6052) | `64:ff9b::/96` | the last 32 bits |
 * | 6to4 (RFC 3056) | `2002::/16` | bits 16 to 47 |
 * | ISATAP (RFC 5214) | any /64, interface id `0:5efe` or `200:5efe` (u/g bits free) | the last 32 bits |
 *
 * Forms whose IPv4 address cannot be read from the address alone are internal-addresses.ts's ranges
 * instead: the local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215: its operator chooses where in it the
 * address sits) and Teredo `2001::/32` (its client address goes through a relay). A NAT64 prefix or a 6rd
 * prefix an operator carves from its own global space is indistinguishable from any global address:
 * docs/security.md says what covers it.
 */
import { isIP } from 'node:net';

export interface EmbeddedIpv4 {
  /** The IPv4 address, dotted. */
  ipv4: string;
  /** The form and its prefix, for messages (`NAT64, 64:ff9b::/96`). */
  form: string;
}

/** The eight 16-bit groups of an IPv6 address (no brackets; a zone is dropped), undefined if it is none. */
export function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? 0 : 8 - front.length - back.length;
  return [...front, ...new Array<number>(zeros).fill(0), ...back];
}

const dottedOf = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/** The IPv4 address an IPv6 address carries (see the table above), undefined when it carries none. */
export function embeddedIpv4(address: string): EmbeddedIpv4 | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const last = dottedOf(g6, g7);
  const zeroTo = (end: number) => g.slice(0, end).every((x) => x === 0);
  if (zeroTo(5) && g5 === 0xffff) return { ipv4: last, form: 'IPv4-mapped, ::ffff:0:0/96' };
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return { ipv4: last, form: 'IPv4-translated, ::ffff:0:0:0/96' };
  if (zeroTo(6)) return { ipv4: last, form: 'IPv4-compatible, ::/96' };
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return { ipv4: last, form: 'NAT64, 64:ff9b::/96' };
  }
  if (g0 === 0x2002) return { ipv4: dottedOf(g1, g2), form: '6to4, 2002::/16' };
  if ((g4 & 0xfcff) === 0 && g5 === 0x5efe) return { ipv4: last, form: 'ISATAP, interface id 0:5efe' };
  return undefined;
}
