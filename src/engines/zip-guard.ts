// A cheap check before an engine opens an OOXML/ODF file (a zip): the sizes its central directory
// declares must stay within limits, so a document bomb (a small docx whose XML inflates to
// gigabytes) is refused with 422 before LibreOffice or pandoc inflates it. A zip that lies about
// its sizes still meets the engine's time and memory limits.
import { open } from 'node:fs/promises';
import { unprocessable } from '../core/errors.ts';

export interface ZipLimits {
  /** total declared uncompressed size (default 512 MiB) */
  maxUnzippedBytes?: number;
  /** entries (default 20 000) */
  maxEntries?: number;
}

/** Throws 422 when `file` is a zip that declares more than the limits; other files pass. */
export async function checkZipBomb(file: string, limits: ZipLimits = {}): Promise<void> {
  const maxBytes = limits.maxUnzippedBytes ?? 512 * 1024 * 1024;
  const maxEntries = limits.maxEntries ?? 20_000;
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    if (head.readUInt32LE(0) !== 0x04034b50) return; // not a zip
    // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
    const tailLength = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw unprocessable('The file is a damaged zip container (truncated?)', 'no end of central directory');
    const entries = tail.readUInt16LE(eocd + 10);
    const directorySize = tail.readUInt32LE(eocd + 12);
    const directoryOffset = tail.readUInt32LE(eocd + 16);
    if (entries === 0xffff || directoryOffset === 0xffffffff) {
      throw unprocessable('The document is too large to convert', 'zip64 containers are not accepted');
    }
    if (entries > maxEntries) throw unprocessable('The document is too large to convert', `${entries} zip entries (limit ${maxEntries})`);
    if (directoryOffset + directorySize > size) throw unprocessable('The file is a damaged zip container (truncated?)', 'central directory out of bounds');
    const directory = Buffer.alloc(directorySize);
    await handle.read(directory, 0, directorySize, directoryOffset);
    let total = 0;
    let at = 0;
    for (let i = 0; i < entries; i++) {
      if (at + 46 > directory.length || directory.readUInt32LE(at) !== 0x02014b50) {
        throw unprocessable('The file is a damaged zip container', 'bad central directory entry');
      }
      total += directory.readUInt32LE(at + 24);
      if (total > maxBytes) {
        throw unprocessable('The document expands to more than the server accepts (a zip bomb?)', `declared uncompressed size over ${maxBytes} bytes`);
      }
      at += 46 + directory.readUInt16LE(at + 28) + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
    }
  } finally {
    await handle.close();
  }
}
