// Image dimensions and frame counts read from the container's headers, before any decoder sees
// the file: a PNG declaring 100,000 x 100,000 pixels or a GIF of 10,000 frames is refused here,
// in the server, without libvips. Every reader walks structures by their declared lengths with
// bounded steps and reads the file in small chunks (a 100 MB GIF is never held in memory).
import { ServiceError } from '../../core/errors.ts';
import { openForReading, type ReadableFile } from '../file-reader.ts';

export interface ImageHeader {
  width: number;
  height: number;
  /** frames (GIF, animated WebP, TIFF pages); 1 for a still image */
  frames: number;
}

export interface ImageHeaderLimits {
  /** width x height an image may declare (a pixel flood is far beyond) */
  maxPixels: number;
  /** frames (GIF, WebP, TIFF pages) an image may hold */
  maxFrames: number;
}

/** The one image limit set: the header check here and the image engine's decoders use it (config IMAGE_MAX_*). */
export const DEFAULT_IMAGE_LIMITS: ImageHeaderLimits = { maxPixels: 100_000_000, maxFrames: 500 };

/** Why a header is refused: `too_large` (pixel flood, frame flood), `unsafe` (an SVG declaring entities) or `unreadable` (truncated, malformed). */
export type ImageHeaderRefusal = 'too_large' | 'unsafe' | 'unreadable';

export class ImageHeaderError extends Error {
  readonly reason: ImageHeaderRefusal;

  constructor(reason: ImageHeaderRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

const MAX_STEPS = 200_000;

/** Positional reads through a small window. */
class Reader {
  readonly #file: ReadableFile;
  readonly size: number;
  #buf = Buffer.alloc(0);
  #at = 0;

  constructor(file: ReadableFile, size: number) {
    this.#file = file;
    this.size = size;
  }

  /** `length` bytes at `position`, or fewer at the end of the file. */
  async bytes(position: number, length: number): Promise<Buffer> {
    if (position >= this.#at && position + length <= this.#at + this.#buf.length) return this.#buf.subarray(position - this.#at, position - this.#at + length);
    const size = Math.max(length, 64 * 1024);
    const buf = Buffer.alloc(size);
    const { bytesRead } = await this.#file.read(buf, 0, size, position);
    this.#buf = buf.subarray(0, bytesRead);
    this.#at = position;
    return this.#buf.subarray(0, Math.min(length, bytesRead));
  }

  async need(position: number, length: number, what: string): Promise<Buffer> {
    const b = await this.bytes(position, length);
    if (b.length < length) throw new ImageHeaderError('unreadable', `The file is truncated: it ends inside its ${what}`);
    return b;
  }
}

async function png(r: Reader): Promise<ImageHeader> {
  const ihdr = await r.need(8, 25, 'PNG header');
  if (ihdr.toString('latin1', 4, 8) !== 'IHDR') throw new ImageHeaderError('unreadable', 'The PNG does not start with its IHDR chunk');
  return { width: ihdr.readUInt32BE(8), height: ihdr.readUInt32BE(12), frames: 1 };
}

async function gif(r: Reader): Promise<ImageHeader> {
  const head = await r.need(0, 13, 'GIF header');
  const width = head.readUInt16LE(6);
  const height = head.readUInt16LE(8);
  let pos = 13;
  if (head[10]! & 0x80) pos += 3 * (1 << ((head[10]! & 7) + 1));
  let frames = 0;
  const skipSubBlocks = async () => {
    for (let step = 0; step < MAX_STEPS * 10; step++) {
      const len = (await r.need(pos, 1, 'GIF data'))[0]!;
      pos += 1 + len;
      if (len === 0) return;
    }
    throw new ImageHeaderError('unreadable', 'The GIF has an endless data block');
  };
  for (let step = 0; step < MAX_STEPS; step++) {
    const introducer = (await r.need(pos, 1, 'GIF blocks'))[0]!;
    if (introducer === 0x3b) return { width, height, frames: Math.max(1, frames) };
    if (introducer === 0x21) {
      pos += 2;
      await skipSubBlocks();
    } else if (introducer === 0x2c) {
      frames++;
      const desc = await r.need(pos, 10, 'GIF image descriptor');
      // Each frame's own rectangle counts too: a frame larger than the screen is decoded at its size.
      if (desc.readUInt16LE(5) * desc.readUInt16LE(7) > width * height && desc.readUInt16LE(5) * desc.readUInt16LE(7) > 0) {
        return { width: Math.max(width, desc.readUInt16LE(5)), height: Math.max(height, desc.readUInt16LE(7)), frames };
      }
      pos += 10;
      if (desc[9]! & 0x80) pos += 3 * (1 << ((desc[9]! & 7) + 1));
      pos += 1; // LZW minimum code size
      await skipSubBlocks();
    } else {
      // Trailing bytes after the last frame: decoders stop at the first frame they cannot read.
      return { width, height, frames: Math.max(1, frames) };
    }
  }
  return { width, height, frames };
}

const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

async function jpeg(r: Reader): Promise<ImageHeader> {
  let pos = 2;
  for (let step = 0; step < MAX_STEPS; step++) {
    const m = await r.need(pos, 4, 'JPEG markers');
    if (m[0] !== 0xff) throw new ImageHeaderError('unreadable', 'The JPEG has a broken marker');
    const marker = m[1]!;
    if (marker === 0xff) {
      pos += 1;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2;
      continue;
    }
    if (SOF.has(marker)) {
      const sof = await r.need(pos + 4, 5, 'JPEG frame header');
      return { width: sof.readUInt16BE(3), height: sof.readUInt16BE(1), frames: 1 };
    }
    if (marker === 0xd9 || marker === 0xda) break;
    pos += 2 + m.readUInt16BE(2);
  }
  throw new ImageHeaderError('unreadable', 'The JPEG has no frame header before its image data');
}

async function webp(r: Reader): Promise<ImageHeader> {
  let pos = 12;
  let canvas: ImageHeader | null = null;
  let frames = 0;
  for (let step = 0; step < MAX_STEPS && pos + 8 <= r.size; step++) {
    const chunk = await r.need(pos, 8, 'WebP chunk');
    const type = chunk.toString('latin1', 0, 4);
    const size = chunk.readUInt32LE(4);
    const body = pos + 8;
    if (type === 'VP8X') {
      const b = await r.need(body, 10, 'WebP VP8X chunk');
      canvas = { width: 1 + b.readUIntLE(4, 3), height: 1 + b.readUIntLE(7, 3), frames: 1 };
    } else if (type === 'ANMF') {
      frames++;
    } else if (type === 'VP8 ' && canvas === null) {
      const b = await r.need(body, 10, 'WebP VP8 header');
      return { width: b.readUInt16LE(6) & 0x3fff, height: b.readUInt16LE(8) & 0x3fff, frames: 1 };
    } else if (type === 'VP8L' && canvas === null) {
      const b = await r.need(body, 5, 'WebP VP8L header');
      const bits = b.readUInt32LE(1);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1, frames: 1 };
    }
    pos = body + size + (size & 1);
  }
  if (canvas === null) throw new ImageHeaderError('unreadable', 'The WebP has no image header');
  return { ...canvas, frames: Math.max(1, frames) };
}

async function tiff(r: Reader): Promise<ImageHeader> {
  const head = await r.need(0, 8, 'TIFF header');
  const le = head.toString('latin1', 0, 2) === 'II';
  const u16 = (b: Buffer, at: number) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (b: Buffer, at: number) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at));
  let offset = u32(head, 4);
  let first: { width: number; height: number } | null = null;
  let pages = 0;
  const seen = new Set<number>();
  while (offset !== 0 && !seen.has(offset) && pages < 100_000) {
    seen.add(offset);
    pages++;
    const count = u16(await r.need(offset, 2, 'TIFF directory'), 0);
    const entries = await r.need(offset + 2, count * 12 + 4, 'TIFF directory');
    if (first === null) {
      let width = 0;
      let height = 0;
      for (let i = 0; i < count; i++) {
        const tag = u16(entries, i * 12);
        const type = u16(entries, i * 12 + 2);
        const value = type === 3 ? u16(entries, i * 12 + 8) : u32(entries, i * 12 + 8);
        if (tag === 256) width = value;
        if (tag === 257) height = value;
      }
      first = { width, height };
    }
    offset = u32(entries, count * 12);
  }
  if (first === null) throw new ImageHeaderError('unreadable', 'The TIFF has no image directory');
  return { ...first, frames: pages };
}

