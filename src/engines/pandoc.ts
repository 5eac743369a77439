// pandoc, one process per job (it cannot stay warm), behind the supervisor's queue and timeout.
// A document may name files (images, includes, stylesheets, iframes) for pandoc to read; none
// outside the job may be read, which is kept three ways:
// - every run is in the shared sandbox (src/engines/sandbox.ts): only the job's folders are in
//   view, with a minimal environment and no network;
// - pass 1 reads the input under --sandbox (readers may read only the files named on the command
//   line) through a Lua filter that drops plainly outside images, and hands the document over as
//   JSON; between the passes every image and raw-HTML reference is resolved and judged in
//   TypeScript (src/engines/pandoc-resources.ts);
// - pass 2 writes from the checked JSON, under --sandbox too unless the writer embeds images
//   (pandoc 2.17 cannot write docx/epub/pptx under --sandbox: it cannot read its own data files).
// Before any of it, the input's size and nesting are bounded (src/engines/pandoc-limits.ts); between
// the passes, what a result could run (script links, event attributes, raw HTML in Markdown) is
// taken out too (src/engines/pandoc-active-content.ts).
import { realpath, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unprocessable } from '../core/errors.ts';
import { jobRunOptions, ProgramBackedEngine, type ProgramEngineOptions } from './program.ts';
import { checkPandocInput, type PandocLimits } from './pandoc-limits.ts';
import { neutraliseActiveContent } from './pandoc-active-content.ts';
import { confineResources } from './pandoc-resources.ts';
import { SANDBOX_FILES_DIR } from './sandbox.ts';
import { checkZipBomb } from './zip-guard.ts';
import { readEngineOutput } from '../files/engine-output.ts';
import type { ZipSafetyLimits } from '../files/zip-limits.ts';
import { defineEngine } from './engine-definition.ts';
import { z } from 'zod';

const FILTER = fileURLToPath(new URL('./pandoc-filter.lua', import.meta.url));
const FILTER_FILE = { host: FILTER, inside: `${SANDBOX_FILES_DIR}/pandoc-filter.lua` };

/** Writers that embed (so read) the images a document references. */
const FETCHING_WRITERS = new Set(['docx', 'odt', 'epub', 'epub2', 'epub3', 'pptx', 'fb2', 'icml']);
/** Readers with raw passthrough extensions that `raw: false` turns off. */
const RAW_EXTENSIONS: Record<string, string> = {
  markdown: '-raw_html-raw_tex-raw_attribute',
  markdown_strict: '-raw_html',
  gfm: '-raw_html',
  commonmark: '-raw_html',
  commonmark_x: '-raw_html-raw_attribute',
};

export interface PandocEngineOptions extends ProgramEngineOptions {
  /** bounds on the input checked before pandoc runs */
  limits?: PandocLimits;
  /** the zip-bomb limits (config's ZIP_*) checked before pandoc opens a docx, odt or epub */
  zipLimits?: Partial<ZipSafetyLimits>;
}

export interface PandocConvertOptions {
  inputPath: string;
  outputPath: string;
  /** pandoc reader: markdown, gfm, commonmark, html, docx, odt, rtf, rst, latex, org, textile, mediawiki, epub, ... */
  from: string;
  /** pandoc writer: html, markdown, gfm, plain, docx, odt, rst, latex, epub, ... */
  to: string;
  /** a complete document (default true) */
  standalone?: boolean;
  /** keep raw HTML/TeX passthrough of markdown input (default false) */
  raw?: boolean;
  /** the HTML <title> (default: the input's base name) */
  title?: string;
  wrap?: 'auto' | 'none' | 'preserve';
  signal?: AbortSignal;
  timeoutMs?: number;
}

export class PandocEngine extends ProgramBackedEngine {
  private sandbox: Promise<boolean> | null = null;

  private readonly limits: PandocLimits;
  private readonly zipLimits: Partial<ZipSafetyLimits>;

  constructor(options: PandocEngineOptions = {}) {
    super(
      {
        name: 'pandoc',
        label: 'pandoc',
        programs: ['pandoc'],
        install: 'Debian package pandoc',
        versionArgs: ['--version'],
        versionPattern: /pandoc(?:\.exe)?\s+([\d.]+)/,
      },
      options,
    );
    this.limits = options.limits ?? {};
    this.zipLimits = options.zipLimits ?? {};
  }

