// The integrity seal of a jobReport. verify_task trusts a baseline the host hands back only when
// the seal holds: an HMAC-SHA256 over a canonical JSON of the report, keyed per account, so a
// report edited by hand (a finding dropped to fake progress), cut short in transit, or issued to
// another account (another key) is refused. Canonical means key order cannot change the bytes:
// objects are written with their keys sorted, arrays in order, undefined left out (as JSON does).
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/** The key type the caller passes: a per-account secret (see jobReportKey). */
export type SigningKey = string | Uint8Array | KeyObject;

/**
 * JSON with object keys sorted at every level; the input must be JSON data (no cycles). Every
 * solve seals a report and every verify checks one, so this is written as one pass of string
 * building (no intermediate arrays per object); its bytes must never change, or issued seals stop
 * holding (test/runs/loop/job-report.test.ts pins them).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      // A hole (never in parsed JSON) is written as nothing, as Array#join writes it.
      if (!(i in value)) continue;
      const item: unknown = value[i];
      out += item === undefined ? 'null' : canonicalJson(item);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${out}}`;
}

/**
 * The key a jobReport of one account is sealed with: the service secret alone would let one account's
 * report pass as another's, so the account id is mixed in. Deterministic, so no key is stored.
 */
export function jobReportKey(serviceSecret: SigningKey, accountId: string): KeyObject {
  // A KeyObject, made once per account: createHmac prepares a key handed over as bytes again on
  // every seal (about three times the cost of the HMAC of a compact report itself).
  return createSecretKey(createHmac('sha256', serviceSecret).update(`jobReport\u0000${accountId}`).digest());
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