/** AVIF/HEIF: the largest 'ispe' (image spatial extents) property under meta/iprp/ipco. */
async function isobmff(r: Reader): Promise<ImageHeader> {
  let best: ImageHeader | null = null;
  let steps = 0;
  const walk = async (start: number, end: number, depth: number): Promise<void> => {
    let pos = start;
    while (pos + 8 <= end && steps++ < MAX_STEPS) {
      const h = await r.need(pos, 8, 'HEIF box');
      let size = h.readUInt32BE(0);
      const type = h.toString('latin1', 4, 8);
      let header = 8;
      if (size === 1) {
        const big = await r.need(pos + 8, 8, 'HEIF box');
        size = Number(big.readBigUInt64BE(0));
        header = 16;
      } else if (size === 0) size = end - pos;
      if (size < header) throw new ImageHeaderError('unreadable', 'The HEIF file has a malformed box');
      if (type === 'ispe') {
        const b = await r.need(pos + header + 4, 8, 'HEIF ispe property');
        const found = { width: b.readUInt32BE(0), height: b.readUInt32BE(4), frames: 1 };
        if (best === null || found.width * found.height > best.width * best.height) best = found;
      } else if (depth < 4 && (type === 'meta' || type === 'iprp' || type === 'ipco')) {
        await walk(pos + header + (type === 'meta' ? 4 : 0), Math.min(end, pos + size), depth + 1);
      }
      pos += size;
    }
  };
  await walk(0, r.size, 0);
  if (best === null) throw new ImageHeaderError('unreadable', 'The HEIF/AVIF file declares no image size');
  return best;
}

