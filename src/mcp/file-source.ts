// A file for a file tool, as an MCP client can give one: its bytes as base64 in the message, or
// an http(s) URL the service fetches through the egress-safe fetcher (so a private or metadata
// address is refused as everywhere else). Either becomes the same upload a multipart request
// makes: written into the call's work folder, hashed, then typed and checked by the file
// pipeline like any upload. The result is the same file result, with its downloadUrl.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { EgressFetcher } from '../analysis/fetch-supervisor.ts';
import { ServiceError, invalidInput } from '../core/errors.ts';
import type { ReceivedUpload } from '../files/file-pipeline.ts';

export const fileSourceSchema = z
  .object({
    base64: z.string().min(1).optional().describe('The file itself, base64-encoded (standard or URL-safe alphabet)'),
    url: z.string().min(1).max(2048).optional().describe('An http(s) URL of the file, fetched by the service (public addresses only)'),
    name: z.string().min(1).max(200).optional().describe('The file name, used only to name the result'),
  })
  .describe('The file for a file tool: exactly one of base64 or url');
export type FileSource = z.infer<typeof fileSourceSchema>;

export interface FileSourceDeps {
  uploadLimitBytes: number;
  fetcher: EgressFetcher;
  accountId: string;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function tooLarge(limit: number, how: string): ServiceError {
  return new ServiceError(413, 'payload_too_large', 'The file is too large', { detail: `${how}; the limit is ${limit} bytes` });
}

function nameFromUrl(url: string): string {
  const last = new URL(url).pathname.split('/').filter(Boolean).at(-1);
  return last ? decodeURIComponent(last).slice(0, 200) : 'download';
}

async function bytesOf(source: FileSource, deps: FileSourceDeps, signal: AbortSignal | undefined): Promise<{ bytes: Buffer; name: string }> {
  if ((source.base64 === undefined) === (source.url === undefined)) {
    throw invalidInput('Give the file as exactly one of base64 or url', [{ field: 'file', message: 'exactly one of base64 or url is required' }]);
  }
  if (source.base64 !== undefined) {
    const text = source.base64.replace(/\s+/g, '');
    if (!BASE64.test(text)) throw invalidInput('The file is not valid base64', [{ field: 'file.base64', message: 'only A-Z, a-z, 0-9, +, /, - and _ with = padding' }]);
    // Checked before decoding, so an oversized file is refused without being held twice.
    if (Math.floor((text.length * 3) / 4) > deps.uploadLimitBytes) throw tooLarge(deps.uploadLimitBytes, 'The base64 decodes to more');
    return { bytes: Buffer.from(text, 'base64'), name: source.name ?? 'upload' };
  }
  const url = source.url ?? '';
  const facts = await deps.fetcher.fetch(url, { account: deps.accountId, ...(signal ? { signal } : {}), limits: { maxBytes: deps.uploadLimitBytes } });
  if (facts.status < 200 || facts.status > 299) {
    throw new ServiceError(422, 'fetch_failed', `The file URL answered HTTP ${facts.status}`, { detail: `${facts.finalUrl} did not give the file`, extra: { phase: 'http', status: facts.status } });
  }
  return { bytes: facts.body, name: source.name ?? nameFromUrl(facts.finalUrl) };
}

/** The `receive` step of a file tool's call: the source, written into the call's work folder. */
export function receiveFileSource(source: FileSource, deps: FileSourceDeps, signal?: AbortSignal) {
  return async (workDir: string): Promise<{ fields: Record<string, unknown>; upload: ReceivedUpload | undefined }> => {
    const { bytes, name } = await bytesOf(source, deps, signal);
    const path = join(workDir, 'upload');
    await writeFile(path, bytes, { mode: 0o600 });
    return { fields: {}, upload: { path, sizeBytes: bytes.length, originalName: name, sha256: createHash('sha256').update(bytes).digest('hex') } };
  };
}
