// The address rules of the egress-safe fetcher: which URLs, names and addresses it may reach.
// Ranges come from ipaddr.js's range() classification (a maintained table), never from CIDRs
// written here; only the public unicast range passes. IPv6 forms that carry an IPv4 address
// (mapped, compatible, SIIT) are judged by the IPv4 address inside them; the translation
// prefixes (NAT64, 6to4, Teredo) are refused outright, since they reach IPv4 hosts by a route
// this process cannot see.
import ipaddr from 'ipaddr.js';
import { ServiceError } from '../core/errors.ts';

export interface EgressPolicy {
  /** EGRESS_ALLOW hosts (lower-case, no trailing dot), exempt from the name and address rules */
  allowHosts: ReadonlySet<string>;
  /** EGRESS_ALLOW ranges, exempt from the address rules (never from the metadata rule) */
  allowRanges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  /** EGRESS_RESOLVE pins: host to the address connected to instead of asking DNS */
  pins: ReadonlyMap<string, string>;
}

export const EMPTY_POLICY: EgressPolicy = { allowHosts: new Set(), allowRanges: [], pins: new Map() };

/**
 * Cloud metadata endpoints, the one list every egress path is judged by (the fetcher's hops and
 * connects, the lab's requests, URL file sources, webhooks): always refused, even inside an
 * EGRESS_ALLOW range or host or behind an EGRESS_RESOLVE pin, since a range opened for an
 * intranet site must not open the instance's credentials with it. Several are public unicast
 * addresses (Azure's WireServer, Alibaba's), which only this list refuses.
 */
export const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  '169.254.169.254', // AWS, GCP, Azure IMDS, OpenStack, DigitalOcean, Oracle, Hetzner
  '169.254.170.2', // AWS ECS task credentials
  '168.63.129.16', // Azure WireServer (public unicast)
  '100.100.100.200', // Alibaba Cloud
  '169.254.0.23', // Tencent Cloud
  '192.0.0.192', // Oracle Cloud
  'fd00:ec2::254', // AWS IMDS over IPv6
  'fd20:ce::254', // GCP metadata over IPv6
]);
export const METADATA_NAMES: ReadonlySet<string> = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
  'metadata.azure.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);
/** Suffixes that name the local machine or a private network, whatever DNS says of them. */
const LOCAL_SUFFIXES = ['.localhost', '.internal', '.local', '.localdomain', '.home.arpa'];

const RANGE_WORDS: Record<string, string> = {
  loopback: 'loopback',
  private: 'private (RFC 1918)',
  uniqueLocal: 'private (unique local)',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT (RFC 6598)',
  multicast: 'multicast',
  broadcast: 'broadcast',
  unspecified: 'unspecified',
  reserved: 'reserved',
  rfc6052: 'IPv4-translated IPv6 (NAT64)',
  '6to4': 'IPv4-translated IPv6 (6to4)',
  teredo: 'IPv4-translated IPv6 (Teredo)',
};

function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return unbracketed.toLowerCase().replace(/\.+$/, '');
}

/** Reads EGRESS_ALLOW: hosts or CIDRs (a bare address counts as a one-address range). */
export function parseEgressAllow(value: string): Pick<EgressPolicy, 'allowHosts' | 'allowRanges'> {
  const allowHosts = new Set<string>();
  const allowRanges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const entry of value.split(',').map((e) => e.trim()).filter(Boolean)) {
    if (entry.includes('/')) {
      try {
        allowRanges.push(ipaddr.parseCIDR(entry));
      } catch {
        throw new Error(`"${entry}" is not a CIDR range`);
      }
    } else if (ipaddr.isValid(bareHost(entry))) {
      const address = ipaddr.parse(bareHost(entry));
      allowRanges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      allowHosts.add(bareHost(entry));
    }
  }
  return { allowHosts, allowRanges };
}

/** Reads EGRESS_RESOLVE: `host:address` pins, like curl's --resolve (an IPv6 address may be bracketed). */
export function parseEgressResolve(value: string): Map<string, string> {
  const pins = new Map<string, string>();
  for (const entry of value.split(',').map((e) => e.trim()).filter(Boolean)) {
    const colon = entry.indexOf(':');
    const host = colon > 0 ? bareHost(entry.slice(0, colon)) : '';
    const address = colon > 0 ? bareHost(entry.slice(colon + 1)) : '';
    if (host === '' || !ipaddr.isValid(address)) throw new Error(`"${entry}" is not host:address`);
    pins.set(host, ipaddr.parse(address).toString());
  }
  return pins;
}

export function buildEgressPolicy(allow: string, resolve: string): EgressPolicy {
  return { ...parseEgressAllow(allow), pins: parseEgressResolve(resolve) };
}

export function refused(message: string, rule: string, url?: string): ServiceError {
  return new ServiceError(400, 'url_not_allowed', `URL not allowed: ${message}`, {
    detail: message,
    extra: { rule, ...(url === undefined ? {} : { url }) },
  });
}

/** 400 invalid_url: a missing or malformed URL (the one code for both). */
export function invalidUrl(message: string): ServiceError {
  return new ServiceError(400, 'invalid_url', message, { detail: message });
}

