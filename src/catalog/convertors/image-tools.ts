// The convertors family's image tools, one line each: each row names the tool, what it writes,
// its options and an example whose result's format, size and sampled colour the examples suite
// (test/convertors/examples.test.ts) checks. The image engine (engines/image.ts) does the work in
// its sandboxed worker processes; uploads are typed by content, and the file pipeline's safety
// step (the image kinds' check in the file-kind registry, files/kinds/image-header.ts) refuses
// pixel and frame floods from the header before any decoder runs.
import { join } from 'node:path';
import { z } from 'zod';
import { defineFileTool, type AnyTool, type FileToolExample } from '../../core/define-tool.ts';
import type { ImageConvertJob, ImageInputKind, ImageOutputFormat } from '../../engines/image-job.ts';
import { RESIZE_FITS } from '../../engines/image-job.ts';
import { outputName } from '../../files/file-pipeline.ts';

/** Every image kind the engine reads; HEIC (HEVC) is not decoded by sharp's bundled libvips. */
export const IMAGE_ACCEPT: readonly ImageInputKind[] = ['png', 'jpeg', 'gif', 'webp', 'avif', 'tiff', 'bmp', 'svg'];

const OUTPUT: Record<ImageOutputFormat, { extension: string; mimeType: string; label: string }> = {
  jpeg: { extension: 'jpg', mimeType: 'image/jpeg', label: 'JPEG' },
  png: { extension: 'png', mimeType: 'image/png', label: 'PNG' },
  webp: { extension: 'webp', mimeType: 'image/webp', label: 'WebP' },
  avif: { extension: 'avif', mimeType: 'image/avif', label: 'AVIF' },
  gif: { extension: 'gif', mimeType: 'image/gif', label: 'GIF' },
  tiff: { extension: 'tiff', mimeType: 'image/tiff', label: 'TIFF' },
};
/** What 'same' writes for each input (BMP and SVG cannot be written back: PNG). */
const SAME: Record<ImageInputKind, ImageOutputFormat> = { png: 'png', jpeg: 'jpeg', gif: 'gif', webp: 'webp', avif: 'avif', tiff: 'tiff', bmp: 'png', svg: 'png' };

// Multipart fields arrive as text: numbers and booleans are coerced, and bounded.
const quality = z.coerce.number().int().min(1).max(100);
const dimension = z.coerce.number().int().min(1).max(16_384);
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
const colour = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'a hex colour such as #ffffff');

const OPTIONS = {
  quality: quality.optional().describe('1 (smallest) to 100 (best); default 80 (AVIF 50)'),
  background: colour.optional().describe('hex colour for transparent areas (JPEG has no transparency; default #ffffff) and for the corners of a rotation by an angle that is not a multiple of 90'),
  keep_metadata: flag.optional().describe('keep EXIF, ICC and XMP (default false: stripped, after the EXIF orientation is applied to the pixels)'),
  animated: flag.optional().describe('keep every frame of an animated GIF or WebP (default true); false takes the first frame'),
  width: dimension.optional().describe('target width in pixels (1 to 16384)'),
  height: dimension.optional().describe('target height in pixels (1 to 16384)'),
  fit: z.enum(RESIZE_FITS).optional().describe('cover (crop to fill), contain (letterbox), fill (stretch), inside (default: fit within, keep the ratio), outside'),
  angle: z.coerce.number().int().min(-360).max(360).describe('degrees clockwise; multiples of 90 are lossless'),
  format: z.enum(['same', 'jpeg', 'png', 'webp', 'avif', 'tiff']).optional().describe('output format (default: the input\'s; BMP and SVG give PNG)'),
} as const;

type Options = { [K in keyof typeof OPTIONS]?: z.output<(typeof OPTIONS)[K]> };

export interface ImageExample {
  title: string;
  input: Record<string, string>;
  /** the generated source image: its format, size and colour (a left/right pair shows rotations) */
  source: { format: ImageInputKind; width: number; height: number; colour: readonly [number, number, number]; right?: readonly [number, number, number]; alpha?: number; frames?: number };
  /** the result: its format, size, frames and the colour at (x, y) */
  expect: { format: string; width: number; height: number; frames?: number; at?: readonly [number, number]; colour: readonly number[] };
}

