import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { noteStreamedBytes } from '../files/buffer-reclaim.ts';
import { HELD_UPLOAD_MAX_BYTES, forgetUploadBytes, holdUploadBytes } from '../files/upload-bytes.ts';
import { ServiceError } from '../core/errors.ts';
import type { UploadWants } from '../core/file-sources.ts';
import type { ReceivedUpload } from '../files/file-pipeline.ts';

const MAX_FIELDS = 30;
const MAX_FIELD_BYTES = 10_000;
/** What one upload may hold in memory on its way to disk. */
const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Streams a multipart upload to disk (never whole in memory) and collects the text fields. The
 * file is hashed on the way only when `wants.digest` (the call is bound to an Idempotency-Key,
 * as every SDK POST is): hashing every upload cost ~18 ms of the main thread per 28 MB. Exactly
 * one file, in `field` (or one of `alsoAccepts`); anything else is a clear 4xx.
 */
export async function receiveMultipart(request: FastifyRequest, field: string, workDir: string, uploadLimitBytes: number, alsoAccepts: readonly string[] = [], wants: UploadWants = { digest: false }): Promise<{ fields: Record<string, unknown>; upload: ReceivedUpload | undefined }> {
  const fileFields = new Set([field, ...alsoAccepts]);
  const named = [field, ...alsoAccepts].map((f) => `"${f}"`).join(' or ');
  if (!request.isMultipart()) {
    throw new ServiceError(415, 'multipart_required', 'Send the file as multipart/form-data', {
      detail: `Upload the source file in the form field "${field}"; options go in other form fields or the query string`,
    });
  }
  // A client gone before the body is read (it hung up while the key was checked): its 'aborted'
  // and 'close' have fired already, so the parser below would wait for them forever.
  const gone = abandonedUpload(request);
  if (gone) throw gone;
  const fields: Record<string, unknown> = {};
  let upload: ReceivedUpload | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: uploadLimitBytes, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 } })) {
      if (part.type === 'field') {
        if (fileFields.has(part.fieldname)) throw new ServiceError(400, 'validation_error', `"${part.fieldname}" must be a file, not a text field`, { extra: { issues: [{ field: part.fieldname, message: 'must be a file' }] } });
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      if (!fileFields.has(part.fieldname)) {
        part.file.resume();
        throw new ServiceError(400, 'validation_error', `Unexpected file field "${part.fieldname}"`, {
          detail: `This endpoint takes its file in the field ${named}`,
          extra: { issues: [{ field: part.fieldname, message: `upload the file in ${named}` }] },
        });
      }
      const path = join(workDir, 'upload');
      // A write buffer of WRITE_BUFFER_BYTES rather than the default 64 KB: the socket keeps being
      // read while a write is in the thread pool, and buffered chunks go to disk in one writev.
      const sink = createWriteStream(path, { mode: 0o600, highWaterMark: WRITE_BUFFER_BYTES });
      const hash = wants.digest ? createHash('sha256') : undefined;
      // Every chunk passes here on its way to disk: counted (the file's size, and so that its dead
      // Buffers are reclaimed young: files/buffer-reclaim.ts), hashed when a key asks for it, and
      // kept while the file is small enough for its bytes to be held (files/upload-bytes.ts).
      let sizeBytes = 0;
      let kept: Buffer[] | undefined = [];
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash?.update(chunk);
          sizeBytes += chunk.length;
          noteStreamedBytes(chunk.length);
          if (kept !== undefined) {
            if (sizeBytes <= HELD_UPLOAD_MAX_BYTES) kept.push(chunk);
            else kept = undefined;
          }
          done(null, chunk);
        },
      });
      await pipeline(part.file, tap, sink);
      if (part.file.truncated) throw tooLarge(uploadLimitBytes);
      upload = { path, sizeBytes, originalName: part.filename || 'upload', ...(hash === undefined ? {} : { sha256: hash.digest('hex') }) };
      // The file is whole on disk: its typing, its safety checks and the engine's zip check read
      // these bytes instead, until the call ends (FilePipeline.doneWith, or the call's refusal).
      if (kept !== undefined) holdUploadBytes(path, Buffer.concat(kept, sizeBytes));
    }
  } catch (err) {
    // A part after the file went wrong: the call ends here, its held bytes with it.
    if (upload) forgetUploadBytes(upload.path);
    if (err instanceof ServiceError) throw err;
    // The client went away (or was cut off by the request timeout) mid-upload: its doing, so a
    // 4xx that nobody reads, never a 500 and an error-level log line.
    const gone = abandonedUpload(request);
    if (gone) throw gone;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(uploadLimitBytes);
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw new ServiceError(400, 'too_many_parts', 'Too many form parts', { detail: `Send one file in "${field}" and at most ${MAX_FIELDS} option fields` });
    }
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || (err as Error).message?.includes('Multipart')) {
      throw new ServiceError(400, 'invalid_multipart', 'The multipart body is malformed', { detail: (err as Error).message });
    }
    throw err;
  }
  return { fields, upload };
}

/**
 * The 4xx of an upload whose client has gone (undefined while it is still there). Nothing reads
 * it: the request's one line ('upload abandoned: the connection closed mid-body', counted as 499)
 * is written by the request observer when the connection closes (rest/request-observer.ts). It
 * ends the handler's work for a client that is gone: the reader would otherwise wait forever for
 * a body whose end it already missed, and tool-routes.ts asks it again before the call rather
 * than run the call for nobody.
 */
export function abandonedUpload(request: FastifyRequest): ServiceError | undefined {
  // Destroyed before its end: Node destroys a body it has read to the end too (a JSON body sent
  // to a file tool, parsed before the handler, must still get its 415, not this).
  const raw = request.raw;
  if (!raw.readableAborted && !(raw.destroyed && !raw.readableEnded)) return undefined;
  return uploadAborted();
}

function uploadAborted(): ServiceError {
  return new ServiceError(400, 'upload_aborted', 'The upload ended before the whole body arrived', {
    detail: 'The connection closed mid-upload (by the client, or by the server because the body did not arrive within the request time limit); send the whole file again',
  });
}

function tooLarge(limit: number): ServiceError {
  return new ServiceError(413, 'payload_too_large', 'The uploaded file is too large', { detail: `The upload limit is ${limit} bytes (${Math.round(limit / 1024 / 1024)} MB)` });
}
