// Images made by code for the convertors tests: real ones through sharp, hostile ones byte by byte.
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

export type Rgb = readonly [number, number, number];

/** A solid image of `colour` in `format`, optionally with alpha (RGBA, alpha 0-255). */
export async function solidImage(format: 'png' | 'jpeg' | 'webp' | 'avif' | 'gif' | 'tiff', width: number, height: number, colour: Rgb, alpha?: number): Promise<Buffer> {
  const channels = alpha === undefined ? 3 : 4;
  const background = alpha === undefined ? { r: colour[0], g: colour[1], b: colour[2] } : { r: colour[0], g: colour[1], b: colour[2], alpha: alpha / 255 };
  const image = sharp({ create: { width, height, channels, background } });
  return image.toFormat(format, format === 'avif' ? { quality: 90 } : format === 'jpeg' || format === 'webp' ? { quality: 95 } : {}).toBuffer();
}

/** Left half `left`, right half `right`: shows orientation after rotations and resizes. */
export async function twoColourPng(width: number, height: number, left: Rgb, right: Rgb): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const c = x < width / 2 ? left : right;
      raw.set(c, (y * width + x) * 3);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** An animated GIF: one solid frame per colour. */
export async function animatedGif(width: number, height: number, colours: readonly Rgb[]): Promise<Buffer> {
  const raw = Buffer.concat(colours.map((c) => Buffer.alloc(width * height * 3).fill(Buffer.from(c))));
  return sharp(raw, { raw: { width, height: height * colours.length, channels: 3, pageHeight: height } as never }).gif({ loop: 0 }).toBuffer();
}

/** Pixel facts of an image: size, format, frames, and the colour at (x, y) of frame 0. */
export async function inspect(image: Buffer, x = 0, y = 0): Promise<{ format: string; width: number; height: number; frames: number; hasAlpha: boolean; pixel: number[] }> {
  const meta = await sharp(image).metadata();
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return {
    format: meta.format!,
    width: meta.width!,
    height: meta.pageHeight ?? meta.height!,
    frames: meta.pages ?? 1,
    hasAlpha: meta.hasAlpha ?? false,
    pixel: [...data.subarray(at, at + info.channels)],
  };
}

/** Whether two colours are within `tolerance` on every channel (lossy formats drift a little). */
export function near(actual: readonly number[], expected: readonly number[], tolerance = 8): boolean {
  return expected.every((v, i) => Math.abs((actual[i] ?? -999) - v) <= tolerance);
}

// --- hostile and hand-made files -----------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A small, valid-looking PNG whose header declares `width` x `height` (a pixel flood). */
export function pixelFloodPng(width = 100_000, height = 100_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  // A few rows of zeros compress to almost nothing; a decoder would still allocate for all of it.
  const idat = deflateSync(Buffer.alloc((width * 3 + 1) * 4));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A 1x1 GIF of `frames` frames, built block by block (about 20 bytes a frame). */
export function manyFrameGif(frames = 10_000): Buffer {
  const header = Buffer.from([...Buffer.from('GIF89a'), 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]);
  const frame = Buffer.from([0x21, 0xf9, 4, 0, 1, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4c, 0x01, 0]);
  return Buffer.concat([header, ...Array.from({ length: frames }, () => frame), Buffer.from([0x3b])]);
}

/** An uncompressed BMP: 24 bits (bottom-up rows), or 8 bits with a palette. */
export function bmp(width: number, height: number, pixel: (x: number, y: number) => Rgb, bits: 24 | 8 = 24): Buffer {
  const palette: Rgb[] = [];
  const index = (c: Rgb) => {
    let i = palette.findIndex((p) => p[0] === c[0] && p[1] === c[1] && p[2] === c[2]);
    if (i < 0) i = palette.push(c) - 1;
    return i;
  };
  const stride = Math.ceil((width * bits) / 32) * 4;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const row = (height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const c = pixel(x, y);
      if (bits === 24) pixels.set([c[2], c[1], c[0]], row + x * 3);
      else pixels[row + x] = index(c);
    }
  }
  const paletteBytes = bits === 8 ? Buffer.concat(Array.from({ length: 256 }, (_, i) => Buffer.from([palette[i]?.[2] ?? 0, palette[i]?.[1] ?? 0, palette[i]?.[0] ?? 0, 0]))) : Buffer.alloc(0);
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + paletteBytes.length + pixels.length, 2);
  header.writeUInt32LE(54 + paletteBytes.length, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(width, 18);
  header.writeInt32LE(height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(bits, 28);
  header.writeUInt32LE(pixels.length, 34);
  if (bits === 8) header.writeUInt32LE(256, 46);
  return Buffer.concat([header, paletteBytes, pixels]);
}

const laughs = ['<!ENTITY a "lollollollollollollollollollol">', ...'bcdefghi'.split('').map((n, i) => `<!ENTITY ${n} "${`&${'abcdefghi'[i]};`.repeat(10)}">`)].join('');

export const HOSTILE_SVGS = {
  /** an image of the server's /etc/passwd (and a PNG of our own beside the upload) */
  fileImage: (localPng: string) =>
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20"><rect width="20" height="20" fill="#00ff00"/><image href="file:///etc/passwd" width="20" height="20"/><image xlink:href="file://${localPng}" width="20" height="20"/><image href="${localPng}" width="20" height="20"/></svg>`,
  externalEntity: `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><text y="10">&xxe;</text></svg>`,
  billionLaughs: `<?xml version="1.0"?><!DOCTYPE svg [${laughs}]><svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><text y="10">&i;</text></svg>`,
  xinclude: `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xi="http://www.w3.org/2001/XInclude" width="20" height="20"><rect width="20" height="20" fill="#00ff00"/><text y="10"><xi:include href="file:///etc/passwd" parse="text"/></text></svg>`,
  cssImport: (localPng: string) =>
    `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><style>@import url(file:///etc/passwd); rect { stroke: url(file://${localPng}) }</style><rect width="20" height="20" fill="#00ff00" style="stroke:url(${localPng})"/></svg>`,
};

/** A plain green SVG. */
export const GREEN_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="#00ff00"/></svg>`;

/** An SVG of one colour (left half `colour`, right half `right` when given), `alpha` 0-255 as fill-opacity. */
export function solidSvg(width: number, height: number, colour: Rgb, right?: Rgb, alpha?: number): string {
  const fill = (c: Rgb) => `rgb(${c[0]},${c[1]},${c[2]})`;
  const opacity = alpha === undefined ? '' : ` fill-opacity="${alpha / 255}"`;
  const halves = right === undefined ? `<rect width="${width}" height="${height}" fill="${fill(colour)}"${opacity}/>` : `<rect width="${width / 2}" height="${height}" fill="${fill(colour)}"${opacity}/><rect x="${width / 2}" width="${width / 2}" height="${height}" fill="${fill(right)}"${opacity}/>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${halves}</svg>\n`;
}

/** The start of an iPhone-style HEIC (HEVC-coded HEIF): its ftyp box and an empty meta box. */
export function heicHead(): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1')]);
  const meta = Buffer.concat([Buffer.from([0, 0, 0, 12]), Buffer.from('meta\0\0\0\0', 'latin1')]);
  return Buffer.concat([ftyp, meta, Buffer.alloc(64)]);
}
