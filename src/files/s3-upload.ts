// Uploads a file on disk to S3 without holding it in memory. lib-storage's Upload was the first
// choice, but it reads its body into a fresh part-sized Buffer per part: the live set is small,
// yet a 50 MB result leaves 50 MB of Buffers that V8 frees only when its external-memory pressure
// says so, and the resident set grew by 26-46 MB in the test. Here every request body is a read
// stream over a range of the file, with its length given, so the only buffers are the streams'
// own 64 KB ones. Small files go in one PUT; larger ones as a multipart upload, parts of 8 MB, two
// in flight, each retried with a fresh stream (a stream the SDK retried itself would be consumed).
import { createReadStream } from 'node:fs';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

/** Up to this size a file is one PutObject (S3 takes up to 5 GB so; parts only bring retries and parallelism). */
export const SINGLE_PUT_MAX_BYTES = 16 * 1024 * 1024;
export const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

export interface UploadTarget {
  /** a client that does not retry by itself (maxAttempts 1): a retried stream body would be half read */
  client: S3Client;
  bucket: string;
  key: string;
  contentType: string;
  metadata: Record<string, string>;
  /** attempts per request, each with a fresh stream */
  attempts: number;
}

/** Sends a request whose body is `[start, end]` of the file, `attempts` times at most, closing each stream. */
async function withFileRange<T>(path: string, start: number, end: number, attempts: number, send: (body: NodeJS.ReadableStream | Buffer, length: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    // An empty file is an empty body (a read stream over [0, -1] would read the whole file).
    const body = end < start ? undefined : createReadStream(path, { start, end });
    try {
      return await send(body ?? Buffer.alloc(0), end - start + 1);
    } catch (err) {
      if (attempt >= attempts) throw err;
    } finally {
      body?.destroy();
    }
  }
}

export async function uploadFile(target: UploadTarget, path: string, size: number): Promise<void> {
  const { client, bucket, key } = target;
  if (size <= SINGLE_PUT_MAX_BYTES) {
    await withFileRange(path, 0, size - 1, target.attempts, (Body, ContentLength) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Body as never, ContentLength, ContentType: target.contentType, Metadata: target.metadata })),
    );
    return;
  }
  const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: target.contentType, Metadata: target.metadata }));
  const uploadId = created.UploadId;
  if (uploadId === undefined) throw new Error('the storage answered CreateMultipartUpload without an UploadId');
  try {
    const count = Math.ceil(size / PART_BYTES);
    const parts: { PartNumber: number; ETag: string | undefined }[] = [];
    let next = 0;
    let failed = false;
    const worker = async (): Promise<void> => {
      // A failure stops the other worker taking parts: the upload is aborted as a whole.
      while (!failed && next < count) {
        const index = next++;
        const start = index * PART_BYTES;
        const end = Math.min(size, start + PART_BYTES) - 1;
        try {
          const answer = await withFileRange(path, start, end, target.attempts, (Body, ContentLength) =>
            client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: index + 1, Body: Body as never, ContentLength })),
          );
          parts[index] = { PartNumber: index + 1, ETag: answer.ETag };
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARTS_IN_FLIGHT, count) }, worker));
    await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
  } catch (err) {
    // Its parts would otherwise stay in the bucket (and cost) until a lifecycle rule ends them.
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
    throw err;
  }
}
