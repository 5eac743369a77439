import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { noteStreamedBytes } from '../../files/buffer-reclaim.ts';
import { sanitizeHtmlFile } from '../../files/html-sanitizer.ts';
import { readEngineOutput } from '../../files/engine-output.ts';
import type { ConversionJob } from './define-conversions.ts';

// The building blocks of conversion tables: each returns a converter writing job.outputPath.

/** LibreOffice to `format`, with the PDF page options when given. */
export function libreoffice(format: string, options: { inputFilter?: string; inputFilterOptions?: string } = {}) {
  return async (job: ConversionJob): Promise<void> => {
    await job.engines.libreoffice.convert({
      inputPath: job.input.path,
      outputPath: job.outputPath,
      format,
      ...(options.inputFilter === undefined ? {} : { inputFilter: options.inputFilter }),
      ...(options.inputFilterOptions === undefined ? {} : { inputFilterOptions: options.inputFilterOptions }),
      ...(job.page === undefined ? {} : { page: job.page }),
      signal: job.signal,
    });
  };
}

/** Calc's CSV import filter. */
const CSV_FILTER = 'Text - txt - csv (StarCalc)';

/**
 * Calc's CSV import options, token by token: comma (44), double quote (34), UTF-8 (76), from line
 * 1, no column types, default language, quoted fields not forced to text, no special-number
 * (date) detection, three export-only tokens, and token 13, "evaluate formulas". With it false a
 * cell such as `=HYPERLINK(...)`, `=WEBSERVICE(...)` or `=cmd|' /C calc'!A0` is imported as the
 * text it is (OWASP's CSV injection advice: CSV cells are data). Number detection is unaffected:
 * `-12.5` and `+3` are numbers, while `-1+1`, `@SUM(1)` and cells starting with a tab or carriage
 * return are not numbers and were never formulas, so they stay text as well.
 */
function csvImportOptions(evaluateFormulas: boolean): string {
  return `44,34,76,1,,,false,false,true,false,false,,${evaluateFormulas}`;
}

/** The `formulas` option of every CSV-to-spreadsheet row: off unless asked for. */
export const csvFormulasOption = {
  formulas: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .optional()
    .describe('Evaluate cells starting with "=" as formulas (default false: every cell is imported as the text or number it holds). Only for CSV you trust.'),
};

/**
 * CSV (UTF-8, comma, double quotes) to a spreadsheet `format`. Every conversion from CSV into a
 * spreadsheet goes through here, so the formula rule above holds for each of them.
 */
export function csvToSpreadsheet(format: string) {
  return async (job: ConversionJob): Promise<void> => {
    const formulas = job.options?.['formulas'];
    const inputFilterOptions = csvImportOptions(formulas === true || formulas === 'true');
    await libreoffice(format, { inputFilter: CSV_FILTER, inputFilterOptions })(job);
  };
}

/** pandoc from one of its readers to one of its writers; `standalone` makes a whole HTML page. */
export function pandoc(from: string, to: string, options: { standalone?: boolean } = {}) {
  return async (job: ConversionJob): Promise<void> => {
    await job.engines.pandoc.convert({ inputPath: job.input.path, outputPath: job.outputPath, from, to, standalone: options.standalone ?? false, signal: job.signal });
  };
}

const PRINT_CSS = `body{font-family:"DejaVu Sans","Liberation Sans",Arial,sans-serif;font-size:11pt;line-height:1.45;color:#111}
pre,code{font-family:"DejaVu Sans Mono","Liberation Mono",monospace;font-size:9.5pt}
pre{white-space:pre-wrap;overflow-wrap:anywhere}table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}img{max-width:100%}`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** HTML to PDF in Chromium; the page options decide size and margins, else the page's CSS (else A4). */
export async function htmlToPdf(job: ConversionJob, html: string | Buffer): Promise<void> {
  await job.engines.chromium.htmlToPdf({ html, outputPath: job.outputPath, ...(job.page === undefined ? {} : { page: job.page }), signal: job.signal });
}

export async function htmlFileToPdf(job: ConversionJob): Promise<void> {
  await htmlToPdf(job, await readFile(job.input.path));
}

/** Plain text typeset as wrapped monospace lines, so the layout of the text survives. */
export async function textToPdf(job: ConversionJob): Promise<void> {
  const text = (await readFile(job.input.path, 'utf8')).replace(/^\uFEFF/, '');
  await htmlToPdf(job, `<!doctype html><html><head><meta charset="utf-8"><style>${PRINT_CSS}</style></head><body><pre>${escapeHtml(text)}</pre></body></html>`);
}

/**
 * Markdown rendered by pandoc, typeset by Chromium. The rendered HTML is sanitised like any HTML
 * result: raw HTML in Markdown is for layout, and a script would only hold a browser slot.
 */