/** Parses a caller's URL (WHATWG rules, which also turn 2130706433, 0177.0.0.1 and 0x7f.1 into dotted quads). */
export function parseTargetUrl(input: unknown): URL {
  if (typeof input !== 'string' || input.trim() === '') throw invalidUrl('A url is required: an absolute http or https URL');
  if (!URL.canParse(input)) throw invalidUrl(`"${input.slice(0, 200)}" is not an absolute URL`);
  return new URL(input);
}

function hostAllowed(host: string, policy: EgressPolicy): boolean {
  return policy.allowHosts.has(host);
}

/** The rules on the URL itself: scheme, userinfo and the host's name. Returns the bare host. */
export function checkUrl(url: URL, policy: EgressPolicy): string {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refused(`the scheme ${url.protocol.replace(/:$/, '')} is not allowed (http and https only)`, 'scheme', url.href);
  }
  if (url.username !== '' || url.password !== '') throw refused('a URL with a user name or password is not allowed', 'userinfo', url.href);
  const host = bareHost(url.hostname);
  if (host === '') throw refused('the URL has no host', 'host', url.href);
  // Before the EGRESS_ALLOW exemption: no setting opens a metadata name.
  if (METADATA_NAMES.has(host)) throw refused(`the name ${host} is a cloud metadata endpoint`, 'metadata', url.href);
  if (hostAllowed(host, policy) || ipaddr.isValid(host)) return host;
  if (host === 'localhost' || LOCAL_SUFFIXES.some((s) => host.endsWith(s))) {
    throw refused(`the name ${host} is a local name (localhost, *.localhost, *.internal, *.local)`, 'local-name', url.href);
  }
  // A name without a dot is completed by the resolver's search domains: an intranet host.
  if (!host.includes('.')) throw refused(`the single-label name ${host} is an intranet name`, 'local-name', url.href);
  return host;
}

/** The IPv4 address an IPv6 address carries in its low 32 bits, for the forms that mean "this IPv4 host". */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = address.range();
  if (range === 'ipv4Mapped') return address.toIPv4Address();
  const parts = address.parts;
  const low = (i: number): number => parts[i] ?? 0;
  // SIIT (::ffff:0:a.b.c.d) and the deprecated IPv4-compatible form (::a.b.c.d)
  const siit = range === 'rfc6145';
  const compatible = [0, 1, 2, 3, 4, 5].every((i) => low(i) === 0) && (low(6) !== 0 || low(7) > 1);
  if (!siit && !compatible) return null;
  return new ipaddr.IPv4([low(6) >> 8, low(6) & 0xff, low(7) >> 8, low(7) & 0xff]);
}

/**
 * The metadata address an address is or carries, or null. The translation prefixes are read too
 * (NAT64's low 32 bits, 6to4's bits 16-47, Teredo's server and its inverted client), since an
 * EGRESS_ALLOW range may open them, and no range may open a metadata endpoint.
 */
function metadataIn(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  const candidates = [address.toString()];
  if (address.kind() === 'ipv6') {
    const p = (address as ipaddr.IPv6).parts;
    const word = (i: number): number => p[i] ?? 0;
    const v4 = (high: number, low: number): string => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]).toString();
    const range = address.range();
    // NAT64's well-known and local-use prefixes (64:ff9b::/96, 64:ff9b:1::/48) end in the IPv4 address.
    if (range === 'rfc6052' || (word(0) === 0x64 && word(1) === 0xff9b)) candidates.push(v4(word(6), word(7)));
    if (range === '6to4') candidates.push(v4(word(1), word(2)));
    if (range === 'teredo') candidates.push(v4(word(2), word(3)), v4(word(6) ^ 0xffff, word(7) ^ 0xffff));
  }
  return candidates.find((c) => METADATA_ADDRESSES.has(c)) ?? null;
}

/**
 * Why an address may not be connected to, or null when it may. `of` names the host it came from,
 * so the message reads "the address 127.0.0.1 of localhost is loopback".
 */
export function addressRefusal(addressText: string, policy: EgressPolicy, of?: string): { message: string; rule: string } | null {
  const subject = `the address ${addressText}${of !== undefined && of !== addressText ? ` of ${of}` : ''}`;
  if (!ipaddr.isValid(addressText)) return { message: `${subject} is not an IP address`, rule: 'address' };
  let address = ipaddr.parse(addressText);
  let via = '';
  if (address.kind() === 'ipv6') {
    const inner = embeddedIpv4(address as ipaddr.IPv6);
    if (inner !== null) {
      address = inner;
      via = ` (an IPv6 form of ${inner.toString()})`;
    }
  }
  const metadata = metadataIn(address);
  if (metadata !== null) {
    const form = metadata === address.toString() ? via : ` (a form of ${metadata})`;
    return { message: `${subject}${form} is a cloud metadata endpoint`, rule: 'metadata' };
  }
  const exempt = (of !== undefined && hostAllowed(of, policy)) || policy.allowRanges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
  if (exempt) return null;
  const range = address.range();
  if (range === 'unicast') return null;
  const word = RANGE_WORDS[range] ?? `special-purpose (${range})`;
  return { message: `${subject}${via} is ${word}`, rule: via === '' ? range : `ipv4-embedded-${range}` };
}

/** Throws url_not_allowed when the address is refused. */
export function assertAddressAllowed(address: string, policy: EgressPolicy, of: string | undefined, url?: string): void {
  const refusal = addressRefusal(address, policy, of);
  if (refusal !== null) throw refused(refusal.message, refusal.rule, url);
}
