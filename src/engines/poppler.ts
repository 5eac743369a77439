// poppler-utils (pdftotext, pdftohtml, pdfinfo): one process per job, behind the supervisor's
// queue and timeout, without network, under a memory limit.
import { stat } from 'node:fs/promises';
import { inJobFolder } from './job-folder.ts';
import { writeNewFile } from '../files/engine-output.ts';
import path from 'node:path';
import { unprocessable } from '../core/errors.ts';
import { jobRunOptions, ProgramBackedEngine, type ProgramEngineOptions } from './program.ts';
import type { RunResult } from './process.ts';
import { defineEngine } from './engine-definition.ts';
import { z } from 'zod';

export interface PdfJobOptions {
  inputPath: string;
  /** user (or owner) password of an encrypted PDF */
  password?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface PdfToTextOptions extends PdfJobOptions {
  /** also write the text there */
  outputPath?: string;
  /** keep the physical layout (columns, indentation) */
  layout?: boolean;
  firstPage?: number;
  lastPage?: number;
}

export interface PdfToHtmlOptions extends PdfJobOptions {
  /** also write the HTML there */
  outputPath?: string;
}

export interface PdfInfo {
  pages: number;
  /** first page, in points */
  pageSize: { width: number; height: number } | null;
  encrypted: boolean;
  title: string | null;
  author: string | null;
  producer: string | null;
  /** every field pdfinfo printed */
  fields: Record<string, string>;
}

export class PopplerEngine extends ProgramBackedEngine {
  constructor(options: ProgramEngineOptions = {}) {
    super(
      {
        name: 'poppler',
        label: 'poppler-utils',
        programs: ['pdftotext', 'pdftohtml', 'pdfinfo'],
        install: 'Debian package poppler-utils',
        versionArgs: ['-v'],
        versionPattern: /version\s+([\d.]+)/,
      },
      options,
    );
  }

  async pdfToText(options: PdfToTextOptions): Promise<string> {
    const args = ['-enc', 'UTF-8', ...passwordArgs(options)];
    if (options.layout) args.push('-layout');
    if (options.firstPage !== undefined) args.push('-f', String(options.firstPage));
    if (options.lastPage !== undefined) args.push('-l', String(options.lastPage));
    const result = await this.run('pdftotext', [...args, options.inputPath, '-'], options);
    const text = result.stdout.toString('utf8');
    if (options.outputPath) await writeNewFile(options.outputPath, text);
    return text;
  }

  /** One self-contained HTML page for the whole PDF (text and layout; images left out). */
  async pdfToHtml(options: PdfToHtmlOptions): Promise<string> {
    const result = await this.run('pdftohtml', ['-stdout', '-s', '-i', '-noframes', '-q', '-nodrm', ...passwordArgs(options), options.inputPath], options);
    const html = result.stdout.toString('utf8');
    if (options.outputPath) await writeNewFile(options.outputPath, html);
    return html;
  }

  async pdfInfo(options: PdfJobOptions): Promise<PdfInfo> {
    const result = await this.run('pdfinfo', [...passwordArgs(options), options.inputPath], options);
    const fields: Record<string, string> = {};
    for (const line of result.stdout.toString('utf8').split('\n')) {
      const at = line.indexOf(':');
      if (at > 0) fields[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    const size = /([\d.]+) x ([\d.]+) pts/.exec(fields['Page size'] ?? '');
    return {
      pages: Number(fields.Pages ?? 0),
      pageSize: size ? { width: Number(size[1]), height: Number(size[2]) } : null,
      encrypted: (fields.Encrypted ?? 'no').startsWith('yes'),
      title: fields.Title ?? null,
      author: fields.Author ?? null,
      producer: fields.Producer ?? null,
      fields,
    };
  }

  private async run(program: string, args: string[], options: PdfJobOptions): Promise<RunResult> {
    const size = await stat(options.inputPath).then((s) => s.size);
    if (size === 0) throw unprocessable('The file is empty');
    // In a folder of the job's own (job-folder.ts), though the programs answer on stdout. The file
    // keeps its name there and is named relatively: pdftohtml puts the name in <title>, and the
    // server's folders are nobody's business.
    const relative = args.map((arg) => (arg === options.inputPath ? `./${path.basename(arg)}` : arg));
    const result = await inJobFolder(options.inputPath, 'poppler-', (dir) => this.engine.exec(program, relative, { cwd: dir, ...jobRunOptions(options) }));
    if (result.truncated) throw unprocessable('The PDF produces too much output');
    if (result.code !== 0) {
      const detail = result.stderr.trim().slice(0, 500) || `${program} exited with ${result.code ?? result.signal}`;
      if (/password/i.test(result.stderr)) throw unprocessable('The PDF is password-protected', detail);
      if (result.code === null) throw unprocessable('The PDF is too large or complex to process', detail);
      throw unprocessable('The file is not a readable PDF', detail);
    }
    return result;
  }
}

function passwordArgs(options: PdfJobOptions): string[] {
  // pdftotext/pdftohtml/pdfinfo take -upw; an owner password also opens the file.
  return options.password === undefined ? [] : ['-upw', options.password];
}

export const popplerEngine = defineEngine({
  name: 'poppler',
  label: 'poppler',
  credits: 2,
  settings: z.object({}),
  fromSettings: (): ProgramEngineOptions => ({}),
  create: (options) => new PopplerEngine(options),
});
