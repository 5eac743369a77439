/**
 * bench:conversions' calls to the service (bench/conversions.bench.ts and its throughput section,
 * conversion-throughput.ts): one multipart upload until the JSON answer, timed from the first byte
 * sent to the last byte of the answer, and the download of a result by its signed link.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { upload } from '../../test/support/http.ts';

export interface Ctx {
  base: string;
  /** the first bench account's key */
  apiKey: string;
  work: string;
}

export interface UploadFile {
  name: string;
  content: Buffer | string;
  type: string;
}

export interface ServiceCall {
  ms: number;
  status: number;
  body: { result?: { downloadUrl?: string; mimeType?: string; sizeBytes?: number }; error?: unknown } | undefined;
  text: string;
}

/** One conversion with `apiKey` (default: the context's, the first account's). */
export async function convert(ctx: Ctx, path: string, file: UploadFile, apiKey = ctx.apiKey): Promise<ServiceCall> {
  const t0 = performance.now();
  const res = await upload(ctx.base, path, apiKey, file);
  const text = await res.text();
  const ms = performance.now() - t0;
  let body: ServiceCall['body'];
  try {
    body = JSON.parse(text) as ServiceCall['body'];
  } catch {
    body = undefined;
  }
  return { ms, status: res.status, body, text };
}

export function isPdfAnswer(call: ServiceCall): boolean {
  return call.status === 200 && call.body?.result?.mimeType === 'application/pdf';
}

export function expectOk(what: string, call: ServiceCall): void {
  if (!isPdfAnswer(call)) throw new Error(`${what} answered ${call.status}: ${call.text.slice(0, 500)}`);
}

/** Downloads a result by its signed link (path and query against the bench's base URL) to a file. */
export async function download(ctx: Ctx, call: ServiceCall, fileName: string): Promise<string> {
  const link = call.body?.result?.downloadUrl;
  if (!link) throw new Error(`no downloadUrl in the answer: ${call.text.slice(0, 300)}`);
  const url = new URL(link);
  const res = await fetch(`${ctx.base}${url.pathname}${url.search}`);
  if (res.status !== 200) throw new Error(`download of ${url.pathname} answered ${res.status}`);
  const path = join(ctx.work, fileName);
  writeFileSync(path, Buffer.from(await res.arrayBuffer()));
  return path;
}
