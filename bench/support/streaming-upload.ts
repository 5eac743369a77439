/**
 * A multipart upload streamed from disk: the body is a Readable of the part header, the file's
 * fs.createReadStream and the closing boundary, sent with http.request and an exact
 * Content-Length, so a 100 MB upload never sits in this process's memory.
 */
import { createReadStream, statSync } from 'node:fs';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface StreamedUploadResult {
  status: number;
  body: string;
  /** ms from the start until the last body byte was handed to the socket */
  uploadMs: number;
  /** ms from the start until the whole answer arrived */
  totalMs: number;
  bytes: number;
}

export interface StreamedUploadOptions {
  url: string;
  apiKey: string;
  filePath: string;
  fileName: string;
  contentType: string;
  field?: string;
  /** called once the last body byte was handed to the socket */
  onUploaded?: () => void;
}

export async function streamUpload(options: StreamedUploadOptions): Promise<StreamedUploadResult> {
  const boundary = `----bench${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${options.field ?? 'file'}"; filename="${options.fileName}"\r\n` +
      `Content-Type: ${options.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = statSync(options.filePath).size;
  const length = head.length + size + tail.length;
  const filePath = options.filePath;
  async function* parts(): AsyncGenerator<Buffer> {
    yield head;
    for await (const chunk of createReadStream(filePath, { highWaterMark: 256 * 1024 })) yield chunk as Buffer;
    yield tail;
  }

  const url = new URL(options.url);
  const t0 = performance.now();
  let uploadMs = Number.NaN;
  return new Promise<StreamedUploadResult>((resolvePromise, reject) => {
    const req = request(
      {
        method: 'POST',
        hostname: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(length),
          'x-api-key': options.apiKey,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          // Keep at most 1 MB of the answer (it is a small JSON envelope; an error may be too).
          if (kept < 1024 * 1024) {
            chunks.push(chunk);
            kept += chunk.length;
          }
        });
        res.on('end', () => {
          resolvePromise({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            uploadMs,
            totalMs: performance.now() - t0,
            bytes: length,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('finish', () => {
      uploadMs = performance.now() - t0;
      options.onUploaded?.();
    });
    // The server may answer (e.g. 413) before the body is all sent: a pipeline error then is not the result.
    pipeline(Readable.from(parts()), req).catch(() => undefined);
  });
}
