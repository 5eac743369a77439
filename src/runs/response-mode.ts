// How a result goes back to an agent. `compact` (the default) and `full` send it as it is (they
// differ for workflows, whose step payloads `full` adds: part 2); `dataRef` stores it and sends a
// `dataRefId` with a short summary. Whatever the mode, a result over RESULT_SIZE_BOUND characters
// of JSON (about 25,000 tokens) is never sent whole: it is stored and a preview goes back with
// its `dataRefId`, to be read with fetch_payload.
import type { PayloadStore } from './payload-store.ts';

export const RESPONSE_MODES = ['compact', 'full', 'dataRef'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

/** About 25,000 tokens of JSON. */
export const RESULT_SIZE_BOUND = 100_000;
/** The preview sent in place of a result over the bound. */
export const PREVIEW_CHARS = 2_000;

/** The fields a shaped answer carries: the result itself, or a reference to it. */
export interface ShapedResult {
  result?: unknown;
  dataRefId?: string;
  /** what the stored result holds, in one line */
  summary?: string;
  payloadChars?: number;
  payloadExpiresAt?: string;
  /** true when the result was over the size bound: only `preview` (its first characters of JSON) is sent */
  truncated?: boolean;
  preview?: string;
  notes?: string[];
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return `object (${Object.keys(value).length} keys)`;
  if (typeof value === 'string') return `string of ${value.length} characters`;
  return typeof value;
}

/** One line: the top-level fields and what each holds (arrays by length), bounded. */
export function summarize(value: unknown, chars: number): string {
  let inner: string;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    const parts = entries.slice(0, 12).map(([key, v]) => (v !== null && typeof v === 'object' ? `${key}: ${describe(v)}` : `${key}: ${JSON.stringify(v)?.slice(0, 40)}`));
    inner = `{ ${parts.join(', ')}${entries.length > 12 ? `, … ${entries.length - 12} more` : ''} }`;
  } else {
    inner = describe(value);
  }
  const line = `${inner} (${chars} characters of JSON)`;
  return line.length > 600 ? `${line.slice(0, 597)}...` : line;
}

export async function shapeResult(payloads: PayloadStore, accountId: string, result: unknown, mode: ResponseMode): Promise<ShapedResult> {
  const json = JSON.stringify(result) ?? 'null';
  const oversize = json.length > RESULT_SIZE_BOUND;
  if (!oversize && mode !== 'dataRef') return { result };
  const stored = await payloads.put(accountId, json);
  const summary = summarize(result, json.length);
  const head = oversize ? { truncated: true, preview: json.slice(0, PREVIEW_CHARS) } : {};
  if (!stored) {
    return { ...head, summary, payloadChars: json.length, notes: ['The result is too large to keep for fetch_payload; call the operation over REST to receive it whole'] };
  }
  return {
    ...head,
    dataRefId: stored.dataRefId,
    summary,
    payloadChars: stored.chars,
    payloadExpiresAt: stored.expiresAt,
    ...(oversize ? { notes: [`The result is over ${RESULT_SIZE_BOUND} characters of JSON: read it whole with fetch_payload({dataRefId}) in pages`] } : {}),
  };
}
