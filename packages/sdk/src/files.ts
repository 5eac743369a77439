// Files in and out: the multipart body of a file tool from whatever the caller holds, and the
// bytes behind a result's presigned downloadUrl (fetched without the key: the signature is the
// authorization, and a key must never travel to a link that may be shared).
import { ToolServiceError, isRecord } from './errors.ts';
import { apiPromise, formValue, send, type APIPromise, type HttpContext, type RequestOptions } from './http.ts';

/**
 * A file to upload: a Blob or File, bytes (Buffer, Uint8Array, ArrayBuffer), or a stream (a Node
 * Readable such as fs.createReadStream, a web ReadableStream, any async iterable of bytes).
 * Streams are read into memory once, so a retried call can send the same bytes again.
 */
export type Uploadable = Blob | ArrayBuffer | ArrayBufferView | AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

/** The input of a file tool: the file, its name (the result is named after it), and the tool's options. */
export type FileInput<Options> = Options & { file: Uploadable; fileName?: string };

/** The result of a file conversion: a presigned link to the converted file, valid for a limited time. */
export interface FileResult {
  fileId: string;
  downloadUrl: string;
  expiresAt: string;
  fileName: string;
  mimeType: string;
  sizeBytes: number;
}

/** What `files.download` takes: a conversion's envelope, its `result`, or the downloadUrl itself. */
export type DownloadSource = string | URL | { downloadUrl: string } | { result: { downloadUrl: string } };

export interface FilesApi {
  /** The bytes behind a result's downloadUrl, fetched without the API key; meta on `withResponse()`. */
  download(source: DownloadSource, options?: RequestOptions): APIPromise<Uint8Array>;
}

/** The multipart form of a file tool: the options as text fields, then the file in `fileField`. */
export async function buildMultipart(input: Record<string, unknown>, fileField: string): Promise<FormData> {
  const { file, fileName, ...options } = input;
  if (file === undefined || file === null) {
    throw new ToolServiceError({ code: 'file_required', message: 'This tool takes a file: pass { file, fileName? }' });
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && value !== null) form.append(name, formValue(value));
  }
  const blob = await toBlob(file as Uploadable);
  form.append(fileField, blob, typeof fileName === 'string' && fileName !== '' ? fileName : defaultName(file));
  return form;
}

/** Any Uploadable as a Blob (a File keeps its type). */
export async function toBlob(file: Uploadable): Promise<Blob> {
  if (file instanceof Blob) return file;
  if (file instanceof ArrayBuffer) return new Blob([file]);
  if (ArrayBuffer.isView(file)) return new Blob([new Uint8Array(file.buffer, file.byteOffset, file.byteLength).slice()]);
  if (isAsyncIterable(file)) {
    const parts: Uint8Array<ArrayBuffer>[] = [];
    for await (const chunk of file) parts.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : new Uint8Array(chunk));
    return new Blob(parts);
  }
  // A web ReadableStream without Symbol.asyncIterator (older browsers).
  if (isReadableStream(file as unknown)) {
    const parts: Uint8Array<ArrayBuffer>[] = [];
    const reader = (file as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(new Uint8Array(value));
    }
    return new Blob(parts);
  }
  throw new ToolServiceError({ code: 'invalid_file', message: 'file must be a Blob, File, Buffer, Uint8Array, ArrayBuffer or a readable stream' });
}

/** A File's own name, a file stream's path (fs.createReadStream), else "file". */
function defaultName(file: unknown): string {
  if (isRecord(file) || file instanceof Blob) {
    const named = file as { name?: unknown; path?: unknown };
    if (typeof named.name === 'string' && named.name !== '') return named.name;
    if (typeof named.path === 'string' && named.path !== '') return named.path.split(/[\\/]/).pop() || 'file';
  }
  return 'file';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === 'object' && value !== null && typeof (value as { getReader?: unknown }).getReader === 'function';
}

export function downloadUrlOf(source: DownloadSource): string {
  if (typeof source === 'string') return source;
  if (source instanceof URL) return source.toString();
  if ('downloadUrl' in source && typeof source.downloadUrl === 'string') return source.downloadUrl;
  if ('result' in source && isRecord(source.result) && typeof source.result.downloadUrl === 'string') return source.result.downloadUrl;
  throw new ToolServiceError({ code: 'invalid_download_source', message: 'Pass a file result, its envelope or a downloadUrl' });
}

export function createFiles(ctx: HttpContext): FilesApi {
  return {
    download(source, options) {
      return apiPromise(async () => {
        const url = downloadUrlOf(source);
        const { body, meta } = await send(ctx, { method: 'GET', path: url, sendKey: false, read: 'bytes' }, options);
        return { data: body as Uint8Array, meta };
      });
    },
  };
}
