// One image job with sharp, as a worker process runs it (image-worker.ts). Every input is opened
// with the pixel limit (libvips checks the header's dimensions before decoding), one frame unless
// the animation is kept (then at most `maxFrames`), sequential reading where the format allows,
// and failOn 'warning', so a truncated or corrupt file is refused rather than half-decoded.
import { readFile, stat } from 'node:fs/promises';
import sharp, { type Sharp, type SharpOptions } from 'sharp';
import { BmpError, decodeBmp } from './image-bmp.ts';
import { readExif, readIcc } from './image-exif.ts';
import type { ImageConvertJob, ImageConvertResult, ImageFailureCode, ImageInputKind, ImageMetadata, ImageMetadataJob, ImageOutputFormat } from './image-job.ts';
import { outputOverLimit, plannedOutputSize } from './image-output-size.ts';
import { UnsafeSvgError, sanitizeSvg } from './image-svg.ts';

/** A failure the input caused, with the code the engine answers 422 with. */
export class ImageInputError extends Error {
  readonly code: ImageFailureCode;

  constructor(code: ImageFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

const ANIMATABLE: ReadonlySet<string> = new Set(['gif', 'webp']);
/** What 'same' writes for inputs libvips cannot write back. */
const SAME_FORMAT: Record<ImageInputKind, ImageOutputFormat> = { png: 'png', jpeg: 'jpeg', gif: 'gif', webp: 'webp', avif: 'avif', tiff: 'tiff', bmp: 'png', svg: 'png' };
/** Raster density for SVG: 72 dpi renders at the size the SVG declares. */
const SVG_DENSITY = 72;

interface Opened {
  image: Sharp;
  /** frames the pipeline holds (1 unless the animation is kept) */
  frames: number;
}

function baseOptions(job: { limits: { maxPixels: number } }): SharpOptions {
  return { limitInputPixels: job.limits.maxPixels, failOn: 'warning' };
}

/** The input as a sharp pipeline, refused before decoding when it declares too much. */
async function open(job: ImageConvertJob | ImageMetadataJob, keepAnimation: boolean): Promise<Opened> {
  const { inputKind: kind, inputPath: path } = job;
  if (kind === 'svg') {
    let svg: string;
    try {
      svg = sanitizeSvg(await readFile(path, 'utf8'));
    } catch (error) {
      if (error instanceof UnsafeSvgError) throw new ImageInputError('unsafe_image', error.message);
      throw error;
    }
    // From a buffer, so librsvg has no base folder to resolve anything against.
    return { image: sharp(Buffer.from(svg), { ...baseOptions(job), density: SVG_DENSITY }), frames: 1 };
  }
  if (kind === 'bmp') {
    try {
      const bmp = decodeBmp(await readFile(path), job.limits.maxPixels);
      return { image: sharp(bmp.data, { raw: { width: bmp.width, height: bmp.height, channels: bmp.channels } }), frames: 1 };
    } catch (error) {
      if (error instanceof BmpError) throw new ImageInputError(error.tooLarge ? 'image_too_large' : 'image_unreadable', error.message);
      throw error;
    }
  }
  if (keepAnimation && ANIMATABLE.has(kind)) {
    // The header tells the frame count; more frames than allowed are refused before any decode.
    const header = await sharp(path, baseOptions(job)).metadata();
    const frames = header.pages ?? 1;
    if (frames > job.limits.maxFrames) throw new ImageInputError('image_too_large', `The animation has ${frames} frames; at most ${job.limits.maxFrames} are converted`);
    if (frames > 1) {
      if ((header.width ?? 0) * (header.pageHeight ?? header.height ?? 0) * frames > job.limits.maxPixels) {
        throw new ImageInputError('image_too_large', `The animation holds ${frames} frames of ${header.width} x ${header.pageHeight} pixels, more than the ${job.limits.maxPixels} pixels allowed in all`);
      }
      return { image: sharp(path, { ...baseOptions(job), animated: true }), frames };
    }
  }
  // Sequential reading streams the rows of formats that allow it (PNG, JPEG): far less memory.
  return { image: sharp(path, { ...baseOptions(job), sequentialRead: true, pages: 1 }), frames: 1 };
}

function encode(image: Sharp, job: ImageConvertJob, format: ImageOutputFormat): Sharp {
  const quality = job.quality;
  switch (format) {
    case 'jpeg':
      // JPEG has no alpha: transparent areas take the background (white unless asked).
      return image.flatten({ background: job.background ?? '#ffffff' }).jpeg({ quality: quality ?? 80, mozjpeg: false });
    case 'png':
      return image.png(job.palette ? { palette: true, quality: quality ?? 80 } : { compressionLevel: 6 });
    case 'webp':
      return image.webp({ quality: quality ?? 80 });
    case 'avif':
      return image.avif({ quality: quality ?? 50, effort: 4 });
    case 'gif':
      return image.gif();
    case 'tiff':
      return image.tiff({ quality: quality ?? 80, compression: quality === undefined ? 'lzw' : 'jpeg' });
  }
}

async function convert(job: ImageConvertJob): Promise<ImageConvertResult> {
  const format = job.format === 'same' ? SAME_FORMAT[job.inputKind] : job.format;
  const keepAnimation = job.animated === true && ANIMATABLE.has(format);
  const { image: opened, frames } = await open(job, keepAnimation);
  if (job.resize !== undefined || (job.rotate !== undefined && job.rotate % 90 !== 0)) {
    // The result is bounded like the input (the parent checked the container's header; this is the
    // decoder's own, upright as autoOrient will turn it), before a pixel is decoded.
    const header = await opened.metadata();
    const width = header.width ?? 0;
    const height = header.pageHeight ?? header.height ?? 0;
    const upright = !job.keepMetadata && (header.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
    const over = outputOverLimit(plannedOutputSize(upright, job), frames, job.limits.maxPixels);
    if (over !== null) throw new ImageInputError('image_too_large', over);
  }
  let image = opened;
  if (job.keepMetadata) image = image.keepMetadata();
  // Stripped metadata takes the EXIF orientation with it: apply it to the pixels first.
  else image = image.autoOrient();
  if (job.rotate !== undefined && job.rotate % 360 !== 0) image = image.rotate(job.rotate, { background: job.background ?? '#00000000' });
  if (job.resize) {
    const { width, height, fit, withoutEnlargement } = job.resize;
    image = image.resize({ ...(width === undefined ? {} : { width }), ...(height === undefined ? {} : { height }), fit, withoutEnlargement: withoutEnlargement ?? false });
  }
  const info = await encode(image, job, format).toFile(job.outputPath);
  const written = await stat(job.outputPath);
  return { format, width: info.width, height: keepAnimation && frames > 1 ? Math.round(info.height / frames) : info.height, frames, sizeBytes: written.size };
}

async function metadata(job: ImageMetadataJob): Promise<ImageMetadata> {
  const { image } = await open(job, false);
  const meta = await image.metadata();
  // Header-only metadata does not notice a truncated body: decoding one pixel row-strip does.
  await image.clone().resize(1, 1, { fit: 'fill' }).raw().toBuffer();
  return {
    format: job.inputKind,
    width: meta.width ?? 0,
    height: meta.pageHeight ?? meta.height ?? 0,
    frames: meta.pages ?? 1,
    hasAlpha: meta.hasAlpha ?? false,
    channels: meta.channels ?? 0,
    space: meta.space ?? 'unknown',
    depth: meta.depth ?? 'unknown',
    density: meta.density ?? null,
    orientation: meta.orientation ?? null,
    exif: readExif(meta.exif),
    icc: readIcc(meta.icc),
    hasXmp: meta.xmp !== undefined,
  };
}

const TOO_LARGE = /exceeds pixel limit|too large|memory/i;

/** Runs the job; a failure the input caused becomes ImageInputError, anything else is rethrown. */
export async function runImageJob(job: ImageConvertJob | ImageMetadataJob): Promise<ImageConvertResult | ImageMetadata> {
  try {
    return job.op === 'convert' ? await convert(job) : await metadata(job);
  } catch (error) {
    if (error instanceof ImageInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    // File system trouble is the service's, not the image's.
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ImageInputError(TOO_LARGE.test(message) ? 'image_too_large' : 'image_unreadable', message.split('\n')[0]!.slice(0, 300));
  }
}

/** What this build of libvips reads, for /readyz and the worker's hello. */
export function readableKinds(): Record<string, boolean> {
  const f = sharp.format as unknown as Record<string, { input?: { file?: boolean } } | undefined>;
  return { png: !!f['png']?.input?.file, jpeg: !!f['jpeg']?.input?.file, gif: !!f['gif']?.input?.file, webp: !!f['webp']?.input?.file, avif: !!f['heif']?.input?.file, tiff: !!f['tiff']?.input?.file, svg: !!f['svg']?.input?.file, bmp: true };
}

export function sharpVersions(): { sharp: string; vips: string } {
  const v = sharp.versions as Record<string, string | undefined>;
  return { sharp: v['sharp'] ?? 'unknown', vips: v['vips'] ?? 'unknown' };
}

/** libvips' own settings for a worker process: no operation cache (memory goes back after each job), `threads` per job. */
export function configureSharp(threads: number): void {
  sharp.cache(false);
  sharp.concurrency(threads);
}
