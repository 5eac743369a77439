// Every way to write an IPv4 address that the egress rules must see through: the URL spellings
// WHATWG parsing reads as the same address, and the IPv6 forms that carry it. Generated, so a
// test judges each address of a list in all of them.

function octets(address: string): number[] {
  return address.split('.').map(Number);
}

/** Every way to write an IPv4 address in a URL that WHATWG parsing reads as it (decimal, octal, hex, short forms). */
export function urlSpellings(address: string): string[] {
  const [a = 0, b = 0, c = 0, d = 0] = octets(address);
  const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  return [
    address,
    String(n),
    `0x${n.toString(16)}`,
    [a, b, c, d].map((o) => `0${o.toString(8)}`).join('.'),
    [a, b, c, d].map((o) => `0x${o.toString(16)}`).join('.'),
    `${a}.${(b << 16) + (c << 8) + d}`,
    `${a}.${b}.${(c << 8) + d}`,
    `${address}.`,
  ];
}

/** IPv6 forms that carry the IPv4 address: mapped, compatible, SIIT, NAT64 (both prefixes), 6to4, Teredo (client). */
export function ipv6Forms(address: string): string[] {
  const [a = 0, b = 0, c = 0, d = 0] = octets(address);
  const hi = ((a << 8) | b).toString(16);
  const lo = ((c << 8) | d).toString(16);
  const inv = (x: number): string => (x ^ 0xffff).toString(16);
  return [
    `::ffff:${address}`,
    `::ffff:${hi}:${lo}`,
    `::${address}`,
    `::ffff:0:${address}`,
    `64:ff9b::${hi}:${lo}`,
    `64:ff9b:1::${hi}:${lo}`,
    `2002:${hi}:${lo}::1`,
    `2001:0:4136:e378:8000:63bf:${inv((a << 8) | b)}:${inv((c << 8) | d)}`,
  ];
}
