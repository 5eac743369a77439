// A minimal, defensive ZIP reader for inspecting uploads before any engine sees them. It reads
// only the End Of Central Directory record, the central directory and the entries asked for,
// never the whole archive, and it never trusts a declared size: inflated output is counted and
// cut off at the caller's cap. Every failure is a ZipError the caller maps to a 422. Files are
// read through file-reader.ts: a small upload's bytes held in memory, or the disk.
import { createInflateRaw, crc32 } from 'node:zlib';
import { createRangeStream, openForReading, type ReadableFile } from './file-reader.ts';

export type ZipErrorCode =
  /** the archive ends early or has no (readable) central directory */
  | 'truncated'
  /** structures that contradict each other, bad signatures, a stream that does not inflate, a CRC mismatch */
  | 'corrupt'
  /** an entry (or the directory) is larger than the caller allows */
  | 'too_large'
  /** a compression method other than stored (0) or deflate (8) */
  | 'unsupported_method'
  /** the entry is encrypted (traditional PKWARE, strong encryption or WinZip AES) */
  | 'encrypted'
  /** more entries than the caller allows */
  | 'too_many_entries'
  /** multi-disk (spanned) archives */
  | 'unsupported';

export class ZipError extends Error {
  readonly code: ZipErrorCode;
  constructor(code: ZipErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ZipError';
    this.code = code;
  }
}

export function isZipError(value: unknown): value is ZipError {
  return value instanceof ZipError;
}

export interface ZipEntryInfo {
  name: string;
  /** 0 = stored, 8 = deflate; anything else cannot be read here */
  method: number;
  compressedSize: number;
  /** as declared by the central directory: a hint, never trusted when reading */
  uncompressedSize: number;
  localHeaderOffset: number;
  encrypted: boolean;
  crc32: number;
  flags: number;
  isDirectory: boolean;
}

export interface ZipDirectory {
  entries: ZipEntryInfo[];
  fileSize: number;
  zip64: boolean;
  /** bytes before the first local header (a self-extractor program in front), usually 0 */
  prefixBytes: number;
}