export async function markdownToPdf(job: ConversionJob): Promise<void> {
  const htmlPath = join(job.workDir, 'rendered.html');
  await job.engines.pandoc.convert({ inputPath: job.input.path, outputPath: htmlPath, from: 'gfm', to: 'html5', standalone: false, signal: job.signal });
  await sanitizeHtmlFile(htmlPath, htmlPath, job.signal);
  const body = await readEngineOutput(htmlPath, 'utf8');
  await htmlToPdf(job, `<!doctype html><html><head><meta charset="utf-8"><style>${PRINT_CSS}</style></head><body>${body}</body></html>`);
}

export async function pdfToText(job: ConversionJob): Promise<void> {
  await job.engines.poppler.pdfToText({ inputPath: job.input.path, outputPath: job.outputPath, signal: job.signal });
}

export async function pdfToHtml(job: ConversionJob): Promise<void> {
  await job.engines.poppler.pdfToHtml({ inputPath: job.input.path, outputPath: job.outputPath, signal: job.signal });
}

/**
 * PDF to an editable DOCX: poppler recovers the text with its paragraphs, bold and italics as
 * HTML, and pandoc writes that as a flowing Word document. Layout-faithful alternatives (text
 * boxes pinned to page positions) are hard to edit, which is what people convert a PDF to DOCX for.
 */
export async function pdfToDocx(job: ConversionJob): Promise<void> {
  const htmlPath = join(job.workDir, 'extracted.html');
  await job.engines.poppler.pdfToHtml({ inputPath: job.input.path, outputPath: htmlPath, signal: job.signal });
  await job.engines.pandoc.convert({ inputPath: htmlPath, outputPath: job.outputPath, from: 'html', to: 'docx', standalone: false, signal: job.signal });
}

const MARKDOWN_SPECIAL = /([\\`*_{}[\]<>#+!|~])/g;

function escapeMarkdownLine(line: string): string {
  return line.replace(MARKDOWN_SPECIAL, '\\$1').replace(/^(\s*)(\d+)\./, '$1$2\\.').replace(/^(\s*)-/, '$1\\-');
}

/**
 * Plain text to Markdown that renders back to the same text: characters Markdown would read as
 * syntax are escaped, paragraphs stay paragraphs and single line breaks stay line breaks.
 *
 * It streams chunk by chunk through pipeline(), which waits for the output to drain, so a 100 MB
 * text costs memory for about one chunk (a single line is held whole). (readline's async iterator, used before,
 * queued the lines it read ahead of a consumer waiting on the output; the queued lines outlived the
 * young generation and grew the server's RSS by about 100 MB on a 100 MB upload.) Line breaks are
 * readline's: \n, \r\n (also split across chunks) and a lone \r.
 */
export async function textToMarkdown(job: ConversionJob): Promise<void> {
  await pipeline(createReadStream(job.input.path, { encoding: 'utf8' }), reclaimedAsRead, textToMarkdownChunks, createWriteStream(job.outputPath, { flags: 'wx' }));
}

/** The chunks as they come, counted for the prompt collection of what they leave behind (files/buffer-reclaim.ts). */
async function* reclaimedAsRead(source: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const chunk of source) {
    noteStreamedBytes(chunk.length);
    yield chunk;
  }
}

/**
 * The conversion over a stream of text chunks: yields the Markdown in pieces of about a chunk.
 * A paragraph's lines go out as they come, joined by hard breaks; only whitespace-only lines at a
 * paragraph's start wait, since a paragraph of nothing but whitespace is left out whole.
 */
export async function* textToMarkdownChunks(source: AsyncIterable<string>): AsyncGenerator<string> {
  let wrote = false;
  let inParagraph = false;
  let blankStart: string[] = [];
  let first = true;
  let partial = '';
  /** The previous chunk ended in \r: a \n opening this one ends no second line. */
  let afterCr = false;
  const lineBreak = /\r\n|\n|\r/g;
  const line = (raw: string): string => {
    const text = first ? raw.replace(/^\uFEFF/, '') : raw;
    first = false;
    if (text === '') {
      inParagraph = false;
      blankStart = [];
      return '';
    }
    const escaped = escapeMarkdownLine(text);
    if (inParagraph) return `  \n${escaped}`;
    if (escaped.trim() === '') {
      blankStart.push(escaped);
      return '';
    }
    const piece = `${wrote ? '\n\n' : ''}${[...blankStart, escaped].join('  \n')}`;
    blankStart = [];
    inParagraph = true;
    wrote = true;
    return piece;
  };
  for await (const chunk of source) {
    let text = chunk;
    if (afterCr && text.startsWith('\n')) text = text.slice(1);
    afterCr = text.endsWith('\r');
    let out = '';
    let from = 0;
    lineBreak.lastIndex = 0;
    for (let m = lineBreak.exec(text); m !== null; m = lineBreak.exec(text)) {
      out += line(partial + text.slice(from, m.index));
      partial = '';
      from = m.index + m[0].length;
    }
    partial += text.slice(from);
    if (out !== '') yield out;
  }
  // A last line without a line break is a line; an empty remainder is none (as readline reads it).
  yield `${partial !== '' ? line(partial) : ''}\n`;
}