interface ImageToolRow {
  slug: string;
  title: string;
  description: string;
  aliases?: readonly string[];
  credits?: number;
  /** the output format, 'same' for the input's, or 'option' when the `format` field chooses */
  format: ImageOutputFormat | 'same' | 'option';
  options: readonly (keyof typeof OPTIONS)[];
  /** options that must be given */
  required?: readonly (keyof typeof OPTIONS)[];
  errorBody?: 'status-message';
  job(o: Options): Partial<ImageConvertJob>;
  examples: readonly ImageExample[];
}

function toFileExample(example: ImageExample, row: ImageToolRow): FileToolExample<Record<string, string>> {
  const format = row.format === 'same' || row.format === 'option' ? (example.input['format'] as ImageOutputFormat | undefined) ?? SAME[example.source.format] : row.format;
  const out = OUTPUT[format];
  return {
    title: example.title,
    input: example.input,
    sampleText: `${example.source.width}x${example.source.height} ${example.source.format}`,
    source: example.source,
    expect: { mimeType: out.mimeType, extension: out.extension, contains: [], facts: example.expect },
  };
}

function defineImageTool(row: ImageToolRow): AnyTool {
  const shape = Object.fromEntries(row.options.map((name) => [name, row.required?.includes(name) ? OPTIONS[name] : OPTIONS[name].optional()]));
  const input = z.strictObject(shape);
  const accepted = IMAGE_ACCEPT.map((k) => k.toUpperCase()).join(', ');
  return defineFileTool({
    family: 'convertors',
    slug: row.slug,
    title: row.title,
    description: `${row.description} Reads ${accepted} (a GIF's first frame unless the output keeps the animation; SVG is rendered with no external references and no entities; HEIC is refused with a 415, as this server's libvips has no HEVC decoder). Upload the image in the multipart field "image" (or "file"); the answer holds a presigned downloadUrl valid 1 hour.`,
    aliases: row.aliases ?? [],
    credits: row.credits ?? 1,
    input,
    // The spec names "image"; "file" is every other file tool's field, so both are taken.
    upload: { field: 'image', accept: IMAGE_ACCEPT, alsoAccepts: ['file'] },
    engines: ['image'],
    ...(row.errorBody === undefined ? {} : { errorBody: row.errorBody }),
    limits: { timeoutMs: 120_000 },
    examples: row.examples.map((example) => toFileExample(example, row)),
    async run(raw, ctx) {
      const o = raw as Options;
      const inputKind = ctx.upload.kind as ImageInputKind;
      const chosen = row.format === 'option' ? (o.format ?? 'same') : row.format;
      const format = chosen === 'same' ? SAME[inputKind] : chosen;
      const out = OUTPUT[format];
      const outputPath = join(ctx.workDir, `result.${out.extension}`);
      await ctx.engines.image.convert({ inputPath: ctx.upload.path, inputKind, outputPath, format, animated: o.animated ?? true, ...row.job(o) }, { signal: ctx.signal });
      return { path: outputPath, fileName: outputName(ctx.upload.originalName, out.extension), mimeType: out.mimeType };
    },
  });
}

const RED = [220, 20, 60] as const;
const BLUE = [30, 60, 200] as const;
const GREEN = [20, 160, 80] as const;
const common = (o: Options): Partial<ImageConvertJob> => ({
  ...(o.quality === undefined ? {} : { quality: o.quality }),
  ...(o.background === undefined ? {} : { background: o.background }),
  ...(o.keep_metadata === undefined ? {} : { keepMetadata: o.keep_metadata }),
});
const to = (format: ImageOutputFormat, label: string, extra: Partial<ImageToolRow> & { examples: readonly ImageExample[] }): ImageToolRow => ({
  slug: `to-${format === 'jpeg' ? 'jpg' : format}`,
  title: `Image to ${label}`,
  description: `Converts an image to ${label}.`,
  aliases: [`convert to ${label.toLowerCase()}`, `image to ${label.toLowerCase()}`, `${label.toLowerCase()} converter`],
  format,
  options: ['quality', 'background', 'keep_metadata', 'animated'],
  job: common,
  ...extra,
});

