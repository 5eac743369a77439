// What an archive may hold before the service extracts it, judged on 7-Zip's listing alone
// (nothing is written yet). Extraction is hostile territory: an entry named `../x` or `/etc/x`
// (zip slip), a symlink or hard link pointing out of the folder, a device node or FIFO, more
// entries or bytes than any real archive holds, or a compression ratio only a bomb reaches. Every
// refusal is a 422 with the same codes as the document checks (files/document-safety.ts), so a
// caller reads one vocabulary: document_bomb, unsafe_document, encrypted_document,
// corrupt_document.
import { posix } from 'node:path';
import { ServiceError } from '../core/errors.ts';
import { DEFAULT_ZIP_LIMITS, type ZipSafetyLimits } from '../files/zip-limits.ts';
import type { ArchiveEntry, ArchiveListing } from './sevenzip-listing.ts';

/**
 * The archive limits are the service's one zip limit set (files/zip-limits.ts, config's ZIP_*):
 * maxDepth counts archives inside archives, the upload being 1. The archive tools never open a
 * nested archive, but they refuse to pass on one that nests deeper (42.zip nests 5).
 */
export type ArchiveLimits = ZipSafetyLimits;

export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = DEFAULT_ZIP_LIMITS;

export type ArchiveErrorCode = 'document_bomb' | 'unsafe_document' | 'encrypted_document' | 'corrupt_document';

export function archiveError(code: ArchiveErrorCode, detail: string): ServiceError {
  const messages: Record<ArchiveErrorCode, string> = {
    document_bomb: 'The archive expands to far more data than the service accepts (an archive bomb?)',
    unsafe_document: 'The archive holds entries that could write outside its folder or are not plain files',
    encrypted_document: 'The archive is password-protected: remove the password and upload it again',
    corrupt_document: 'The archive is damaged or incomplete (was the upload cut short?)',
  };
  return new ServiceError(422, code, messages[code], { detail });
}

/** Why an entry's path is unsafe to extract, or null when it is a plain relative path. */
export function unsafePathReason(path: string): string | null {
  if (path === '') return 'an empty name';
  if (path.includes('\0')) return 'a NUL byte in the name';
  // Windows archives may use backslashes and drive letters; 7-Zip maps them on extraction.
  const normal = path.replace(/\\/g, '/');
  if (normal.startsWith('/') || /^[a-zA-Z]:/.test(normal)) return 'an absolute path';
  if (normal.split('/').includes('..')) return 'a ".." segment (it would climb out of the folder)';
  return null;
}

/** Where a link's target lands, relative to the archive root; null when it leaves it. */
export function linkTargetInside(entryPath: string, target: string, kind: 'symlink' | 'hardlink'): string | null {
  const normal = target.replace(/\\/g, '/');
  if (normal.startsWith('/') || /^[a-zA-Z]:/.test(normal)) return null;
  // A symlink's target is relative to the link's folder; a tar hard link names another entry from the root.
  const base = kind === 'symlink' ? posix.dirname(entryPath.replace(/\\/g, '/')) : '.';
  const joined = posix.normalize(posix.join(base, normal));
  if (joined === '..' || joined.startsWith('../')) return null;
  return joined;
}

export interface ListingSummary {
  entries: number;
  files: number;
  directories: number;
  links: number;
  totalBytes: number;
  packedBytes: number;
}

export function summarize(listing: ArchiveListing): ListingSummary {
  let files = 0;
  let directories = 0;
  let links = 0;
  let totalBytes = 0;
  let packedBytes = 0;
  for (const entry of listing.entries) {
    if (entry.type === 'directory') directories += 1;
    else if (entry.type === 'symlink' || entry.type === 'hardlink') links += 1;
    else files += 1;
    if (entry.type === 'file') totalBytes += entry.size;
    packedBytes += entry.packedSize;
  }
  return { entries: listing.entries.length, files, directories, links, totalBytes, packedBytes };
}

