// The convertors family's three tools that answer in the body instead of a file link (the spec's
// exceptions): to-base64 (plain text), image-metadata (JSON) and csv-2-json (JSON). They go
// through the same file pipeline (upload typed by content, charge, header checks) and declare
// `answer`, so nothing is stored.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineFileTool } from '../../core/define-tool.ts';
import { ServiceError } from '../../core/errors.ts';
import type { ImageInputKind } from '../../engines/image-job.ts';
import { CsvError, parseCsv, sniffDelimiter } from './csv-parse.ts';
import { IMAGE_ACCEPT } from './image-tools.ts';

/** Inputs answered in the body are held in memory as text: 10 MB of file at most (about 13.4 MB of base64). */
export const BODY_ANSWER_MAX_BYTES = 10 * 1024 * 1024;
const CSV_LIMITS = { maxRows: 200_000, maxFields: 1_000 };

function tooLargeForBody(sizeBytes: number): ServiceError {
  return new ServiceError(413, 'file_too_large', 'The file is too large to answer in the body', {
    detail: `It has ${sizeBytes} bytes; this tool answers at most ${BODY_ANSWER_MAX_BYTES} bytes of input in the body. Use a conversion that answers a downloadUrl instead.`,
    extra: { maxBytes: BODY_ANSWER_MAX_BYTES },
  });
}

const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export const toBase64 = defineFileTool({
  family: 'convertors',
  slug: 'to-base64',
  title: 'Image to Base64',
  description: `Encodes an image as Base64 and answers the text itself (text/plain), no link: for embedding in CSS, HTML or JSON. data_uri=true prefixes data:<mime>;base64, . Up to ${BODY_ANSWER_MAX_BYTES / 1024 / 1024} MB. Upload the image in the multipart field "image" (or "file").`,
  aliases: ['image to base64', 'base64 encode image', 'data uri', 'data url'],
  credits: 1,
  input: z.strictObject({ data_uri: flag.optional().describe('prefix the answer with data:<mime>;base64, (default false)') }),
  upload: { field: 'image', accept: IMAGE_ACCEPT, alsoAccepts: ['file'] },
  answer: 'text',
  output: z.string().describe('the Base64 text (REST answers it as text/plain)'),
  examples: [
    { title: 'a PNG as a data URI', input: { data_uri: 'true' }, sampleText: '2x2 png', source: { format: 'png', width: 2, height: 2, colour: [255, 0, 0] }, expect: { mimeType: 'text/plain; charset=utf-8', extension: 'txt', contains: ['data:image/png;base64,iVBORw0KGgo'] } },
    { title: 'an SVG as a data URI', input: { data_uri: 'true' }, sampleText: '4x4 svg', source: { format: 'svg', width: 4, height: 4, colour: [0, 0, 255] }, expect: { mimeType: 'text/plain; charset=utf-8', extension: 'txt', contains: ['data:image/svg+xml;base64,PD94bWwg'] } },
  ],
  async run(input, ctx) {
    if (ctx.upload.sizeBytes > BODY_ANSWER_MAX_BYTES) throw tooLargeForBody(ctx.upload.sizeBytes);
    const base64 = (await readFile(ctx.upload.path)).toString('base64');
    return input.data_uri ? `data:${ctx.upload.mimeType.split(';')[0]};base64,${base64}` : base64;
  },
});

const metadataSchema = z.object({
  format: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  frames: z.number().int(),
  hasAlpha: z.boolean(),
  channels: z.number().int(),
  space: z.string(),
  depth: z.string(),
  density: z.number().nullable(),
  orientation: z.number().int().nullable(),
  exif: z.record(z.string(), z.union([z.string(), z.number(), z.array(z.number())])).nullable(),
  icc: z.object({ description: z.string().nullable(), colorSpace: z.string().nullable(), version: z.string().nullable(), sizeBytes: z.number().int() }).nullable(),
  hasXmp: z.boolean(),
});