  async convert(options: PandocConvertOptions): Promise<void> {
    if (!/^[a-z0-9_]+$/.test(options.from) || !/^[a-z0-9_]+$/.test(options.to)) throw new Error('pandoc formats are plain names');
    const size = await stat(options.inputPath).then((s) => s.size);
    if (size === 0) throw unprocessable('The file is empty');
    await checkZipBomb(options.inputPath, this.zipLimits);
    await checkPandocInput(options.inputPath, options.from, size, this.limits);
    const sandbox = await this.sandboxFlag();
    const reader = options.raw ? options.from : `${options.from}${RAW_EXTENSIONS[options.from] ?? ''}`;
    // Real paths: the sandbox binds them, and the resource check compares real paths.
    const jobDir = await realpath(path.dirname(options.inputPath));
    const input = path.join(jobDir, path.basename(options.inputPath));
    const output = path.join(await realpath(path.dirname(options.outputPath)), path.basename(options.outputPath));
    const run = {
      cwd: jobDir,
      folders: [path.dirname(output)],
      files: [FILTER_FILE],
      ...jobRunOptions(options),
    };
    // Pass 1: read, filter, and hand over the document as JSON.
    const json = await this.engine.exec('pandoc', (pathOf) => [...sandbox, '-f', reader, '-t', 'json', `--lua-filter=${pathOf(FILTER)}`, '--', input], {
      ...run,
      maxStdoutBytes: 256 * 1024 * 1024,
    });
    if (json.truncated) throw unprocessable('The document is too large to convert');
    check(json.code, json.stderr);
    let document: Record<string, unknown>;
    try {
      document = JSON.parse(json.stdout.toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      throw unprocessable('pandoc could not read or convert this document', `pandoc's document could not be read back: ${(error as Error).message}`);
    }
    const checked = Buffer.from(JSON.stringify(neutraliseActiveContent(await confineResources(document, jobDir), options.to)));
    // Pass 2: write from the checked JSON; the writer sees no file outside the job.
    const writerArgs = [
      '-t',
      options.to,
      ...(options.standalone === false ? [] : ['--standalone']),
      ...(options.wrap ? [`--wrap=${options.wrap}`] : []),
      '--metadata',
      `pagetitle=${options.title ?? path.parse(options.inputPath).name}`,
    ];
    const writerSandbox = FETCHING_WRITERS.has(options.to) ? [] : sandbox;
    const result = await this.engine.exec('pandoc', [...writerSandbox, '-f', 'json', ...writerArgs, '-o', output], { ...run, stdin: checked });
    check(result.code, result.stderr);
  }

  /** Convenience for text in, text out (e.g. markdown to HTML). */
  async convertText(text: string, options: Omit<PandocConvertOptions, 'inputPath' | 'outputPath'> & { workDir: string }): Promise<string> {
    const input = path.join(options.workDir, `pandoc-in-${process.hrtime.bigint()}.txt`);
    const output = `${input}.out`;
    await writeFile(input, text);
    await this.convert({ ...options, inputPath: input, outputPath: output });
    try {
      return await readEngineOutput(output, 'utf8');
    } finally {
      await rm(input, { force: true });
      await rm(output, { force: true });
    }
  }

  /** --sandbox exists from pandoc 2.15 on. */
  private sandboxFlag(): Promise<string[]> {
    this.sandbox ??= this.engine.version().then((version) => {
      const [major = 0, minor = 0] = (version ?? '0').split('.').map(Number);
      return major > 2 || (major === 2 && minor >= 15);
    });
    return this.sandbox.then((ok) => (ok ? ['--sandbox'] : []));
  }
}

function check(code: number | null, stderr: string): void {
  if (code === 0) return;
  const detail = stderr.trim().split('\n').filter((l) => !l.startsWith('[WARNING]') && !l.startsWith('  ')).join('\n').slice(0, 500) || `pandoc exited with ${code ?? 'a signal'}`;
  if (code === null || code === 251) throw unprocessable('The document is too large or complex to convert', detail);
  throw unprocessable('pandoc could not read or convert this document', detail);
}

export const pandocEngine = defineEngine({
  name: 'pandoc',
  label: 'pandoc',
  credits: 2,
  settings: z.object({}),
  fromSettings: (): PandocEngineOptions => ({}),
  create: (options) => new PandocEngine(options),
});