/** Expanded/compressed of one entry, or of a 7z solid block (whose packed size sits on its first entry). */
export function entryRatios(listing: ArchiveListing): Map<ArchiveEntry, number> {
  const ratios = new Map<ArchiveEntry, number>();
  const blocks = new Map<number, { size: number; packed: number; first: ArchiveEntry }>();
  for (const entry of listing.entries) {
    if (entry.type !== 'file') continue;
    if (entry.block !== null) {
      const block = blocks.get(entry.block) ?? { size: 0, packed: 0, first: entry };
      block.size += entry.size;
      block.packed += entry.packedSize;
      blocks.set(entry.block, block);
    } else if (entry.packedSize > 0) {
      ratios.set(entry, entry.size / entry.packedSize);
    }
  }
  for (const block of blocks.values()) if (block.packed > 0) ratios.set(block.first, block.size / block.packed);
  return ratios;
}

/**
 * Throws the 422 that the listing earns, if any: a damaged or password-protected archive, a
 * format other than `expectedType`, something before the archive (a polyglot), an unsafe entry,
 * or more entries, bytes or compression than the limits allow.
 */
export function assertListingSafe(listing: ArchiveListing, expectedType: string, limits: ArchiveLimits): void {
  const errorText = listing.errors.join('; ');
  if (/wrong password|encrypted/i.test(errorText)) throw archiveError('encrypted_document', `7-Zip: ${errorText}`);
  if (listing.type !== expectedType) {
    throw archiveError('corrupt_document', `7-Zip cannot read the file as ${expectedType}${errorText ? `: ${errorText}` : ''}`);
  }
  if (listing.offset > 0) {
    throw archiveError('unsafe_document', `the ${expectedType} archive starts at byte ${listing.offset}: other data comes first (a polyglot or self-extractor)`);
  }
  if (listing.entries.length > limits.maxEntries) {
    throw archiveError('document_bomb', `${listing.entries.length} entries; the limit is ${limits.maxEntries}`);
  }
  let total = 0;
  for (const entry of listing.entries) {
    if (entry.encrypted) throw archiveError('encrypted_document', `entry ${JSON.stringify(entry.path)} is encrypted`);
    const reason = unsafePathReason(entry.path);
    if (reason) throw archiveError('unsafe_document', `entry ${JSON.stringify(entry.path)} has ${reason}`);
    if (entry.type === 'device' || entry.type === 'fifo' || entry.type === 'socket') {
      throw archiveError('unsafe_document', `entry ${JSON.stringify(entry.path)} is a ${entry.type === 'device' ? 'device node' : entry.type}, not a file`);
    }
    if ((entry.type === 'symlink' || entry.type === 'hardlink') && entry.linkTarget !== null) {
      if (linkTargetInside(entry.path, entry.linkTarget, entry.type) === null) {
        throw archiveError('unsafe_document', `${entry.type === 'symlink' ? 'symbolic' : 'hard'} link ${JSON.stringify(entry.path)} points outside the archive (${JSON.stringify(entry.linkTarget)})`);
      }
    }
    if (entry.type !== 'file') continue;
    if (entry.size > limits.maxPartBytes) {
      throw archiveError('document_bomb', `entry ${JSON.stringify(entry.path)} expands to ${entry.size} bytes; one entry may hold ${limits.maxPartBytes}`);
    }
    total += entry.size;
    if (total > limits.maxUncompressedBytes) {
      throw archiveError('document_bomb', `the entries expand to more than ${limits.maxUncompressedBytes} bytes`);
    }
  }
  for (const [entry, ratio] of entryRatios(listing)) {
    const size = entry.block === null ? entry.size : blockSize(listing, entry.block);
    if (size > limits.ratioFloorBytes && ratio > limits.maxRatio) {
      throw archiveError('document_bomb', `${entry.block === null ? `entry ${JSON.stringify(entry.path)}` : `solid block ${entry.block}`} is compressed ${Math.round(ratio)}:1; the limit is ${limits.maxRatio}:1`);
    }
  }
  // Last, so that a bomb whose headers 7-Zip finds odd (overlapping entries) is called a bomb.
  if (/unexpected end|headers error|data error|crc failed|is not archive|cannot open/i.test(errorText)) {
    throw archiveError('corrupt_document', `7-Zip: ${errorText}`);
  }
}

function blockSize(listing: ArchiveListing, block: number): number {
  let size = 0;
  for (const entry of listing.entries) if (entry.block === block && entry.type === 'file') size += entry.size;
  return size;
}
