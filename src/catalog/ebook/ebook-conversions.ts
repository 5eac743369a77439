import { join } from 'node:path';
import { z } from 'zod';
import { defineFileTool, type AnyTool } from '../../core/define-tool.ts';
import type { EbookInput, EbookOutput } from '../../engines/calibre.ts';
import { outputName } from '../../files/file-pipeline.ts';
import { acceptedKind } from '../../files/kinds/file-kind-registry.ts';
import { pdfOptionsSchema, toPageOptions } from '../conversions/page-options.ts';

// The ebook family, one line per conversion, all with calibre's ebook-convert. Text, headings,
// images and the table of contents carry over; DRM-protected books cannot be read.

const LABELS: Record<EbookInput | EbookOutput, string> = {
  epub: 'EPUB',
  mobi: 'MOBI (Kindle)',
  azw3: 'AZW3 (Kindle KF8)',
  fb2: 'FB2 (FictionBook)',
  pdf: 'PDF',
  txt: 'plain text',
};

/** Label from here, MIME type from the file-kind registry (files/kinds/), the one place a format is described. */
const format = (id: EbookInput | EbookOutput) => ({ label: LABELS[id], mimeType: acceptedKind(id).mimeType });

interface EbookRow {
  from: EbookInput;
  to: EbookOutput;
  description: string;
  sampleText: string;
}

const ROWS: readonly EbookRow[] = [
  { from: 'mobi', to: 'pdf', description: 'Each chapter typeset on the page size asked for (A4 by default), with the table of contents as PDF bookmarks.', sampleText: 'The lighthouse keeper counted seven ships' },
  { from: 'epub', to: 'pdf', description: 'Typeset with the book\'s own styles on the page size asked for (A4 by default); the table of contents becomes PDF bookmarks.', sampleText: 'The orchard was heavy with late apples' },
  { from: 'epub', to: 'mobi', description: 'A Kindle MOBI file holding both the old (KF7) and the new (KF8) formats.', sampleText: 'A caravan crossed the salt flats at noon' },
  { from: 'mobi', to: 'epub', description: 'A reflowable EPUB 2 with the book\'s text, images and table of contents.', sampleText: 'The archivist found a letter in the ledger' },
  { from: 'azw3', to: 'epub', description: 'A reflowable EPUB 2 from a Kindle KF8 book (DRM-free books only).', sampleText: 'Snow fell on the observatory all night' },
  { from: 'epub', to: 'txt', description: 'The book\'s text as UTF-8 paragraphs, without markup.', sampleText: 'The ferry left the harbour before dawn' },
  { from: 'fb2', to: 'epub', description: 'A reflowable EPUB 2 from a FictionBook document, with its sections as chapters.', sampleText: 'The violinist tuned her strings by candlelight' },
  { from: 'azw3', to: 'pdf', description: 'A Kindle KF8 book typeset on the page size asked for (A4 by default).', sampleText: 'Fog rolled over the marsh at sunrise' },
  { from: 'azw3', to: 'mobi', description: 'A Kindle MOBI file for older readers, from a KF8 book.', sampleText: 'The cartographer redrew the coastline' },
  { from: 'epub', to: 'azw3', description: 'A Kindle KF8 (AZW3) book with the EPUB\'s styles kept.', sampleText: 'Lanterns swayed along the canal path' },
  { from: 'mobi', to: 'txt', description: 'The book\'s text as UTF-8 paragraphs, without markup.', sampleText: 'The beekeeper counted forty hives' },
  { from: 'fb2', to: 'pdf', description: 'A FictionBook document typeset on the page size asked for (A4 by default).', sampleText: 'The glassblower shaped a blue vase' },
  { from: 'fb2', to: 'txt', description: 'The document\'s text as UTF-8 paragraphs.', sampleText: 'A heron waited in the shallow reeds' },
];

const noOptions = z.strictObject({});
const withPdfOptions = pdfOptionsSchema.strict();

function ebookConversion(row: EbookRow): AnyTool {
  const from = format(row.from);
  const to = format(row.to);
  const pdf = row.to === 'pdf';
  return defineFileTool({
    family: 'ebook',
    slug: `${row.from}-to-${row.to}`,
    title: `${from.label} to ${to.label}`,
    description: `Converts ${from.label} to ${to.label} with calibre. ${row.description}${pdf ? ' PDF options page_size, orientation and margin are honoured.' : ''} calibre runs offline: images the book links on the web are left out. Upload the file in the multipart field "file"; the answer holds a presigned downloadUrl valid 1 hour.`,
    aliases: [`${row.from} to ${row.to}`, `convert ${row.from} to ${row.to}`, `${from.label} to ${to.label}`, `ebook to ${row.to}`],
    credits: 3,
    // Every schema accepts {}: typed as the widest one so examples type-check for any.
    input: (pdf ? withPdfOptions : noOptions) as typeof withPdfOptions,
    upload: { field: 'file', accept: [row.from] },
    conversion: { from: row.from, to: row.to },
    limits: { timeoutMs: 180_000 },
    engines: ['calibre'],
    examples: [
      {
        title: `${row.from.toUpperCase()} to ${row.to.toUpperCase()}`,
        input: pdf ? { page_size: 'A5', orientation: 'portrait', margin: '15mm' } : {},
        sampleText: row.sampleText,
        expect: { mimeType: to.mimeType, extension: row.to, contains: [row.sampleText] },
      },
    ],
    async run(input, ctx) {
      const outputPath = join(ctx.workDir, `result.${row.to}`);
      const page = pdf ? toPageOptions(input) : undefined;
      await ctx.engines.calibre.convert({ inputPath: ctx.upload.path, from: row.from, outputPath, to: row.to, ...(page ? { page } : {}), signal: ctx.signal });
      return { path: outputPath, fileName: outputName(ctx.upload.originalName, row.to), mimeType: to.mimeType };
    },
  });
}

/** The ebook family: 13 conversions among EPUB, MOBI, AZW3, FB2, PDF and text. */
export const ebookConversions: AnyTool[] = ROWS.map(ebookConversion);