type ImageMetadata = z.infer<typeof metadataSchema>;

export const imageMetadata = defineFileTool({
  family: 'convertors',
  slug: 'image-metadata',
  title: 'Image metadata',
  description: 'Reads an image\'s format, dimensions, frames, whether it has alpha, colour space, EXIF (camera, dates, GPS, orientation) and ICC profile, and answers them as JSON in the body (no link). The image is decoded once, so a truncated file is refused. Upload the image in the multipart field "image" (or "file").',
  aliases: ['exif viewer', 'image info', 'photo metadata', 'image dimensions', 'read exif'],
  credits: 1,
  input: z.strictObject({}),
  upload: { field: 'image', accept: IMAGE_ACCEPT, alsoAccepts: ['file'] },
  engines: ['image'],
  answer: 'json',
  output: metadataSchema,
  examples: [
    {
      title: 'a PNG with transparency',
      input: {},
      sampleText: '30x20 png',
      source: { format: 'png', width: 30, height: 20, colour: [10, 20, 30], alpha: 128 },
      // The whole answer (/openapi.json shows it as the example's result), for the files the
      // sources describe written uncompressed (test/convertors/convertors-app.test.ts).
      expect: {
        mimeType: 'application/json',
        extension: 'json',
        contains: [],
        facts: { format: 'png', mimeType: 'image/png', sizeBytes: 2509, width: 30, height: 20, frames: 1, hasAlpha: true, channels: 4, space: 'srgb', depth: 'uchar', density: null, orientation: null, exif: null, icc: null, hasXmp: false } satisfies ImageMetadata,
      },
    },
    {
      title: 'a TIFF',
      input: {},
      sampleText: '24x18 tiff',
      source: { format: 'tiff', width: 24, height: 18, colour: [200, 100, 50] },
      expect: {
        mimeType: 'application/json',
        extension: 'json',
        contains: [],
        facts: { format: 'tiff', mimeType: 'image/tiff', sizeBytes: 1518, width: 24, height: 18, frames: 1, hasAlpha: false, channels: 3, space: 'srgb', depth: 'uchar', density: null, orientation: 1, exif: null, icc: null, hasXmp: false } satisfies ImageMetadata,
      },
    },
    {
      title: 'an SVG, at its declared size',
      input: {},
      sampleText: '50x25 svg',
      source: { format: 'svg', width: 50, height: 25, colour: [0, 128, 0] },
      expect: {
        mimeType: 'application/json',
        extension: 'json',
        contains: [],
        facts: { format: 'svg', mimeType: 'image/svg+xml', sizeBytes: 179, width: 50, height: 25, frames: 1, hasAlpha: true, channels: 4, space: 'srgb', depth: 'uchar', density: 72, orientation: null, exif: null, icc: null, hasXmp: false } satisfies ImageMetadata,
      },
    },
  ],
  async run(_input, ctx) {
    const meta = await ctx.engines.image.metadata({ inputPath: ctx.upload.path, inputKind: ctx.upload.kind as ImageInputKind }, { signal: ctx.signal });
    return { ...meta, format: meta.format, mimeType: ctx.upload.mimeType, sizeBytes: ctx.upload.sizeBytes };
  },
});

const DELIMITERS = { comma: ',', semicolon: ';', tab: '\t', pipe: '|' } as const;

