// What an Idempotency-Key is bound to: a replay must be the very same request, whatever the
// order of its JSON keys.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';

/** What an Idempotency-Key is bound to: the tool, its input, the uploaded file and the delivery. */
export function idempotencyRequestHash(operationId: string, input: unknown, fileSha256: string | undefined, delivery: string | undefined): string {
  return createHash('sha256').update(`${operationId}\n${canonicalJson(input)}\n${fileSha256 ?? ''}\n${delivery ?? ''}`).digest('hex');
}

/**
 * The SHA-256 of a call's file, read from its work folder. Only a call bound to an
 * Idempotency-Key needs it, so it is read then rather than hashed on the way in for every upload.
 */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), hash);
  return hash.digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