const ROWS: readonly ImageToolRow[] = [
  to('jpeg', 'JPEG', {
    description: 'Converts an image to JPEG; transparent areas take the background colour (white by default). Failures answer the short body {status, message}.',
    errorBody: 'status-message',
    aliases: ['png to jpg', 'webp to jpg', 'convert to jpg', 'image to jpeg', 'jpg converter'],
    examples: [
      { title: 'PNG to JPEG', input: {}, source: { format: 'png', width: 64, height: 48, colour: RED }, expect: { format: 'jpeg', width: 64, height: 48, colour: RED } },
      { title: 'transparent PNG onto black', input: { background: '#000000' }, source: { format: 'png', width: 16, height: 16, colour: BLUE, alpha: 0 }, expect: { format: 'jpeg', width: 16, height: 16, colour: [0, 0, 0] } },
      { title: 'GIF to JPEG at quality 90', input: { quality: '90' }, source: { format: 'gif', width: 20, height: 10, colour: BLUE }, expect: { format: 'jpeg', width: 20, height: 10, colour: BLUE } },
      { title: 'TIFF to JPEG', input: {}, source: { format: 'tiff', width: 48, height: 32, colour: GREEN }, expect: { format: 'jpeg', width: 48, height: 32, colour: GREEN } },
      { title: 'SVG rendered to JPEG', input: {}, source: { format: 'svg', width: 60, height: 40, colour: RED, right: BLUE }, expect: { format: 'jpeg', width: 60, height: 40, at: [59, 39], colour: BLUE } },
    ],
  }),
  to('png', 'PNG', {
    description: 'Converts an image to lossless PNG, keeping transparency.',
    examples: [
      { title: 'WebP to PNG', input: {}, source: { format: 'webp', width: 30, height: 20, colour: BLUE, alpha: 128 }, expect: { format: 'png', width: 30, height: 20, colour: [...BLUE, 128] } },
      { title: 'SVG rendered to PNG, transparency kept', input: {}, source: { format: 'svg', width: 40, height: 30, colour: GREEN, alpha: 128 }, expect: { format: 'png', width: 40, height: 30, colour: [...GREEN, 128] } },
      { title: 'BMP to PNG', input: {}, source: { format: 'bmp', width: 24, height: 16, colour: RED, right: BLUE }, expect: { format: 'png', width: 24, height: 16, at: [23, 15], colour: BLUE } },
      { title: 'AVIF to PNG', input: {}, source: { format: 'avif', width: 32, height: 32, colour: GREEN }, expect: { format: 'png', width: 32, height: 32, colour: GREEN } },
    ],
  }),
  to('webp', 'WebP', {
    description: 'Converts an image to WebP (lossy, with transparency; an animated GIF stays animated).',
    examples: [
      { title: 'JPEG to WebP', input: { quality: '90' }, source: { format: 'jpeg', width: 40, height: 40, colour: RED }, expect: { format: 'webp', width: 40, height: 40, colour: RED } },
      { title: 'animated GIF to WebP', input: {}, source: { format: 'gif', width: 8, height: 8, colour: RED, frames: 3 }, expect: { format: 'webp', width: 8, height: 8, frames: 3, colour: RED } },
      { title: 'TIFF to WebP', input: { quality: '90' }, source: { format: 'tiff', width: 20, height: 20, colour: BLUE }, expect: { format: 'webp', width: 20, height: 20, colour: BLUE } },
    ],
  }),
  to('avif', 'AVIF', {
    description: 'Converts an image to AVIF (AV1): far smaller than JPEG at the same quality.',
    examples: [
      { title: 'PNG to AVIF', input: { quality: '80' }, source: { format: 'png', width: 32, height: 32, colour: BLUE }, expect: { format: 'heif', width: 32, height: 32, colour: BLUE } },
      { title: 'BMP to AVIF', input: { quality: '80' }, source: { format: 'bmp', width: 16, height: 16, colour: GREEN }, expect: { format: 'heif', width: 16, height: 16, colour: GREEN } },
    ],
  }),
  to('gif', 'GIF', {
    description: 'Converts an image to GIF (256 colours; an animated WebP or GIF stays animated).',
    options: ['background', 'animated'],
    examples: [
      { title: 'PNG to GIF', input: {}, source: { format: 'png', width: 24, height: 12, colour: RED }, expect: { format: 'gif', width: 24, height: 12, colour: RED } },
      { title: 'SVG to GIF', input: {}, source: { format: 'svg', width: 24, height: 12, colour: BLUE }, expect: { format: 'gif', width: 24, height: 12, colour: BLUE } },
    ],
  }),
  {
    slug: 'resize',
    title: 'Resize image',
    description: 'Resizes an image to a width and/or height; `fit` decides how the ratio is kept. The format stays the input\'s unless `format` is given.',
    aliases: ['resize image', 'scale image', 'thumbnail', 'image dimensions'],
    format: 'option',
    options: ['width', 'height', 'fit', 'format', 'quality', 'background', 'keep_metadata'],
    job: (o) => ({ ...common(o), resize: { ...(o.width === undefined ? {} : { width: o.width }), ...(o.height === undefined ? {} : { height: o.height }), fit: o.fit ?? 'inside' } }),
    examples: [
      { title: 'halve the width, keep the ratio', input: { width: '50' }, source: { format: 'png', width: 100, height: 60, colour: RED, right: BLUE }, expect: { format: 'png', width: 50, height: 30, at: [49, 29], colour: BLUE } },
      { title: 'square thumbnail, cropped', input: { width: '32', height: '32', fit: 'cover', format: 'jpeg' }, source: { format: 'png', width: 100, height: 60, colour: RED }, expect: { format: 'jpeg', width: 32, height: 32, colour: RED } },
      { title: 'a TIFF halved, still a TIFF', input: { width: '40' }, source: { format: 'tiff', width: 80, height: 40, colour: RED, right: BLUE }, expect: { format: 'tiff', width: 40, height: 20, at: [39, 19], colour: BLUE } },
      { title: 'an SVG drawn at 4x its declared size', input: { width: '80' }, source: { format: 'svg', width: 20, height: 10, colour: RED, right: BLUE }, expect: { format: 'png', width: 80, height: 40, at: [79, 39], colour: BLUE } },
    ],
  },
  {
    slug: 'compress',
    title: 'Compress image',
    description: 'Re-encodes an image at a lower quality to make it smaller (PNG is quantised to a palette). Metadata is stripped unless keep_metadata.',
    aliases: ['compress image', 'optimize image', 'reduce image size', 'shrink image'],
    format: 'same',
    options: ['quality', 'keep_metadata'],
    job: (o) => ({ ...common(o), quality: o.quality ?? 60, palette: true }),
    examples: [
      { title: 'JPEG at quality 40', input: { quality: '40' }, source: { format: 'jpeg', width: 64, height: 64, colour: BLUE }, expect: { format: 'jpeg', width: 64, height: 64, colour: BLUE } },
      { title: 'AVIF at quality 30', input: { quality: '30' }, source: { format: 'avif', width: 48, height: 48, colour: RED }, expect: { format: 'heif', width: 48, height: 48, colour: RED } },
    ],
  },
  {
    slug: 'rotate',
    title: 'Rotate image',
    description: 'Rotates an image clockwise by `angle` degrees; multiples of 90 are lossless in pixels, other angles enlarge the canvas and fill the corners with `background` (transparent by default).',
    aliases: ['rotate image', 'turn image', 'flip orientation'],
    format: 'same',
    options: ['angle', 'background', 'quality', 'keep_metadata'],
    required: ['angle'],
    job: (o) => ({ ...common(o), ...(o.angle === undefined ? {} : { rotate: o.angle }) }),
    examples: [
      { title: 'a quarter turn clockwise', input: { angle: '90' }, source: { format: 'png', width: 40, height: 20, colour: RED, right: BLUE }, expect: { format: 'png', width: 20, height: 40, at: [0, 39], colour: BLUE } },
      { title: 'a BMP half turned (written as PNG)', input: { angle: '180' }, source: { format: 'bmp', width: 30, height: 10, colour: RED, right: BLUE }, expect: { format: 'png', width: 30, height: 10, at: [0, 0], colour: BLUE } },
    ],
  },
  {
    slug: 'strip-metadata',
    title: 'Strip image metadata',
    description: 'Removes EXIF (camera, GPS position, dates), ICC and XMP from an image, applying its EXIF orientation to the pixels first so it still shows upright.',
    aliases: ['remove exif', 'strip exif', 'remove gps from photo', 'image privacy'],
    format: 'same',
    options: ['quality'],
    job: (o) => ({ ...(o.quality === undefined ? {} : { quality: o.quality }), keepMetadata: false }),
    examples: [
      { title: 'a JPEG without its EXIF', input: {}, source: { format: 'jpeg', width: 30, height: 30, colour: RED }, expect: { format: 'jpeg', width: 30, height: 30, colour: RED } },
      { title: 'a TIFF without its metadata', input: {}, source: { format: 'tiff', width: 30, height: 20, colour: GREEN }, expect: { format: 'tiff', width: 30, height: 20, colour: GREEN } },
    ],
  },
];

/** The image tools of the convertors family, one row each. */
export const imageTools = ROWS.map(defineImageTool);
