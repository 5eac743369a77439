// Output written under a size bound, refused the moment it passes it rather than after: a small
// document can expand enormously (a YAML alias of a 10 MB string used 100 times, a deep document
// pretty-printed with its indentation, a sparse JSON array laid out as CSV rows x columns), and
// building that whole text first is what grew the server by gigabytes.
import { ServiceError } from '../../core/errors.ts';

/**
 * The longest text a web conversion writes, in UTF-16 code units: under the service's default
 * 100 MB output limit for ordinary text, and far below what a compute worker's heap holds.
 */
export const MAX_OUTPUT_CHARS = 64 * 1024 * 1024;

export function outputTooLarge(what: string, limit: number, detail?: string): ServiceError {
  return new ServiceError(422, 'output_too_large', 'The result is larger than the output limit', {
    detail: detail ?? `the ${what} would be longer than ${limit} characters; split the input`,
    extra: { maxChars: limit },
  });
}

/** Text built piece by piece that refuses (422 output_too_large) as soon as it passes `limit` characters. */
export class BoundedText {
  #text = '';
  readonly limit: number;
  readonly what: string;

  constructor(what: string, limit: number = MAX_OUTPUT_CHARS) {
    this.what = what;
    this.limit = limit;
  }

  get length(): number {
    return this.#text.length;
  }

  push(piece: string): void {
    if (this.#text.length + piece.length > this.limit) throw outputTooLarge(this.what, this.limit);
    this.#text += piece;
  }

  toString(): string {
    return this.#text;
  }
}

/**
 * `JSON.stringify(value, null, 2)` written into `out`, so a value whose text would pass the bound
 * is refused while it is written. Binary data (YAML !!binary) is written as a base64 string and a
 * bigint as its decimal string; anything else as JSON.stringify writes it.
 */
export function writeJson(value: unknown, out: BoundedText, indent = ''): void {
  if (value instanceof Uint8Array) return out.push(JSON.stringify(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')));
  if (typeof value === 'bigint') return out.push(JSON.stringify(value.toString()));
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') value = (value as { toJSON(): unknown }).toJSON();
  if (value === null || typeof value !== 'object') return out.push(JSON.stringify(value) ?? 'null');
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return out.push('[]');
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      out.push(i === 0 ? `\n${inner}` : `,\n${inner}`);
      const item: unknown = value[i];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') out.push('null');
      else writeJson(item, out, inner);
    }
    return out.push(`\n${indent}]`);
  }
  let first = true;
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    out.push(`${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `);
    first = false;
    writeJson(item, out, inner);
  }
  out.push(first ? '{}' : `\n${indent}}`);
}

/** writeJson into a fresh bound, with the final line break the converters end with. */
export function boundedJson(value: unknown, what: string, limit: number = MAX_OUTPUT_CHARS): string {
  const out = new BoundedText(what, limit);
  writeJson(value, out);
  out.push('\n');
  return out.toString();
}
