// BMP, decoded here: sharp's prebuilt libvips has no BMP loader (it would need ImageMagick). The
// uncompressed variants cover what people upload (Paint, screenshots, scanners): 1, 4 and 8 bits
// with a palette, 16/24/32 bits, and BI_BITFIELDS masks. RLE and embedded JPEG/PNG are refused
// with a clear message. The declared size is checked against the pixel limit and against the
// file's length before anything is allocated, so a header that lies costs nothing.

export class BmpError extends Error {
  readonly tooLarge: boolean;

  constructor(message: string, tooLarge = false) {
    super(message);
    this.tooLarge = tooLarge;
  }
}

export interface DecodedBmp {
  width: number;
  height: number;
  channels: 3 | 4;
  /** top-down rows, `channels` bytes per pixel */
  data: Buffer;
}

const BI_RGB = 0;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;

function maskShift(mask: number): { shift: number; max: number } {
  if (mask === 0) return { shift: 0, max: 0 };
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  return { shift, max: mask >>> shift };
}

export function decodeBmp(file: Buffer, maxPixels: number): DecodedBmp {
  if (file.length < 26 || file.toString('latin1', 0, 2) !== 'BM') throw new BmpError('Not a BMP file');
  const dataOffset = file.readUInt32LE(10);
  const headerSize = file.readUInt32LE(14);
  let width: number;
  let rawHeight: number;
  let bpp: number;
  let compression = BI_RGB;
  let colours = 0;
  if (headerSize === 12) {
    width = file.readUInt16LE(18);
    rawHeight = file.readInt16LE(20);
    bpp = file.readUInt16LE(24);
  } else if (headerSize >= 40 && file.length >= 14 + 40) {
    width = file.readInt32LE(18);
    rawHeight = file.readInt32LE(22);
    bpp = file.readUInt16LE(28);
    compression = file.readUInt32LE(30);
    colours = file.readUInt32LE(46);
  } else {
    throw new BmpError(`Unknown BMP header size ${headerSize}`);
  }
  const topDown = rawHeight < 0;
  const height = Math.abs(rawHeight);
  if (width <= 0 || height <= 0) throw new BmpError('The BMP declares no pixels');
  if (width * height > maxPixels) throw new BmpError(`The BMP declares ${width} x ${height} pixels, more than the ${maxPixels} allowed`, true);
  if (compression !== BI_RGB && compression !== BI_BITFIELDS && compression !== BI_ALPHABITFIELDS) {
    throw new BmpError(`BMP compression ${compression} (RLE or embedded JPEG/PNG) is not supported; save it as an uncompressed BMP`);
  }
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw new BmpError(`BMP with ${bpp} bits per pixel is not supported`);
  const stride = Math.ceil((width * bpp) / 32) * 4;
  if (dataOffset + stride * height > file.length) throw new BmpError('The BMP is truncated: its pixel data is shorter than its header declares');

  // Palette (1/4/8 bits): BGR(A) quads after the header (BGR triples for the old 12-byte header).
  const palette: number[][] = [];
  if (bpp <= 8) {
    const entrySize = headerSize === 12 ? 3 : 4;
    const count = colours > 0 ? Math.min(colours, 1 << bpp) : 1 << bpp;
    const start = 14 + headerSize;
    for (let i = 0; i < count; i++) {
      const at = start + i * entrySize;
      if (at + 3 > file.length) break;
      palette.push([file[at + 2]!, file[at + 1]!, file[at]!]);
    }
  }

  // Masks: explicit for BITFIELDS (after a 40-byte header, or inside a V4/V5 header), else the defaults.
  let masks = bpp === 16 ? [0x7c00, 0x03e0, 0x001f, 0] : [0x00ff0000, 0x0000ff00, 0x000000ff, 0];
  if (compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS) {
    const at = 14 + 40;
    if (at + 12 > file.length) throw new BmpError('The BMP is truncated in its colour masks');
    masks = [file.readUInt32LE(at), file.readUInt32LE(at + 4), file.readUInt32LE(at + 8), headerSize >= 56 || compression === BI_ALPHABITFIELDS ? file.readUInt32LE(at + 12) : 0];
  } else if (bpp === 32 && headerSize >= 56) {
    masks = [0x00ff0000, 0x0000ff00, 0x000000ff, file.readUInt32LE(14 + 52)];
  }
  const fields = masks.map(maskShift);
  const hasAlpha = bpp >= 16 && masks[3] !== 0;
  const channels: 3 | 4 = hasAlpha ? 4 : 3;
  const out = Buffer.alloc(width * height * channels);
  const scale = (value: number, max: number) => (max === 255 ? value : Math.round((value * 255) / max));

  for (let y = 0; y < height; y++) {
    const row = dataOffset + (topDown ? y : height - 1 - y) * stride;
    let o = y * width * channels;
    for (let x = 0; x < width; x++, o += channels) {
      let rgb: number[];
      let alpha = 255;
      if (bpp <= 8) {
        const bit = x * bpp;
        const byte = file[row + (bit >> 3)]!;
        const index = (byte >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1);
        rgb = palette[index] ?? [0, 0, 0];
      } else if (bpp === 24) {
        const at = row + x * 3;
        rgb = [file[at + 2]!, file[at + 1]!, file[at]!];
      } else {
        const value = bpp === 16 ? file.readUInt16LE(row + x * 2) : file.readUInt32LE(row + x * 4);
        rgb = [0, 1, 2].map((c) => {
          const f = fields[c]!;
          return f.max === 0 ? 0 : scale(((value & masks[c]!) >>> 0) >>> f.shift, f.max);
        });
        if (hasAlpha) alpha = scale(((value & masks[3]!) >>> 0) >>> fields[3]!.shift, fields[3]!.max);
      }
      out[o] = rgb[0]!;
      out[o + 1] = rgb[1]!;
      out[o + 2] = rgb[2]!;
      if (channels === 4) out[o + 3] = alpha;
    }
  }
  return { width, height, channels, data: out };
}
