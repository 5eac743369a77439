// gzip, in process with Node's zlib: a .tar.gz is a tar inside one gzip stream, and 7-Zip would
// only unwrap it to a file first anyway. Decompression counts every byte it writes, so a gzip
// bomb stops at the limit while it inflates, not after.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { archiveError, type ArchiveLimits } from './archive-entry-policy.ts';

/** tar adds a 512-byte header per entry and pads each to 512 bytes: room for that beyond the content limit. */
export function tarSizeLimit(limits: ArchiveLimits): number {
  return limits.maxUncompressedBytes + limits.maxEntries * 1024 + 20 * 512;
}

class ByteLimit extends Transform {
  written = 0;
  private readonly limit: number;
  private readonly onExceeded: (written: number) => Error;
  constructor(limit: number, onExceeded: (written: number) => Error) {
    super();
    this.limit = limit;
    this.onExceeded = onExceeded;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.written += chunk.length;
    if (this.written > this.limit) callback(this.onExceeded(this.written));
    else callback(null, chunk);
  }
}

/**
 * Inflates the gzip at `inputPath` to `outputPath`; 422 when it would exceed `maxBytes` or a
 * compression ratio past `limits.maxRatio` (beyond `ratioFloorBytes`), or is not whole gzip.
 */
export async function gunzipBounded(inputPath: string, outputPath: string, maxBytes: number, limits: ArchiveLimits, signal?: AbortSignal): Promise<number> {
  const compressed = (await stat(inputPath)).size;
  const ratioBytes = Math.max(limits.ratioFloorBytes, compressed * limits.maxRatio);
  const limit = Math.min(maxBytes, ratioBytes);
  const counter = new ByteLimit(limit, (written) =>
    archiveError(
      'document_bomb',
      written > maxBytes ? `the gzip stream inflates past ${maxBytes} bytes` : `the gzip stream inflates more than ${limits.maxRatio}:1 (${compressed} bytes to over ${written})`,
    ),
  );
  try {
    await pipeline(createReadStream(inputPath), createGunzip(), counter, createWriteStream(outputPath), signal ? { signal } : {});
  } catch (error) {
    if (error instanceof Error && 'status' in error) throw error;
    if (signal?.aborted) throw signal.reason;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
      throw archiveError('corrupt_document', `the gzip stream is ${code === 'Z_DATA_ERROR' ? 'damaged' : 'cut short'} (${(error as Error).message})`);
    }
    throw error;
  }
  return counter.written;
}

/** Compresses `inputPath` into a gzip stream at `outputPath` (level 1-9, default 6). */
export async function gzipFile(inputPath: string, outputPath: string, level = 6, signal?: AbortSignal): Promise<void> {
  await pipeline(createReadStream(inputPath), createGzip({ level }), createWriteStream(outputPath), signal ? { signal } : {});
}