export const csv2Json = defineFileTool({
  family: 'convertors',
  slug: 'csv-2-json',
  title: 'CSV to JSON',
  description: `Parses CSV (RFC 4180: quoted fields may hold delimiters, line breaks and doubled quotes) and answers JSON in the body, no link: with header=true (default) an array of objects keyed by the first row, else an array of arrays. delimiter: auto (default: the most frequent of , ; tab | in the first line), comma, semicolon, tab or pipe. Fields stay strings, exactly as written. Up to ${BODY_ANSWER_MAX_BYTES / 1024 / 1024} MB and ${CSV_LIMITS.maxRows} records. Upload the CSV in the multipart field "file".`,
  aliases: ['csv to json', 'convert csv', 'csv parser', 'spreadsheet to json'],
  credits: 1,
  input: z.strictObject({
    delimiter: z.enum(['auto', 'comma', 'semicolon', 'tab', 'pipe']).optional().describe('auto (default), comma, semicolon, tab or pipe'),
    header: flag.optional().describe('the first record names the columns (default true)'),
  }),
  upload: { field: 'file', accept: ['csv'] },
  // Parsing costs as much as the file is long: on the compute pool, not the main thread.
  compute: 'pool',
  answer: 'json',
  output: z.object({
    columns: z.array(z.string()).describe('the column names (header=true) or empty'),
    rows: z.array(z.union([z.record(z.string(), z.string()), z.array(z.string())])),
    rowCount: z.number().int(),
    delimiter: z.string(),
  }),
  examples: [
    {
      title: 'quoted fields with commas, quotes and a line break',
      input: {},
      sampleText: 'name,quote\n"Smith, Jane","She said ""hi""\nand left"\nBob,plain\n',
      expect: {
        mimeType: 'application/json',
        extension: 'json',
        contains: [],
        facts: { columns: ['name', 'quote'], rows: [{ name: 'Smith, Jane', quote: 'She said "hi"\nand left' }, { name: 'Bob', quote: 'plain' }], rowCount: 2, delimiter: ',' },
      },
    },
    {
      title: 'semicolons, no header',
      input: { delimiter: 'semicolon', header: 'false' },
      sampleText: '1;2;3\n4;5;6\n',
      expect: { mimeType: 'application/json', extension: 'json', contains: [], facts: { columns: [], rows: [['1', '2', '3'], ['4', '5', '6']], rowCount: 2, delimiter: ';' } },
    },
  ],
  async run(input, ctx) {
    if (ctx.upload.sizeBytes > BODY_ANSWER_MAX_BYTES) throw tooLargeForBody(ctx.upload.sizeBytes);
    const text = await readFile(ctx.upload.path, 'utf8');
    const delimiter = input.delimiter === undefined || input.delimiter === 'auto' ? sniffDelimiter(text) : DELIMITERS[input.delimiter];
    let records: string[][];
    try {
      records = parseCsv(text, delimiter, CSV_LIMITS);
    } catch (error) {
      if (error instanceof CsvError) throw new ServiceError(422, 'invalid_csv', 'The CSV could not be parsed', { detail: error.message });
      throw error;
    }
    if (input.header === false) return { columns: [], rows: records, rowCount: records.length, delimiter };
    const [head = [], ...body] = records;
    const columns = uniqueNames(head);
    // Each row becomes an object with every column: short rows under a wide header would make a
    // table far larger than the file (200,000 empty lines x 1,000 columns). A CSV as written has at
    // most one cell per byte, so more cells than the file's size limit is refused before building.
    const cells = body.length * columns.length;
    if (cells > BODY_ANSWER_MAX_BYTES) {
      throw new ServiceError(422, 'output_too_large', 'The result is larger than the output limit', {
        detail: `${body.length} rows under ${columns.length} columns make ${cells} cells; at most ${BODY_ANSWER_MAX_BYTES} are answered in the body. Give rows that fill their columns, or split the file`,
      });
    }
    const rows = body.map((record) => {
      const row: Record<string, string> = {};
      const width = Math.max(columns.length, record.length);
      for (let i = 0; i < width; i++) row[columns[i] ?? `column_${i + 1}`] = record[i] ?? '';
      return row;
    });
    return { columns, rows, rowCount: rows.length, delimiter };
  },
});

/** Header names made unique (a repeated name gets _2, _3 ...) and never empty. */
function uniqueNames(head: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return head.map((raw, i) => {
    const name = raw.trim() === '' ? `column_${i + 1}` : raw;
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : `${name}_${count}`;
  });
}