export interface ListOptions {
  /** refuse archives declaring or holding more entries than this (default 65,535 × 16) */
  maxEntries?: number;
  /** refuse central directories larger than this (default 64 MB) */
  maxCentralDirectoryBytes?: number;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const EOCD_SIZE = 22;
/** The EOCD record plus the longest possible comment. */
const EOCD_SEARCH = EOCD_SIZE + 0xffff;

/** Reads `length` bytes at `position`, fewer only at the end of the file. */
export async function readAt(handle: ReadableFile, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

async function readExactly(handle: ReadableFile, position: number, length: number, what: string): Promise<Buffer> {
  const buffer = await readAt(handle, position, length);
  if (buffer.length < length) throw new ZipError('truncated', `The archive ends inside ${what}`);
  return buffer;
}

function u64(buffer: Buffer, offset: number, what: string): number {
  const value = buffer.readBigUInt64LE(offset);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipError('corrupt', `The ${what} is impossibly large`);
  return Number(value);
}

/** Lists the entries of the ZIP archive at `path` from its central directory. */
export async function listZipEntries(path: string, options: ListOptions = {}): Promise<ZipDirectory> {
  const handle = await openForReading(path);
  try {
    return await listFromHandle(handle, options);
  } finally {
    await handle.close();
  }
}

async function listFromHandle(handle: ReadableFile, options: ListOptions): Promise<ZipDirectory> {
  const maxEntries = options.maxEntries ?? 0x10_0000;
  const maxCd = options.maxCentralDirectoryBytes ?? 64 * 1024 * 1024;
  const fileSize = (await handle.stat()).size;
  if (fileSize < EOCD_SIZE) throw new ZipError('truncated', 'The archive is too short to hold a central directory');

  const tailStart = Math.max(0, fileSize - EOCD_SEARCH);
  const tail = await readExactly(handle, tailStart, fileSize - tailStart, 'its end record');
  let eocd = -1;
  for (let i = tail.length - EOCD_SIZE; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== SIG_EOCD) continue;
    // A real record's comment runs to the end of the file (some writers pad a little after it).
    const commentLength = tail.readUInt16LE(i + 20);
    if (i + EOCD_SIZE + commentLength <= tail.length) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipError('truncated', 'No end-of-central-directory record: the archive is truncated or not a ZIP');
  const eocdPosition = tailStart + eocd;

  const diskNumber = tail.readUInt16LE(eocd + 4);
  const cdDisk = tail.readUInt16LE(eocd + 6);
  let entryCount = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  let zip64 = false;
  let cdEnd = eocdPosition;

  const locatorPosition = eocdPosition - 20;
  const needs64 = entryCount === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff;
  if (locatorPosition >= 0) {
    const locator = await readExactly(handle, locatorPosition, 20, 'the ZIP64 locator');
    const record = locator.readUInt32LE(0) === SIG_ZIP64_LOCATOR ? Number(locator.readBigUInt64LE(8)) : -1;
    const z = record >= 0 && record + 56 <= locatorPosition ? await readExactly(handle, record, 56, 'the ZIP64 end record') : undefined;
    if (z?.readUInt32LE(0) === SIG_ZIP64_EOCD) {
      zip64 = true;
      entryCount = u64(z, 32, 'entry count');
      cdSize = u64(z, 40, 'central directory size');
      cdOffset = u64(z, 48, 'central directory offset');
      cdEnd = record;
    } else if (needs64) {
      // (Bytes that merely look like a locator in an archive that needs none are ignored.)
      throw new ZipError('corrupt', 'The archive needs a ZIP64 end record but has none (or it is damaged)');
    }
  } else if (needs64) {
    throw new ZipError('corrupt', 'The archive needs a ZIP64 end record but has none');
  }
  if (!zip64 && (diskNumber !== 0 || cdDisk !== 0)) throw new ZipError('unsupported', 'Multi-part (spanned) ZIP archives are not supported');
  if (entryCount > maxEntries) throw new ZipError('too_many_entries', `The archive declares ${entryCount} entries; at most ${maxEntries} are allowed`);
  if (cdSize > maxCd) throw new ZipError('too_large', `The central directory is ${cdSize} bytes; at most ${maxCd} are allowed`);
  if (cdSize > cdEnd) throw new ZipError('truncated', 'The central directory is larger than the archive');

  // Normally the directory ends where the end record starts; data prepended to the archive (a
  // self-extractor) shifts everything by the same amount.
  let prefixBytes = cdEnd - cdSize - cdOffset;
  if (prefixBytes < 0) throw new ZipError('truncated', 'The central directory lies beyond the end of the archive: it is truncated');
  let cd = await readExactly(handle, cdOffset + prefixBytes, cdSize, 'the central directory');
  if (cdSize > 0 && cd.readUInt32LE(0) !== SIG_CENTRAL) {
    if (prefixBytes === 0) throw new ZipError('corrupt', 'The central directory does not start with a central header');
    // Some writers record absolute offsets in self-extractors: try without the shift.
    cd = await readExactly(handle, cdOffset, cdSize, 'the central directory');
    if (cd.readUInt32LE(0) !== SIG_CENTRAL) throw new ZipError('corrupt', 'The central directory does not start with a central header');
    prefixBytes = 0;
  }

  const entries: ZipEntryInfo[] = [];
  let p = 0;
  while (p < cd.length) {
    if (entries.length >= maxEntries) throw new ZipError('too_many_entries', `The archive holds more than ${maxEntries} entries`);
    if (p + 46 > cd.length) throw new ZipError('corrupt', 'A central header runs past the end of the central directory');
    if (cd.readUInt32LE(p) !== SIG_CENTRAL) throw new ZipError('corrupt', `Bad central header signature at directory offset ${p}`);
    const flags = cd.readUInt16LE(p + 8);
    const method = cd.readUInt16LE(p + 10);
    const crc = cd.readUInt32LE(p + 16);
    let compressedSize = cd.readUInt32LE(p + 20);
    let uncompressedSize = cd.readUInt32LE(p + 24);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    const startDisk = cd.readUInt16LE(p + 34);
    let localHeaderOffset = cd.readUInt32LE(p + 42);
    const next = p + 46 + nameLength + extraLength + commentLength;
    if (next > cd.length) throw new ZipError('corrupt', 'A central header runs past the end of the central directory');
    const nameBytes = cd.subarray(p + 46, p + 46 + nameLength);
    const name = nameBytes.toString(flags & 0x800 ? 'utf8' : 'latin1');

    // ZIP64 extended information: only the fields saturated in the fixed header are present, in order.
    if (uncompressedSize === 0xffffffff || compressedSize === 0xffffffff || localHeaderOffset === 0xffffffff || startDisk === 0xffff) {
      const extra = cd.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
      let e = 0;
      let found = false;
      while (e + 4 <= extra.length) {
        const id = extra.readUInt16LE(e);
        const size = extra.readUInt16LE(e + 2);
        const body = extra.subarray(e + 4, e + 4 + size);
        if (id === 0x0001) {
          found = true;
          let f = 0;
          const take = (what: string): number => {
            if (f + 8 > body.length) throw new ZipError('corrupt', `The ZIP64 field of "${name}" is too short for its ${what}`);
            const value = u64(body, f, what);
            f += 8;
            return value;
          };
          if (uncompressedSize === 0xffffffff) uncompressedSize = take('uncompressed size');
          if (compressedSize === 0xffffffff) compressedSize = take('compressed size');
          if (localHeaderOffset === 0xffffffff) localHeaderOffset = take('header offset');
          break;
        }
        e += 4 + size;
      }
      if (!found) throw new ZipError('corrupt', `"${name}" has saturated sizes but no ZIP64 field`);
    }

    const aes = method === 99;
    entries.push({
      name,
      method,
      compressedSize,
      uncompressedSize,
      localHeaderOffset: localHeaderOffset + prefixBytes,
      encrypted: (flags & 0x1) !== 0 || (flags & 0x40) !== 0 || aes,
      crc32: crc,
      flags,
      isDirectory: name.endsWith('/'),
    });
    p = next;
  }
  return { entries, fileSize, zip64, prefixBytes };
}

/** Where an entry's data starts and how long it is, checked against the archive's size. */
async function locateData(handle: ReadableFile, entry: ZipEntryInfo, fileSize: number): Promise<{ start: number; length: number }> {
  if (entry.localHeaderOffset + 30 > fileSize) throw new ZipError('truncated', `The archive ends before the header of "${entry.name}"`);
  const header = await readExactly(handle, entry.localHeaderOffset, 30, `the header of "${entry.name}"`);
  if (header.readUInt32LE(0) !== SIG_LOCAL) throw new ZipError('corrupt', `"${entry.name}" has no local header where the directory says`);
  const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (start + entry.compressedSize > fileSize) throw new ZipError('truncated', `The archive ends inside the data of "${entry.name}"`);
  return { start, length: entry.compressedSize };
}

function checkReadable(entry: ZipEntryInfo): void {
  if (entry.encrypted) throw new ZipError('encrypted', `"${entry.name}" is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ZipError('unsupported_method', `"${entry.name}" uses compression method ${entry.method}; only stored and deflate are supported`);
  }
}

/**
 * Streams one entry's content to `onChunk`, inflating as it goes. Stops and throws `too_large`
 * as soon as the output passes `maxBytes`, whatever the entry declares. Checks the CRC-32 and
 * the declared size once the whole entry has been read. Returns the number of bytes produced.
 */
export async function streamEntry(path: string, entry: ZipEntryInfo, maxBytes: number, onChunk: (chunk: Buffer) => void = () => {}): Promise<number> {
  checkReadable(entry);
  const handle = await openForReading(path);
  let data: { start: number; length: number };
  try {
    data = await locateData(handle, entry, (await handle.stat()).size);
  } finally {
    await handle.close();
  }
  const tooLarge = () => new ZipError('too_large', `"${entry.name}" inflates past ${maxBytes} bytes`);
  let produced = 0;
  let crc = 0;
  // An error thrown by the caller's onChunk goes back to the caller as it is.
  let callerError: unknown;
  const take = (chunk: Buffer): void => {
    produced += chunk.length;
    if (produced > maxBytes) throw tooLarge();
    crc = crc32(chunk, crc);
    try {
      onChunk(chunk);
    } catch (error) {
      callerError = error;
      throw error;
    }
  };

  if (data.length > 0) {
    const source = createRangeStream(path, { start: data.start, end: data.start + data.length - 1, highWaterMark: 64 * 1024 });
    if (entry.method === 0) {
      try {
        for await (const chunk of source) take(chunk as Buffer);
      } finally {
        source.destroy();
      }
    } else {
      const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
      source.on('error', (error) => inflater.destroy(error));
      source.pipe(inflater);
      try {
        for await (const chunk of inflater) take(chunk as Buffer);
      } catch (error) {
        if (isZipError(error) || error === callerError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw new ZipError('corrupt', `"${entry.name}" does not inflate: ${message}`, { cause: error });
      } finally {
        source.unpipe(inflater);
        source.destroy();
        inflater.destroy();
      }
    }
  }
  // (An entry with no data at all is an empty file, whatever its method, if it declares 0 bytes.)

  if (produced !== entry.uncompressedSize) {
    throw new ZipError('corrupt', `"${entry.name}" holds ${produced} bytes but declares ${entry.uncompressedSize}`);
  }
  if ((crc >>> 0) !== entry.crc32) throw new ZipError('corrupt', `"${entry.name}" fails its CRC-32 check`);
  return produced;
}

/** Reads one entry into memory, refusing (ZipError 'too_large') output past `maxBytes`. */
export async function readEntry(path: string, entry: ZipEntryInfo, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const total = await streamEntry(path, entry, maxBytes, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks, total);
}

/**
 * Salvage for archives whose central directory is gone (a truncated upload): walks the local
 * headers from the start of the file, as far as their declared sizes allow, within `scanBytes`.
 * The entries found are only good for guessing what the archive was.
 */
export async function scanLocalHeaders(path: string, scanBytes = 4 * 1024 * 1024): Promise<ZipEntryInfo[]> {
  const handle = await openForReading(path);
  try {
    const head = await readAt(handle, 0, scanBytes);
    const entries: ZipEntryInfo[] = [];
    let p = 0;
    while (p + 30 <= head.length && head.readUInt32LE(p) === SIG_LOCAL && entries.length < 10_000) {
      const flags = head.readUInt16LE(p + 6);
      const nameLength = head.readUInt16LE(p + 26);
      const extraLength = head.readUInt16LE(p + 28);
      if (p + 30 + nameLength > head.length) break;
      const compressedSize = head.readUInt32LE(p + 18);
      entries.push({
        name: head.subarray(p + 30, p + 30 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1'),
        method: head.readUInt16LE(p + 8),
        compressedSize,
        uncompressedSize: head.readUInt32LE(p + 22),
        localHeaderOffset: p,
        encrypted: (flags & 0x41) !== 0 || head.readUInt16LE(p + 8) === 99,
        crc32: head.readUInt32LE(p + 14),
        flags,
        isDirectory: false,
      });
      // Sizes deferred to a data descriptor (flag 8) cannot be skipped over without inflating.
      if (flags & 0x8) break;
      p += 30 + nameLength + extraLength + compressedSize;
    }
    return entries;
  } finally {
    await handle.close();
  }
}
