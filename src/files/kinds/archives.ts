// Archives other than zip (zip-based.ts has zip): tar by its ustar magic at byte 257, 7z and RAR
// by their signatures, and gzip, whose first bytes are inflated to tell a .tar.gz (a tar inside)
// from any other gzip stream. The archive tools' checks (entries, links, sizes, ratios) need 7-Zip's
// listing, so they run in the engine (engines/sevenzip.ts), not here; here only what the head
// shows: a tar whose header checksum is wrong is damaged.
import { constants, inflateRawSync } from 'node:zlib';
import { defineContainer, sameKind, startsWith, type Detection } from './container-definition.ts';

export type ArchiveKind = 'tar' | 'tar.gz' | 'gzip' | '7z' | 'rar';

const SEVEN_ZIP = [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c];
const RAR = 'Rar!\x1a\x07';

/** Whether `block` is a tar header: "ustar" at 257 and a checksum that adds up (spaces in its own field). */
export function isTarHeader(block: Buffer): boolean {
  if (block.length < 512 || !startsWith(block, 'ustar', 257)) return false;
  const stored = Number.parseInt(block.subarray(148, 156).toString('latin1').replace(/[\0 ]+$/g, '').trim(), 8);
  let sum = 0;
  for (let i = 0; i < 512; i += 1) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return stored === sum;
}

/** The first bytes a gzip stream inflates to (as many as the head holds), or undefined when they do not inflate. */
export function gzipHead(head: Buffer): Buffer | undefined {
  if (!startsWith(head, [0x1f, 0x8b, 0x08]) || head.length < 18) return undefined;
  const flags = head[3]!;
  let at = 10;
  if (flags & 0x04) at += 2 + head.readUInt16LE(at); // FEXTRA
  if (flags & 0x08) at = head.indexOf(0, at) + 1; // FNAME
  if (flags & 0x10) at = head.indexOf(0, at) + 1; // FCOMMENT
  if (flags & 0x02) at += 2; // FHCRC
  if (at <= 0 || at >= head.length) return undefined;
  try {
    // A partial stream: flush what the first 4 KB inflate to (at most about 4 MB), keep 1 KB.
    return inflateRawSync(head.subarray(at, at + 4096), { finishFlush: constants.Z_SYNC_FLUSH }).subarray(0, 1024);
  } catch {
    return undefined;
  }
}

const MIME: Record<ArchiveKind, string> = {
  tar: 'application/x-tar',
  'tar.gz': 'application/gzip',
  gzip: 'application/gzip',
  '7z': 'application/x-7z-compressed',
  rar: 'application/vnd.rar',
};

const detected = (kind: ArchiveKind, describedAs: string, noun: string) => ({ mimeType: MIME[kind], describedAs, noun });
const accepted = (kind: ArchiveKind, extensions: readonly string[]) => ({ mimeType: MIME[kind], extensions, matches: sameKind(kind) });

export const archiveFiles = defineContainer({
  name: 'archive',
  detected: {
    tar: detected('tar', 'a tar archive', 'tar archive'),
    'tar.gz': detected('tar.gz', 'a gzip-compressed tar (.tar.gz)', 'tar.gz archive'),
    gzip: detected('gzip', 'gzip-compressed data (not a tar)', 'gzip file'),
    '7z': detected('7z', 'a 7z archive', '7z archive'),
    rar: detected('rar', 'a RAR archive', 'RAR archive'),
  },
  accepted: {
    tar: accepted('tar', ['tar']),
    'tar.gz': accepted('tar.gz', ['tar.gz', 'tgz']),
    gzip: { mimeType: MIME.gzip, extensions: ['gz'], matches: (detection: Detection) => detection.kind === 'gzip' || detection.kind === 'tar.gz' },
    '7z': accepted('7z', ['7z']),
    rar: accepted('rar', ['rar']),
  },
  detect({ head }): Detection<ArchiveKind> | undefined {
    if (startsWith(head, SEVEN_ZIP)) return { kind: '7z', mimeType: MIME['7z'] };
    if (startsWith(head, RAR)) return { kind: 'rar', mimeType: MIME.rar };
    if (startsWith(head, 'ustar', 257)) return isTarHeader(head.subarray(0, 512)) ? { kind: 'tar', mimeType: MIME.tar } : { kind: 'tar', mimeType: MIME.tar, corrupt: true };
    const inflated = gzipHead(head);
    if (inflated !== undefined) return startsWith(inflated, 'ustar', 257) ? { kind: 'tar.gz', mimeType: MIME['tar.gz'] } : { kind: 'gzip', mimeType: MIME.gzip };
    if (startsWith(head, [0x1f, 0x8b, 0x08])) return { kind: 'gzip', mimeType: MIME.gzip, corrupt: true };
    return undefined;
  },
});
