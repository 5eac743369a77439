// What the image engine's parent (image.ts) and its worker processes (image-worker.ts) say to each
// other: plain data, so it crosses the IPC channel as it is. No sharp here: the server process
// never loads libvips; only the workers do.
import { DEFAULT_IMAGE_LIMITS, type ImageHeaderLimits } from '../files/kinds/image-header.ts';

/** The image kinds the engine reads (the file-kind registry's names). */
export const IMAGE_INPUT_KINDS = ['png', 'jpeg', 'gif', 'webp', 'avif', 'tiff', 'bmp', 'svg'] as const;
export type ImageInputKind = (typeof IMAGE_INPUT_KINDS)[number];

/** The formats the engine writes. */
export const IMAGE_OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff'] as const;
export type ImageOutputFormat = (typeof IMAGE_OUTPUT_FORMATS)[number];

export const RESIZE_FITS = ['cover', 'contain', 'fill', 'inside', 'outside'] as const;
export type ResizeFit = (typeof RESIZE_FITS)[number];

/**
 * The limits every job is held to while libvips decodes: the same set the upload's header check
 * applies (files/kinds/image-header.ts), so the engine is a second line, never a looser one.
 */
export type ImageLimits = ImageHeaderLimits;
export { DEFAULT_IMAGE_LIMITS };

export interface ImageConvertJob {
  op: 'convert';
  inputPath: string;
  inputKind: ImageInputKind;
  outputPath: string;
  /** the output format; 'same' keeps the input's (resize, rotate, compress, strip-metadata) */
  format: ImageOutputFormat | 'same';
  /** 1 to 100, for the lossy formats (and PNG palette quantisation when `palette`) */
  quality?: number;
  /** PNG: quantise to a palette (smaller files; `quality` then applies) */
  palette?: boolean;
  resize?: { width?: number; height?: number; fit: ResizeFit; withoutEnlargement?: boolean };
  /** degrees clockwise; a multiple of 90 is lossless, any other angle fills the corners with `background` */
  rotate?: number;
  /** CSS colour for transparent areas when the output has no alpha (JPEG) and for rotated corners */
  background?: string;
  /** keep EXIF, ICC and XMP (default false: metadata is stripped, orientation applied first) */
  keepMetadata?: boolean;
  /** keep every frame of an animated input (GIF, WebP) when the output can hold them */
  animated?: boolean;
  limits: ImageLimits;
}

export interface ImageMetadataJob {
  op: 'metadata';
  inputPath: string;
  inputKind: ImageInputKind;
  limits: ImageLimits;
}

export type ImageJob = ImageConvertJob | ImageMetadataJob;

export interface ImageConvertResult {
  format: ImageOutputFormat;
  width: number;
  height: number;
  /** frames written (1 unless animated) */
  frames: number;
  sizeBytes: number;
}

export interface ImageMetadata {
  format: ImageInputKind;
  width: number;
  height: number;
  /** frames (pages) in the file: 1 for a still image */
  frames: number;
  hasAlpha: boolean;
  channels: number;
  /** libvips' colour space name: srgb, b-w, cmyk ... */
  space: string;
  /** bits per sample, e.g. uchar (8) or ushort (16) */
  depth: string;
  density: number | null;
  /** EXIF orientation tag 1-8, null when absent */
  orientation: number | null;
  exif: Record<string, string | number | number[]> | null;
  icc: { description: string | null; colorSpace: string | null; version: string | null; sizeBytes: number } | null;
  hasXmp: boolean;
}

export type WorkerRequest = { id: number; job: ImageJob };

/** A failure the input caused (422) carries `code`; anything else is the engine's own (5xx). */
export type WorkerReply =
  | { id: number; ok: true; result: ImageConvertResult | ImageMetadata }
  | { id: number; ok: false; code: ImageFailureCode | null; message: string };

/** The first message a worker sends: it has loaded libvips. */
export interface WorkerHello {
  ready: true;
  versions: { sharp: string; vips: string };
  /** which inputs this build of libvips can read */
  readable: Record<string, boolean>;
}

export type ImageFailureCode =
  /** the input declares more pixels or frames than allowed */
  | 'image_too_large'
  /** libvips could not decode the input (truncated, corrupt, a codec this build lacks) */
  | 'image_unreadable'
  /** an SVG with a DTD internal subset (entities) or other refused constructs */
  | 'unsafe_image'
  /** an option that does not apply to this input (e.g. a BMP compression we do not decode) */
  | 'unsupported_image';
