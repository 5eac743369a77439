// The integrity seal of a jobReport. verify_task trusts a baseline the host hands back only when
// the seal holds: an HMAC-SHA256 over a canonical JSON of the report, keyed per account, so a
// report edited by hand (a finding dropped to fake progress), cut short in transit, or issued to
// another account (another key) is refused. Canonical means key order cannot change the bytes:
// objects are written with their keys sorted, arrays in order, undefined left out (as JSON does).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The key type the caller passes: a per-account secret (see jobReportKey). */
export type SigningKey = string | Uint8Array;

/** JSON with object keys sorted at every level; the input must be JSON data (no cycles). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/**
 * The key a jobReport of one account is sealed with: the service secret alone would let one account's
 * report pass as another's, so the account id is mixed in. Deterministic, so no key is stored.
 */
export function jobReportKey(serviceSecret: SigningKey, accountId: string): Buffer {
  return createHmac('sha256', serviceSecret).update(`jobReport\u0000${accountId}`).digest();
}

/** hex HMAC-SHA256 of the canonical JSON. */
export function sealOf(value: unknown, key: SigningKey): string {
  return createHmac('sha256', key).update(canonicalJson(value)).digest('hex');
}

/** Constant-time comparison of a claimed seal with the right one. */
export function sealMatches(claimed: string, value: unknown, key: SigningKey): boolean {
  const expected = Buffer.from(sealOf(value, key), 'hex');
  if (!/^[0-9a-f]{64}$/.test(claimed)) return false;
  return timingSafeEqual(Buffer.from(claimed, 'hex'), expected);
}
