// 7-Zip (the upstream `7zz` program) for the archive family: list, and convert between zip, 7z,
// tar and tar.gz by extracting into a private folder and packing again. Every run is a process
// per job behind the supervisor's queue and time limit, inside the shared sandbox (no network;
// only the job's folders in view; the upload itself read-only), under an address-space limit.
//
// Extraction is hostile territory, so a conversion goes:
//   1. list (`7zz l -slt`, the format forced) and refuse, before anything is written, a damaged or
//      encrypted archive, a polyglot, `..` or absolute names, links pointing out, device nodes,
//      FIFOs, and more entries, bytes or compression than the limits (archive-entry-policy.ts);
//   2. extract with the kernel's file-size limit (RLIMIT_FSIZE) at the per-entry limit, while a
//      watcher re-counts the folder and stops 7-Zip past the totals (archive-walk.ts); 7-Zip
//      itself writes no more than an entry declares and refuses dangerous links;
//   3. check what landed (every symlink resolved on disk) and the nested archives: each must
//      itself pass the limits, and none may hold archives past the depth limit (42.zip);
//   4. pack, symlinks stored as links (never followed).
import { mkdir, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { inJobFolder } from './job-folder.ts';
import { ServiceError } from '../core/errors.ts';
import { archiveError, assertListingSafe, DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './archive-entry-policy.ts';
import { gunzipBounded, gzipFile, tarSizeLimit } from './archive-gzip.ts';
import { checkExtracted, watchExtraction, type WalkResult } from './archive-walk.ts';
import { isZipError, listZipEntries, type ZipDirectory } from '../files/zip-inspect.ts';
import { findProgram, type RunResult } from './process.ts';
import { ProgramBackedEngine, type ProgramEngineOptions } from './program.ts';
import { parseSevenZipListing, type ArchiveListing } from './sevenzip-listing.ts';
import { defineEngine } from './engine-definition.ts';

/** Formats the archive tools read. */
export type ArchiveSourceFormat = 'zip' | '7z' | 'tar' | 'tar.gz';
/** Formats the archive tools write. */
export type ArchiveTargetFormat = 'zip' | '7z' | 'tar' | 'tar.gz';

/** 7-Zip's name for each format (its -t switch and the listing's Type). */
const SEVENZIP_TYPE: Record<'zip' | '7z' | 'tar', string> = { zip: 'zip', '7z': '7z', tar: 'tar' };

export interface SevenZipEngineOptions extends ProgramEngineOptions {
  /** the archive limits (the service passes its one zip limit set) */
  limits?: Partial<ArchiveLimits>;
  /** the largest archive a conversion may write (the service's output limit) */
  maxOutputBytes?: number;
}

export interface ArchiveJobOptions {
  inputPath: string;
  signal?: AbortSignal;
}

export interface ListOptions extends ArchiveJobOptions {
  format: ArchiveSourceFormat;
  /** a private folder for this job (a .tar.gz is inflated there to be listed) */
  workDir: string;
}

export interface ConvertOptions extends ArchiveJobOptions {
  from: ArchiveSourceFormat;
  to: ArchiveTargetFormat;
  /** a private folder for this job, removed by the caller */
  workDir: string;
  outputPath: string;
  /** compression level 0-9 (7z, zip) or 1-9 (gzip); 7-Zip's default when absent */
  level?: number;
}

export interface ConversionReport {
  entries: number;
  files: number;
  totalBytes: number;
}

const ARCHIVE_NAME = /\.(zip|7z|tar|tgz|gz|tbz2?|bz2|txz|xz|rar|jar|war|ear|zst|tzst)$/i;
const NESTED_BATCH = 200;
// 7-Zip would ask for a password on the terminal; a dummy one makes an encrypted archive fail at once.
const NO_PASSWORD = '-pno-password-given';

export class SevenZipEngine extends ProgramBackedEngine {
  readonly limits: ArchiveLimits;
  private readonly maxOutputBytes: number;
  private sevenZipPath: Promise<string | null> | null = null;

  constructor(options: SevenZipEngineOptions = {}) {
    const { limits, maxOutputBytes, ...programOptions } = options;
    super(
      {
        name: 'sevenzip',
        label: '7-Zip',
        programs: ['7zz', 'prlimit'],
        install: 'the 7zip package (upstream 7-Zip, program 7zz) and util-linux (prlimit)',
        versionArgs: ['i'],
        versionPattern: /7-Zip (?:\(z\) )?([\d.]+)/,
      },
      { jobTimeoutMs: 540_000, ...programOptions },
    );
    this.limits = { ...DEFAULT_ARCHIVE_LIMITS, ...limits };
    this.maxOutputBytes = maxOutputBytes ?? 100 * 1024 * 1024;
  }

  /** The archive's entries as 7-Zip lists them; 422 when it is damaged, encrypted throughout or not `format`. */
  async list(options: ListOptions): Promise<ArchiveListing> {
    const source = await this.unwrap(options.inputPath, options.format, options.workDir, options.signal);
    const listing = await this.listFile(source.path, source.type, options.signal);
    const errors = listing.errors.join('; ');
    if (/wrong password|encrypted/i.test(errors)) throw archiveError('encrypted_document', `7-Zip: ${errors}`);
    if (listing.type !== source.type || /unexpected end|headers error|is not archive|cannot open/i.test(errors)) {
      throw archiveError('corrupt_document', `7-Zip cannot read the file as ${options.format}${errors ? `: ${errors}` : ''}`);
    }
    return listing;
  }

  /** Repacks the archive at `inputPath` as `to` at `outputPath`, with every check of the file comment. */
  async convert(options: ConvertOptions): Promise<ConversionReport> {
    const { signal, workDir } = options;
    const source = await this.unwrap(options.inputPath, options.from, workDir, signal);
    const listing = await this.listFile(source.path, source.type, signal);
    if (source.type === 'zip') await this.checkZipDirectory(source.path);
    assertListingSafe(listing, source.type, this.limits);

    const extracted = path.join(workDir, 'extracted');
    await rm(extracted, { recursive: true, force: true });
    await mkdir(extracted, { mode: 0o700 });
    if (listing.entries.length > 0) await this.extract(source.path, source.type, extracted, signal);
    const walk = await checkExtracted(extracted, this.limits);
    await this.checkNested(extracted, walk, signal);
    if (source.path !== options.inputPath) await rm(source.path, { force: true });

    if (options.to === 'tar.gz') {
      const tarPath = path.join(workDir, 'packed.tar');
      await this.pack(extracted, 'tar', tarPath, undefined, workDir, signal);
      await gzipFile(tarPath, options.outputPath, clampGzipLevel(options.level), signal);
      await rm(tarPath, { force: true });
    } else {
      await this.pack(extracted, options.to, options.outputPath, options.level, workDir, signal);
    }
    await rm(extracted, { recursive: true, force: true });
    return { entries: walk.files + walk.directories + walk.symlinks, files: walk.files, totalBytes: walk.totalBytes };
  }

  /** A .tar.gz is inflated (bounded) to a tar beside it; other formats are read as they are. */
  private async unwrap(inputPath: string, format: ArchiveSourceFormat, workDir: string, signal?: AbortSignal): Promise<{ path: string; type: string }> {
    if ((await stat(inputPath)).size === 0) throw archiveError('corrupt_document', 'the file is empty');
    if (format !== 'tar.gz') return { path: inputPath, type: SEVENZIP_TYPE[format] };
    const tarPath = path.join(workDir, 'unwrapped.tar');
    await gunzipBounded(inputPath, tarPath, tarSizeLimit(this.limits), this.limits, signal);
    return { path: tarPath, type: 'tar' };
  }

  /**
   * 7-Zip lists an overlapping zip (many central records over one compressed stream, David
   * Fifield's bomb) as its first entry and a header error; the central directory, read
   * directly, shows what it really claims.
   */
  private async checkZipDirectory(file: string): Promise<void> {
    let directory: ZipDirectory;
    try {
      directory = await listZipEntries(file, { maxEntries: this.limits.maxEntries });
    } catch (error) {
      if (isZipError(error) && error.code === 'too_many_entries') throw archiveError('document_bomb', error.message);
      return; // 7-Zip's listing judges the rest
    }
    const seen = new Map<number, string>();
    let total = 0;
    for (const entry of directory.entries) {
      const first = seen.get(entry.localHeaderOffset);
      if (first !== undefined) throw archiveError('document_bomb', `entries ${JSON.stringify(first)} and ${JSON.stringify(entry.name)} share the same data (overlapping entries)`);
      seen.set(entry.localHeaderOffset, entry.name);
      total += entry.uncompressedSize;
      if (total > this.limits.maxUncompressedBytes) throw archiveError('document_bomb', `the entries expand to more than ${this.limits.maxUncompressedBytes} bytes`);
    }
  }

  private async listFile(file: string, type: string, signal?: AbortSignal): Promise<ArchiveListing> {
    // 7-Zip cannot open a tar of nothing but its end blocks (what GNU tar and 7-Zip write for no entries).
    if (type === 'tar' && (await onlyZeros(file))) return { type: 'tar', physicalSize: (await stat(file)).size, offset: 0, tailSize: 0, entries: [], errors: [] };
    // In a folder of the job's own (job-folder.ts): listing writes nothing, and the call's folder stays out of reach.
    const result = await inJobFolder(file, '7z-list-', (dir) =>
      this.engine.exec('7zz', ['l', '-slt', `-t${type}`, NO_PASSWORD, '-sccUTF-8', `./${path.basename(file)}`], {
        cwd: dir,
        maxStdoutBytes: 64 * 1024 * 1024,
        ...(signal ? { signal } : {}),
      }),
    );
    if (result.truncated) throw archiveError('document_bomb', 'the listing of the archive is larger than 64 MB');
    return parseSevenZipListing(`${result.stdout.toString('utf8')}\n${result.stderr}`);
  }

  private async extract(archive: string, type: string, into: string, signal?: AbortSignal): Promise<void> {
    const sevenZip = await this.program();
    const watchdog = new AbortController();
    const onCaller = (): void => watchdog.abort(signal?.reason);
    signal?.addEventListener('abort', onCaller, { once: true });
    if (signal?.aborted) onCaller();
    const watch = watchExtraction(into, this.limits, (error) => watchdog.abort(error));
    let result: RunResult;
    try {
      // RLIMIT_FSIZE is per file, enforced by the kernel: one entry cannot outgrow the part limit.
      result = await this.engine.exec(
        'prlimit',
        (pathOf) => [`--fsize=${this.limits.maxPartBytes}`, '--', sevenZip, 'x', `-t${type}`, NO_PASSWORD, '-y', '-bd', '-sccUTF-8', `-o${into}`, '--', pathOf(archive)],
        // Only the output folder is writable; the archive is shown read-only.
        { folders: [into], files: [{ host: archive, inside: '/opt/engines/source' }], signal: watchdog.signal },
      );
    } finally {
      signal?.removeEventListener('abort', onCaller);
      await watch.stop();
    }
    if (result.signal === 'SIGXFSZ') throw archiveError('document_bomb', `an entry expanded past ${this.limits.maxPartBytes} bytes`);
    if (result.code !== 0) throw extractionError(result);
  }

  /**
   * Archives inside the archive are passed on as files, never opened; but each is listed, must
   * itself stay within the limits, and may hold no archive when that would nest past maxDepth.
   */
  private async checkNested(root: string, walk: WalkResult, signal?: AbortSignal): Promise<void> {
    const nested: string[] = [];
    for (const file of walk.filePaths) if (await looksLikeArchive(path.join(root, file))) nested.push(file);
    if (nested.length === 0) return;
    if (this.limits.maxDepth < 2) throw archiveError('unsafe_document', `${JSON.stringify(nested[0])} is an archive inside the archive; nesting is not accepted`);
    for (let at = 0; at < nested.length; at += NESTED_BATCH) {
      const batch = nested.slice(at, at + NESTED_BATCH);
      // Several archives in one run: -an, then each named with -ai! (plain names would filter entries).
      const result = await this.engine.exec('7zz', ['l', '-slt', NO_PASSWORD, '-sccUTF-8', '-an', ...batch.map((file) => `-ai!./${file}`)], {
        cwd: root,
        maxStdoutBytes: 64 * 1024 * 1024,
        ...(signal ? { signal } : {}),
      });
      if (result.truncated) throw archiveError('document_bomb', 'the nested archives list more than 64 MB of entries');
      for (const [name, text] of splitListings(result.stdout.toString('utf8'))) {
        const inner = parseSevenZipListing(text);
        let total = 0;
        for (const entry of inner.entries) {
          if (entry.type === 'file') total += entry.size;
          if (this.limits.maxDepth <= 2 && entry.type === 'file' && ARCHIVE_NAME.test(entry.path)) {
            throw archiveError('document_bomb', `nested archive ${JSON.stringify(name)} holds another archive (${JSON.stringify(entry.path)}): archives nest at most ${this.limits.maxDepth} deep`);
          }
        }
        if (total > this.limits.maxUncompressedBytes || inner.entries.length > this.limits.maxEntries) {
          throw archiveError('document_bomb', `nested archive ${JSON.stringify(name)} declares ${inner.entries.length} entries of ${total} bytes, past the limits`);
        }
      }
    }
  }

  private async pack(from: string, format: 'zip' | '7z' | 'tar', outputPath: string, level: number | undefined, workDir: string, signal?: AbortSignal): Promise<void> {
    const sevenZip = await this.program();
    const args = ['a', `-t${SEVENZIP_TYPE[format]}`, '-snl', '-y', '-bd', '-sccUTF-8'];
    if (level !== undefined && format !== 'tar') args.push(`-mx=${level}`);
    // The output may not outgrow the output limit (a thousand hard links to one file repack large).
    const result = await this.engine.exec('prlimit', [`--fsize=${this.maxOutputBytes + 1024 * 1024}`, '--', sevenZip, ...args, outputPath, '.'], {
      cwd: from,
      folders: [workDir],
      ...(signal ? { signal } : {}),
    });
    if (result.signal === 'SIGXFSZ') {
      throw new ServiceError(422, 'output_too_large', 'The result is larger than the output limit', { detail: `the ${format} archive grew past ${this.maxOutputBytes} bytes` });
    }
    if (result.code !== 0) throw new Error(`7-Zip could not write the ${format} archive (exit ${result.code ?? result.signal}): ${result.stderr.trim().slice(0, 500)}`);
  }

  private async program(): Promise<string> {
    this.sevenZipPath ??= findProgram('7zz');
    const found = await this.sevenZipPath;
    if (found === null) throw new ServiceError(503, 'engine_unavailable', '7-Zip is not installed on this server (missing: 7zz)');
    return found;
  }
}

function clampGzipLevel(level: number | undefined): number {
  if (level === undefined) return 6;
  return Math.min(9, Math.max(1, level));
}

function extractionError(result: RunResult): ServiceError {
  const text = `${result.stdout.toString('utf8')}\n${result.stderr}`;
  const detail = text
    .split('\n')
    .filter((line) => /error|warning|wrong|dangerous|unexpected|crc/i.test(line))
    .join('; ')
    .slice(0, 500);
  if (/wrong password|encrypted/i.test(text)) return archiveError('encrypted_document', detail || '7-Zip needs a password');
  if (/dangerous link/i.test(text)) return archiveError('unsafe_document', detail);
  if (result.code === null) return archiveError('document_bomb', `7-Zip was stopped (${result.signal}) while extracting`);
  return archiveError('corrupt_document', detail || `7-Zip exited with ${result.code}`);
}

/** `7zz l` of several archives prints one "Listing archive: name" section each. */
function splitListings(text: string): [string, string][] {
  const sections: [string, string][] = [];
  const parts = text.split(/^Listing archive: /m);
  for (const part of parts.slice(1)) {
    const newline = part.indexOf('\n');
    sections.push([part.slice(0, newline).trim().replace(/^\.\//, ''), part.slice(newline + 1)]);
  }
  return sections;
}

const MAGIC: readonly { at: number; bytes: Buffer }[] = [
  { at: 0, bytes: Buffer.from('PK\x03\x04', 'latin1') },
  { at: 0, bytes: Buffer.from('PK\x05\x06', 'latin1') },
  { at: 0, bytes: Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]) },
  { at: 0, bytes: Buffer.from([0x1f, 0x8b]) },
  { at: 0, bytes: Buffer.from('BZh', 'latin1') },
  { at: 0, bytes: Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]) },
  { at: 0, bytes: Buffer.from('Rar!\x1a\x07', 'latin1') },
  { at: 0, bytes: Buffer.from([0x28, 0xb5, 0x2f, 0xfd]) },
  { at: 257, bytes: Buffer.from('ustar', 'latin1') },
];

/** Whether `file` is a few KB of zero bytes (an empty tar). */
async function onlyZeros(file: string): Promise<boolean> {
  const { size } = await stat(file);
  if (size === 0 || size > 64 * 1024 || size % 512 !== 0) return false;
  const handle = await open(file, 'r');
  try {
    const bytes = Buffer.alloc(size);
    await handle.read(bytes, 0, size, 0);
    return bytes.every((byte) => byte === 0);
  } finally {
    await handle.close();
  }
}

async function looksLikeArchive(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(262);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return MAGIC.some(({ at, bytes }) => bytesRead >= at + bytes.length && head.subarray(at, at + bytes.length).equals(bytes));
  } finally {
    await handle.close();
  }
}

export const sevenZipEngine = defineEngine({
  name: 'sevenzip',
  label: '7-Zip',
  credits: 2,
  settings: z.object({
    ARCHIVE_JOB_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(540_000)
      .describe('Time one archive job (list, extract, check and pack) may take, in ms (default 9 minutes: LZMA2 packs a few MB/s per core, and an archive may expand to ZIP_MAX_UNCOMPRESSED_BYTES)'),
  }),
  fromSettings: (settings): SevenZipEngineOptions => ({ jobTimeoutMs: settings.ARCHIVE_JOB_TIMEOUT_MS }),
  // The shared zip limit set is the archive limit set: one vocabulary, one config.
  create: ({ zipLimits, ...options }) => new SevenZipEngine({ ...options, ...(zipLimits === undefined ? {} : { limits: zipLimits }) }),
});
