// The check of a webhook URL at registration, with the fetcher's own address rules
// (egress-policy.ts): a URL the fetcher would refuse is refused now, with the same 400
// url_not_allowed, rather than failing every delivery later. The fetcher checks again at every
// delivery, since DNS may point the name somewhere else by then.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { assertAddressAllowed, checkUrl, invalidUrl, parseTargetUrl, refused, type EgressPolicy } from '../analysis/egress-policy.ts';
import { systemResolver, type Resolver } from '../analysis/fetcher.ts';
import { isServiceError, type ServiceError } from '../core/errors.ts';

export const MAX_WEBHOOK_URL_CHARS = 2000;
const RESOLVE_TIMEOUT_MS = 5000;

/**
 * Answers the normalised URL, or throws 400 invalid_url / url_not_allowed: https only (http only
 * for a host or range EGRESS_ALLOW opens), no user name or password, no fragment, and a host
 * whose every address the egress rules allow.
 */
export async function checkWebhookUrl(input: string, policy: EgressPolicy, resolver: Resolver = systemResolver): Promise<string> {
  if (input.length > MAX_WEBHOOK_URL_CHARS) throw invalidUrl(`A webhook URL has at most ${MAX_WEBHOOK_URL_CHARS} characters`);
  const url = parseTargetUrl(input);
  const host = checkUrl(url, policy);
  if (url.hash !== '') throw invalidUrl('A webhook URL has no #fragment');
  // http is for the operator's own receivers: a host or range named in EGRESS_ALLOW.
  const httpRefused = (): ServiceError => refused('a webhook URL must use https (http only for hosts in EGRESS_ALLOW)', 'scheme', url.href);
  const plainHttp = url.protocol === 'http:' && !policy.allowHosts.has(host);
  const literal = isIP(host) !== 0;
  // A literal private address is named as such, before its scheme is judged.
  if (literal) assertAddressAllowed(host, policy, undefined, url.href);
  if (plainHttp && (literal ? !inAllowedRange(host, policy) : policy.allowRanges.length === 0)) throw httpRefused();
  const addresses = literal ? [host] : await resolve(host, url, policy, resolver);
  if (plainHttp && !addresses.every((address) => inAllowedRange(address, policy))) throw httpRefused();
  for (const address of addresses) assertAddressAllowed(address, policy, host, url.href);
  return url.href;
}

function inAllowedRange(address: string, policy: EgressPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return policy.allowRanges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits));
}

async function resolve(host: string, url: URL, policy: EgressPolicy, resolver: Resolver): Promise<string[]> {
  const pinned = policy.pins.get(host);
  if (pinned !== undefined) return [pinned];
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([resolver(host), expired]);
    if (found.length === 0) throw new Error('no address');
    return found.map((a) => a.address);
  } catch (error) {
    if (isServiceError(error)) throw error;
    throw invalidUrl(`The webhook host ${host} did not resolve (${url.href}); register a URL whose name resolves to a public address`);
  } finally {
    clearTimeout(timer);
  }
}
