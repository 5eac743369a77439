// calibre's ebook-convert, one process per job behind the supervisor's queue and time limit, in
// the shared sandbox: no network, only the job's folders in view, HOME, calibre's config and its
// temporary files inside the job folder (removed with it). ebook-convert picks its reader and
// writer from the file extensions, so the upload is linked under a name with the extension of the
// kind its content was detected as; the name the client gave is never used.
//
// Memory: PDF output renders in Qt WebEngine (Chromium), which reserves tens of GiB of address
// space, so the usual address-space limit (prlimit --as) kills it before it starts. calibre runs
// under a data-segment limit instead (prlimit --data), which bounds what it really allocates.
//
// Start-up: the smallest book costs ebook-convert about 1.2 s, nearly all of it importing and
// setting up its conversion pipeline (`--version` alone takes 0.14 s; bench/audio.ts). A warm
// pool (a preloaded process forking per job) would have to share one sandbox between jobs, so
// each job could see the others' folders; the per-job sandbox is kept and the second is paid.
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ServiceError, unprocessable } from '../core/errors.ts';
import { fb2Problem, palmDatabaseTruncation } from '../files/kinds/ebook.ts';
import { corrupt, unsafe } from '../files/kinds/safety-errors.ts';
import type { ZipSafetyLimits } from '../files/zip-limits.ts';
import { defineEngine } from './engine-definition.ts';
import { resolvePage, type PageOptions } from './page.ts';
import { jobRunOptions, ProgramBackedEngine, type ProgramEngineOptions } from './program.ts';
import { linkOrCopy } from '../files/engine-output.ts';
import { takeResult } from './job-folder.ts';
import { checkZipBomb } from './zip-guard.ts';

export type EbookInput = 'epub' | 'mobi' | 'azw3' | 'fb2';
export type EbookOutput = 'pdf' | 'epub' | 'mobi' | 'azw3' | 'txt';

export interface CalibreEngineOptions extends Omit<ProgramEngineOptions, 'memoryLimitBytes'> {
  /** data-segment limit per run in bytes (default 2 GiB; 0 = none) */
  memoryLimitBytes?: number;
  /** the zip-bomb limits checked before calibre opens an EPUB */
  zipLimits?: Partial<ZipSafetyLimits>;
}

export interface EbookConvertOptions {
  inputPath: string;
  /** what the input was detected as, by content */
  from: EbookInput;
  outputPath: string;
  to: EbookOutput;
  /** PDF output only: page size, orientation, margins */
  page?: PageOptions;
  signal?: AbortSignal;
  timeoutMs?: number;
}

const DEFAULT_DATA_LIMIT = 2 * 1024 ** 3;
const MM_TO_PT = 72 / 25.4;

export class CalibreEngine extends ProgramBackedEngine {
  private readonly dataLimit: number;
  private readonly zipLimits: Partial<ZipSafetyLimits>;

  constructor(options: CalibreEngineOptions = {}) {
    super(
      {
        name: 'calibre',
        label: 'calibre',
        programs: ['ebook-convert', 'prlimit', 'env'],
        install: 'Debian package calibre',
        versionArgs: ['--version'],
        versionPattern: /calibre\s+([\d.]+)/,
      },
      // calibre's reader and writer threads, and the one Chromium renderer of PDF output, are
      // heavy: two at once on a small machine, each with a long time limit.
      { concurrency: 2, jobTimeoutMs: 180_000, ...options, memoryLimitBytes: 0 },
    );
    this.dataLimit = options.memoryLimitBytes ?? DEFAULT_DATA_LIMIT;
    this.zipLimits = options.zipLimits ?? {};
  }

