// A cheap check before an engine opens an OOXML/ODF file (a zip): the sizes its central directory
// declares must stay within limits, so a document bomb (a small docx whose XML inflates to
// gigabytes) is refused with 422 before LibreOffice or pandoc inflates it. A zip that lies about
// its sizes still meets the engine's time and memory limits. The central directory is read by
// src/files/zip-inspect.ts; this file only maps what it finds to the engines' 422 answers. The
// limits are the one set the upload check uses too (src/files/zip-limits.ts, config's ZIP_*).
// It reads the file as the upload checks do, through src/files/file-reader.ts: a small REST
// upload's bytes are still held in memory while its tool runs (files/upload-bytes.ts), so its
// check opens nothing; any other file (a large upload, base64, a URL, a stored file, an engine's
// own temporary) is read from the disk. Both answer alike, so the verdict is the same either way.
import { unprocessable } from '../core/errors.ts';
import { openForReading } from '../files/file-reader.ts';
import { isZipError, listZipEntries, type ZipDirectory } from '../files/zip-inspect.ts';
import { zipLimits, type ZipSafetyLimits } from '../files/zip-limits.ts';

const TOO_LARGE = 'The document is too large to convert';
const DAMAGED = 'The file is a damaged zip container';

/** Whether `file` starts with a local file header (PK\3\4), as every zip container does. */
async function startsLikeZip(file: string): Promise<boolean> {
  const handle = await openForReading(file);
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    return head.readUInt32LE(0) === 0x04034b50;
  } finally {
    await handle.close();
  }
}

/** Throws 422 when `file` is a zip that declares more than the limits; other files pass. */
export async function checkZipBomb(file: string, limits: Partial<ZipSafetyLimits> = {}): Promise<void> {
  const { maxUncompressedBytes: maxBytes, maxEntries } = zipLimits(limits);
  if (!(await startsLikeZip(file))) return; // not a zip
  let directory: ZipDirectory;
  try {
    directory = await listZipEntries(file, { maxEntries });
  } catch (error) {
    if (!isZipError(error)) throw error;
    switch (error.code) {
      case 'too_many_entries':
      case 'too_large':
        throw unprocessable(TOO_LARGE, error.message);
      case 'truncated':
        throw unprocessable(`${DAMAGED} (truncated?)`, error.message);
      default:
        throw unprocessable(DAMAGED, error.message);
    }
  }
  if (directory.zip64) throw unprocessable(TOO_LARGE, 'zip64 containers are not accepted');
  let total = 0;
  for (const entry of directory.entries) {
    total += entry.uncompressedSize;
    if (total > maxBytes) {
      throw unprocessable('The document expands to more than the server accepts (a zip bomb?)', `declared uncompressed size over ${maxBytes} bytes`);
    }
  }
}
