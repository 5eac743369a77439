// The one way the type detection and the safety checks (file-kind.ts, document-safety.ts,
// zip-inspect.ts, kinds/*.ts) open a file for reading: from the upload's bytes when they are held
// in memory (upload-bytes.ts: a small REST upload, until its checks are done), from the disk
// otherwise. Both answer alike, so a check cannot tell which it read: a FileHandle-shaped
// reader (positional reads with FileHandle.read's partial-read semantics and argument checks)
// and a ranged read stream (start and end inclusive, as fs.createReadStream).
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { heldUploadBytes } from './upload-bytes.ts';

/** What the readers use of a FileHandle; a real one is one. */
export interface ReadableFile {
  stat(): Promise<{ size: number }>;
  /** Up to `length` bytes at `position` (null or -1: the file position) into `buffer` at `offset`; fewer only at the end of the file. */
  read(buffer: Buffer, offset: number, length: number, position: number | null): Promise<{ bytesRead: number; buffer: Buffer }>;
  close(): Promise<void>;
}

/** Opens `path` for reading: its held bytes when there are some, else the file on disk. */
export async function openForReading(path: string): Promise<ReadableFile> {
  const bytes = heldUploadBytes(path);
  return bytes === undefined ? open(path, 'r') : new HeldFile(bytes);
}

export interface RangeOptions {
  /** the first byte (default 0) */
  start?: number;
  /** the last byte, inclusive (default: the end of the file) */
  end?: number;
  highWaterMark?: number;
}

/** A stream of `path`'s bytes from `start` to `end` inclusive, as fs.createReadStream gives them. */
export function createRangeStream(path: string, options: RangeOptions = {}): Readable {
  const bytes = heldUploadBytes(path);
  if (bytes === undefined) return createReadStream(path, options);
  const start = options.start ?? 0;
  const end = options.end ?? Number.POSITIVE_INFINITY;
  // fs.createReadStream's own checks, thrown as it throws them (synchronously).
  checkInteger('start', start, 0, Number.MAX_SAFE_INTEGER);
  if (end !== Number.POSITIVE_INFINITY) checkInteger('end', end, 0, Number.MAX_SAFE_INTEGER);
  if (start > end) throw outOfRange('start', `<= "end" (here: ${end})`, start);
  return new HeldRange(bytes, start, Math.min(bytes.length, end + 1), options.highWaterMark ?? 64 * 1024);
}

/** A held upload as a FileHandle would read it. */
export class HeldFile implements ReadableFile {
  readonly #bytes: Buffer;
  #position = 0;
  #closed = false;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  async stat(): Promise<{ size: number }> {
    if (this.#closed) throw closedError();
    return { size: this.#bytes.length };
  }

  async read(buffer: Buffer, offset: number, length: number, position: number | null): Promise<{ bytesRead: number; buffer: Buffer }> {
    if (this.#closed) throw closedError();
    // FileHandle.read's checks, in its order (node's lib/internal/fs/promises.js read()).
    checkInteger('offset', offset, 0, Number.MAX_SAFE_INTEGER);
    const fromCursor = position === null || position === -1;
    if (position !== null) checkInteger('position', position, -1, Number.MAX_SAFE_INTEGER);
    if (length === 0) return { bytesRead: 0, buffer };
    if (buffer.length === 0) throw Object.assign(new TypeError('The argument \'buffer\' is empty and cannot be written.'), { code: 'ERR_INVALID_ARG_VALUE' });
    if (length < 0) throw outOfRange('length', '>= 0', length);
    if (offset + length > buffer.length) throw outOfRange('length', `<= ${buffer.length - offset}`, length);
    const at = fromCursor ? this.#position : position;
    const bytesRead = Math.max(0, Math.min(length, this.#bytes.length - at));
    if (bytesRead > 0) this.#bytes.copy(buffer, offset, at, at + bytesRead);
    if (fromCursor) this.#position += bytesRead;
    return { bytesRead, buffer };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

/** Chunks of at most `highWaterMark` bytes, each a copy (the reader's to keep, as a file stream's chunks are). */
class HeldRange extends Readable {
  readonly #bytes: Buffer;
  readonly #end: number;
  readonly #chunk: number;
  #at: number;

  constructor(bytes: Buffer, start: number, endExclusive: number, highWaterMark: number) {
    super({ highWaterMark });
    this.#bytes = bytes;
    this.#at = start;
    this.#end = endExclusive;
    this.#chunk = Math.max(1, highWaterMark);
  }

  override _read(): void {
    if (this.#at >= this.#end) {
      this.push(null);
      return;
    }
    const next = Math.min(this.#end, this.#at + this.#chunk);
    const chunk = Buffer.from(this.#bytes.subarray(this.#at, next));
    this.#at = next;
    this.push(chunk);
  }
}

function checkInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value)) throw outOfRange(name, 'an integer', value);
  if (value < min || value > max) throw outOfRange(name, `>= ${min} && <= ${max}`, value);
}

function outOfRange(name: string, range: string, value: number): RangeError {
  const error = new RangeError(`The value of "${name}" is out of range. It must be ${range}. Received ${value}`);
  return Object.assign(error, { code: 'ERR_OUT_OF_RANGE' });
}

function closedError(): Error {
  return Object.assign(new Error('file closed'), { code: 'EBADF', syscall: 'read' });
}