  /** Converts one ebook; 422 when calibre cannot read it, it is too large, or it yields nothing. */
  async convert(options: EbookConvertOptions): Promise<void> {
    const size = await stat(options.inputPath).then((s) => s.size);
    if (size === 0) throw unprocessable('The file is empty');
    if (options.from === 'epub') await checkZipBomb(options.inputPath, this.zipLimits);
    // The upload check makes these too (files/kinds/ebook.ts); the engine does not rely on its callers.
    if (options.from === 'mobi' || options.from === 'azw3') {
      const cut = await palmDatabaseTruncation(options.inputPath);
      if (cut !== null) throw corrupt(`${options.from.toUpperCase()} ebook`, cut);
    }
    if (options.from === 'fb2') {
      const problem = await fb2Problem(options.inputPath);
      if (problem !== null) throw problem.cut ? corrupt('FB2 ebook', problem.detail) : unsafe(problem.detail);
    }
    // Everything calibre touches lives in one folder beside the output, removed afterwards.
    const jobDir = path.join(path.dirname(options.outputPath), `calibre-${process.hrtime.bigint()}`);
    const home = path.join(jobDir, 'home');
    await mkdir(path.join(home, 'tmp'), { recursive: true });
    const input = path.join(jobDir, `input.${options.from}`);
    const output = path.join(jobDir, `output.${options.to}`);
    try {
      await linkOrCopy(options.inputPath, input);
      const env = [
        `HOME=${home}`,
        `CALIBRE_CONFIG_DIRECTORY=${path.join(home, 'config')}`,
        `CALIBRE_TEMP_DIR=${path.join(home, 'tmp')}`,
        `CALIBRE_CACHE_DIRECTORY=${path.join(home, 'cache')}`,
        `XDG_RUNTIME_DIR=${path.join(home, 'tmp')}`,
        'QT_QPA_PLATFORM=offscreen',
        // The sandbox is the jail: Chromium's own needs privileges a sandboxed process lacks.
        'QTWEBENGINE_DISABLE_SANDBOX=1',
        'QTWEBENGINE_CHROMIUM_FLAGS=--no-sandbox --disable-gpu',
      ];
      const limit = this.dataLimit > 0 ? [`--data=${Math.floor(this.dataLimit)}`] : [];
      const args = ['./' + path.basename(input), './' + path.basename(output), ...outputArgs(options)];
      // prlimit and env find the next program on the sandbox's PATH.
      const result = await this.engine.exec('prlimit', [...limit, '--', 'env', ...env, 'ebook-convert', ...args], {
        cwd: jobDir,
        ...jobRunOptions(options),
        maxStdoutBytes: 4 * 1024 * 1024,
      });
      const produced = await stat(output).then((s) => s.size, () => 0);
      if (result.code !== 0 || produced === 0) {
        const detail = explain(result.stderr + result.stdout.toString('utf8'), jobDir);
        if (result.code === null) throw new ServiceError(422, 'document_too_complex', 'The ebook is too large or complex to convert', { detail });
        if (/DRM|encrypted/i.test(detail)) throw new ServiceError(422, 'encrypted_document', 'The ebook is protected by DRM', { detail });
        throw unprocessable(`calibre could not convert this ${options.from.toUpperCase()} ebook to ${options.to.toUpperCase()}`, detail);
      }
      await rm(options.outputPath, { force: true });
      // As a regular file only: a link calibre left is never followed on the host (job-folder.ts).
      await takeResult(output, options.outputPath);
    } finally {
      await rm(jobDir, { recursive: true, force: true });
    }
  }
}

/** calibre's options for the output: PDF page setup, and text as UTF-8 paragraphs. */
function outputArgs(options: EbookConvertOptions): string[] {
  if (options.to === 'txt') return ['--txt-output-encoding=utf-8', '--newline=unix'];
  if (options.to !== 'pdf') return [];
  const page = resolvePage(options.page);
  if (page === null) return ['--paper-size=a4'];
  const args = [`--custom-size=${round(page.widthMm)}x${round(page.heightMm)}`, '--unit=millimeter'];
  if (page.marginsMm) {
    const [top, right, bottom, left] = page.marginsMm.map((mm) => round(mm * MM_TO_PT));
    args.push(`--pdf-page-margin-top=${top}`, `--pdf-page-margin-right=${right}`, `--pdf-page-margin-bottom=${bottom}`, `--pdf-page-margin-left=${left}`);
  }
  return args;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The lines of calibre's output that say what went wrong, without the job folder's path. */
function explain(output: string, jobDir: string): string {
  const lines = output.split(jobDir).join('.').split('\n').map((l) => l.trim()).filter(Boolean);
  const error = lines.filter((l) => /error|exception|invalid|not a|unsupported|drm|cannot|could not|failed/i.test(l));
  return (error.length > 0 ? error.slice(-4) : lines.slice(-3)).join('\n').slice(0, 500) || 'calibre produced no output';
}

export const calibreEngine = defineEngine({
  name: 'calibre',
  label: 'calibre',
  credits: 3,
  settings: z.object({
    CALIBRE_MEMORY_LIMIT_BYTES: z.coerce.number().int().min(0).default(DEFAULT_DATA_LIMIT).describe('Data-segment limit of one ebook-convert run in bytes (default 2 GiB; 0 = none)'),
  }),
  fromSettings: (settings): CalibreEngineOptions => ({ memoryLimitBytes: settings.CALIBRE_MEMORY_LIMIT_BYTES }),
  create: (options) => new CalibreEngine(options),
});
