// Where a file tool's input file comes from, as one union every surface speaks: an upload the
// surface itself receives (REST's multipart stream), a file the service stored earlier for the
// same account (a fileId), a URL fetched through the egress-safe fetcher, or base64 bytes. Each
// becomes the same ReceivedUpload in the call's work folder, which the file pipeline then types
// and checks like any upload. They are read only once the call is admitted (authenticated,
// authorized, within its rate limit), so an anonymous or throttled caller makes the service
// write or fetch nothing.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EgressFetcher } from '../analysis/fetch-supervisor.ts';
import type { FilePipeline, ReceivedUpload } from '../files/file-pipeline.ts';
import { ServiceError, invalidInput } from './errors.ts';

/** What a surface's own upload reader gives: the file, and form fields that are tool input. */
export interface ReceivedForm {
  fields: Record<string, unknown>;
  upload: ReceivedUpload | undefined;
}

/** What the invoke path asks of a surface's upload reader. */
export interface UploadWants {
  /** the call is bound to an Idempotency-Key: hash the file on its way in (ReceivedUpload.sha256) */
  digest: boolean;
}

export type FileSource =
  /** REST's multipart body: read by the surface (into the work folder) when the invoke path asks */
  | { kind: 'upload'; receive: (workDir: string, wants: UploadWants) => Promise<ReceivedForm> }
  /** a result the same account's earlier call stored, until it expires */
  | { kind: 'stored'; fileId: string }
  /** an http(s) URL, fetched through the egress-safe fetcher within the upload limit */
  | { kind: 'url'; url: string; name?: string | undefined }
  /** the bytes as base64 (standard or URL-safe alphabet), within the upload limit */
  | { kind: 'base64'; data: string; name?: string | undefined };

export interface FileSourceDeps {
  files: FilePipeline;
  fetcher: EgressFetcher | undefined;
  uploadLimitBytes: number;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function tooLarge(limit: number, how: string): ServiceError {
  return new ServiceError(413, 'payload_too_large', 'The file is too large', { detail: `${how}; the limit is ${limit} bytes` });
}

function nameFromUrl(url: string): string {
  const last = new URL(url).pathname.split('/').filter(Boolean).at(-1);
  if (!last) return 'download';
  try {
    return decodeURIComponent(last).slice(0, 200);
  } catch {
    return last.slice(0, 200);
  }
}

async function written(workDir: string, bytes: Buffer, name: string): Promise<ReceivedUpload> {
  const path = join(workDir, 'upload');
  await writeFile(path, bytes, { mode: 0o600 });
  return { path, sizeBytes: bytes.length, originalName: name };
}

/** The bytes of base64 text, refused before decoding when they would exceed the limit. */
export function decodeBase64File(data: string, limitBytes: number): Buffer {
  const text = data.replace(/\s+/g, '');
  if (!BASE64.test(text)) throw invalidInput('The file is not valid base64', [{ field: 'file.base64', message: 'only A-Z, a-z, 0-9, +, /, - and _ with = padding' }]);
  // Checked on the text's length, so an oversized file is refused without being decoded or held twice.
  if (Math.floor((text.length * 3) / 4) > limitBytes) throw tooLarge(limitBytes, `The base64 decodes to about ${Math.floor((text.length * 3) / 4)} bytes`);
  return Buffer.from(text, 'base64');
}

/** Reads the source into `workDir` as the call's upload, for the account `accountId`. */
export async function receiveFileSource(source: FileSource, deps: FileSourceDeps, ctx: { workDir: string; accountId: string; signal?: AbortSignal | undefined; digest?: boolean }): Promise<ReceivedForm> {
  switch (source.kind) {
    case 'upload':
      return source.receive(ctx.workDir, { digest: ctx.digest === true });
    case 'stored':
      return { fields: {}, upload: await deps.files.receiveStored(source.fileId, ctx.accountId, ctx.workDir) };
    case 'base64':
      return { fields: {}, upload: await written(ctx.workDir, decodeBase64File(source.data, deps.uploadLimitBytes), source.name ?? 'upload') };
    case 'url': {
      if (!deps.fetcher) throw new ServiceError(503, 'fetcher_unavailable', 'This service cannot fetch files by URL', { detail: 'Send the file as base64 instead' });
      const facts = await deps.fetcher.fetch(source.url, { account: ctx.accountId, ...(ctx.signal ? { signal: ctx.signal } : {}), limits: { maxBytes: deps.uploadLimitBytes } });
      if (facts.status < 200 || facts.status > 299) {
        throw new ServiceError(422, 'fetch_failed', `The file URL answered HTTP ${facts.status}`, { detail: `${facts.finalUrl} did not give the file`, extra: { phase: 'http', status: facts.status } });
      }
      return { fields: {}, upload: await written(ctx.workDir, facts.body, source.name ?? nameFromUrl(facts.finalUrl)) };
    }
  }
}