async function bmp(r: Reader): Promise<ImageHeader> {
  const h = await r.need(0, 26, 'BMP header');
  const core = h.readUInt32LE(14) === 12;
  return { width: core ? h.readUInt16LE(18) : Math.abs(h.readInt32LE(18)), height: core ? h.readUInt16LE(20) : Math.abs(h.readInt32LE(22)), frames: 1 };
}

const SVG_LENGTH = /^\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*(px|pt|pc|mm|cm|in)?\s*$/i;
const UNIT_PX: Record<string, number> = { px: 1, pt: 4 / 3, pc: 16, mm: 96 / 25.4, cm: 96 / 2.54, in: 96 };

/** SVG: the root's width and height (or its viewBox) in pixels, from the first 64 KB. */
async function svg(r: Reader): Promise<ImageHeader> {
  const text = (await r.bytes(0, 64 * 1024)).toString('utf8');
  if (/<!ENTITY/i.test(text) || /<!DOCTYPE[^>[]*\[/i.test(text)) throw new ImageHeaderError('unsafe', 'The SVG declares XML entities (a DTD internal subset); they are refused');
  const root = /<svg\b([^>]*)>/i.exec(text);
  if (!root) throw new ImageHeaderError('unreadable', 'The SVG has no <svg> element in its first 64 KB');
  const attr = (name: string) => new RegExp(`\\s${name}\\s*=\\s*(["'])([^"']*)\\1`, 'i').exec(root[1]!)?.[2];
  const length = (value: string | undefined): number | null => {
    const m = value === undefined ? null : SVG_LENGTH.exec(value);
    return m ? Number(m[1]) * (UNIT_PX[(m[2] ?? 'px').toLowerCase()] ?? 1) : null;
  };
  const box = attr('viewBox')?.trim().split(/[\s,]+/).map(Number);
  const width = length(attr('width')) ?? (box?.[2] !== undefined && Number.isFinite(box[2]) ? box[2] : 300);
  const height = length(attr('height')) ?? (box?.[3] !== undefined && Number.isFinite(box[3]) ? box[3] : 150);
  return { width: Math.ceil(width), height: Math.ceil(height), frames: 1 };
}

const READERS: Record<string, (r: Reader) => Promise<ImageHeader>> = { png, gif, jpeg, webp, tiff, avif: isobmff, heic: isobmff, bmp, svg };

/** The header of an image file of `kind` (a file-kind name), or undefined when the kind is not an image. */
export async function readImageHeader(path: string, kind: string): Promise<ImageHeader | undefined> {
  const read = READERS[kind];
  if (read === undefined) return undefined;
  const file = await openForReading(path);
  try {
    return await read(new Reader(file, (await file.stat()).size));
  } catch (error) {
    if (error instanceof RangeError) throw new ImageHeaderError('unreadable', 'The image header is malformed');
    throw error;
  } finally {
    await file.close();
  }
}

/**
 * The pixel-flood and frame-flood check: throws ImageHeaderError when the header declares no
 * pixels, more pixels than `maxPixels` or more frames than `maxFrames`. Returns the header.
 */
export async function checkImageHeader(path: string, kind: string, limits: ImageHeaderLimits): Promise<ImageHeader | undefined> {
  const header = await readImageHeader(path, kind);
  if (header === undefined) return undefined;
  const { width, height, frames } = header;
  if (width <= 0 || height <= 0) throw new ImageHeaderError('unreadable', `The ${kind.toUpperCase()} declares ${width} x ${height} pixels`);
  if (width * height > limits.maxPixels) {
    throw new ImageHeaderError('too_large', `The ${kind.toUpperCase()} declares ${width} x ${height} pixels (${(width * height).toLocaleString('en')}); the limit is ${limits.maxPixels.toLocaleString('en')} pixels`);
  }
  if (frames > limits.maxFrames) throw new ImageHeaderError('too_large', `The ${kind.toUpperCase()} holds ${frames} frames; the limit is ${limits.maxFrames}`);
  return header;
}

/**
 * The file-kind registry's safety check for every image kind (images.ts, svg.ts): the header
 * check with the configured limits (IMAGE_MAX_*; the defaults when none are given), answered as
 * the image engine answers the same faults: 422 `image_too_large`, `unsafe_image` or `image_unreadable`.
 */
export async function assertImageHeaderSafe(path: string, kind: string, limits: ImageHeaderLimits = DEFAULT_IMAGE_LIMITS): Promise<void> {
  try {
    await checkImageHeader(path, kind, limits);
  } catch (error) {
    if (!(error instanceof ImageHeaderError)) throw error;
    if (error.reason === 'too_large') {
      throw new ServiceError(422, 'image_too_large', 'The image is too large to convert', { detail: error.message, extra: { maxPixels: limits.maxPixels, maxFrames: limits.maxFrames } });
    }
    if (error.reason === 'unsafe') throw new ServiceError(422, 'unsafe_image', 'The image holds content that is refused', { detail: error.message });
    throw new ServiceError(422, 'image_unreadable', 'The image could not be read', { detail: error.message });
  }
}
