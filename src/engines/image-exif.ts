// EXIF and ICC read for image-metadata: the blocks libvips hands over raw, decoded here into the
// fields people look for. Both readers are bounded (entries, string lengths, offsets checked
// against the block) because the block is the uploader's bytes: an IFD may declare 65,535
// entries and each entry a count of 2^32 - 1, so the walk reads at most MAX_ENTRIES_PER_IFD of
// one IFD, MAX_ENTRIES and MAX_IFDS in all, and an entry whose count x size does not fit in the
// block is skipped before anything of it is read.

/** The tags worth naming; others are reported as Tag0xNNNN. */
const TAG_NAMES: Record<number, string> = {
  0x010e: 'ImageDescription', 0x010f: 'Make', 0x0110: 'Model', 0x0112: 'Orientation', 0x011a: 'XResolution', 0x011b: 'YResolution',
  0x0128: 'ResolutionUnit', 0x0131: 'Software', 0x0132: 'DateTime', 0x013b: 'Artist', 0x8298: 'Copyright',
  0x829a: 'ExposureTime', 0x829d: 'FNumber', 0x8822: 'ExposureProgram', 0x8827: 'ISO', 0x9000: 'ExifVersion',
  0x9003: 'DateTimeOriginal', 0x9004: 'DateTimeDigitized', 0x9201: 'ShutterSpeedValue', 0x9202: 'ApertureValue',
  0x9204: 'ExposureBiasValue', 0x9207: 'MeteringMode', 0x9209: 'Flash', 0x920a: 'FocalLength', 0xa001: 'ColorSpace',
  0xa002: 'PixelXDimension', 0xa003: 'PixelYDimension', 0xa405: 'FocalLengthIn35mmFilm', 0xa433: 'LensMake', 0xa434: 'LensModel',
  0x0001: 'GPSLatitudeRef', 0x0002: 'GPSLatitude', 0x0003: 'GPSLongitudeRef', 0x0004: 'GPSLongitude', 0x0005: 'GPSAltitudeRef', 0x0006: 'GPSAltitude',
  0x0007: 'GPSTimeStamp', 0x001d: 'GPSDateStamp',
};
const EXIF_IFD = 0x8769;
const GPS_IFD = 0x8825;
const TYPE_SIZES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8 };
/** entries read in all, over every IFD */
export const MAX_ENTRIES = 512;
/** entries read of one IFD (the rest of a longer one is ignored) */
export const MAX_ENTRIES_PER_IFD = 256;
/** IFDs followed (IFD0, Exif, GPS and the next-IFD chain) */
const MAX_IFDS = 8;
const MAX_VALUES = 64;
const MAX_STRING = 1024;

export type ExifValue = string | number | number[];

/** EXIF as a flat map of tag names to values (rationals as decimals), or null when unreadable. */
export function readExif(block: Buffer | undefined): Record<string, ExifValue> | null {
  if (!block || block.length < 14) return null;
  const start = block.toString('latin1', 0, 6) === 'Exif\0\0' ? 6 : 0;
  const tiff = block.subarray(start);
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const i32 = (at: number) => (le ? tiff.readInt32LE(at) : tiff.readInt32BE(at));
  const out: Record<string, ExifValue> = {};
  const seen = new Set<number>();
  let entries = 0;

  const readValue = (type: number, count: number, at: number): ExifValue | undefined => {
    const size = TYPE_SIZES[type];
    if (size === undefined) return undefined;
    // The value must lie wholly in the block: a count of 2^32 - 1 is refused here, not read in part.
    if (size * count > tiff.length) return undefined;
    const where = size * count <= 4 ? at : u32(at);
    if (where + size * Math.min(count, MAX_STRING) > tiff.length) return undefined;
    if (type === 2) return tiff.toString('latin1', where, where + Math.min(count, MAX_STRING)).replace(/\0+$/, '').trim();
    if (type === 7) return count <= 8 ? tiff.toString('latin1', where, where + count).replace(/\0+$/, '') : `(${count} bytes)`;
    const values: number[] = [];
    for (let i = 0; i < Math.min(count, MAX_VALUES); i++) {
      const p = where + i * size;
      if (type === 1 || type === 6) values.push(tiff[p]!);
      else if (type === 3 || type === 8) values.push(u16(p));
      else if (type === 4) values.push(u32(p));
      else if (type === 9) values.push(i32(p));
      else if (type === 5 || type === 10) {
        const num = type === 5 ? u32(p) : i32(p);
        const den = type === 5 ? u32(p + 4) : i32(p + 4);
        values.push(den === 0 ? 0 : Math.round((num / den) * 1e6) / 1e6);
      } else return undefined;
    }
    return values.length === 1 ? values[0]! : values;
  };

  const walk = (offset: number, gps: boolean): void => {
    if (seen.has(offset) || seen.size >= MAX_IFDS || offset < 8 || offset + 2 > tiff.length) return;
    seen.add(offset);
    // No more entries than the block can hold, than one IFD may give, than are left in all.
    const count = Math.min(u16(offset), Math.floor((tiff.length - offset - 2) / 12), MAX_ENTRIES_PER_IFD);
    for (let i = 0; i < count && entries < MAX_ENTRIES; i++, entries++) {
      const at = offset + 2 + i * 12;
      if (at + 12 > tiff.length) return;
      const tag = u16(at);
      const type = u16(at + 2);
      const n = u32(at + 4);
      if (!gps && (tag === EXIF_IFD || tag === GPS_IFD)) {
        walk(u32(at + 8), tag === GPS_IFD);
        continue;
      }
      const name = (gps && tag <= 0x1f ? TAG_NAMES[tag] : !gps && tag > 0x1f ? TAG_NAMES[tag] : undefined) ?? `${gps ? 'GPS' : ''}Tag0x${tag.toString(16).padStart(4, '0')}`;
      const value = readValue(type, n, at + 8);
      if (value !== undefined) out[name] = value;
    }
  };

  try {
    if (u16(2) !== 42) return null;
    walk(u32(4), false);
  } catch {
    return Object.keys(out).length > 0 ? out : null;
  }
  return out;
}

/** The ICC profile's description, colour space and version from its header and tag table. */
export function readIcc(block: Buffer | undefined): { description: string | null; colorSpace: string | null; version: string | null; sizeBytes: number } | null {
  if (!block || block.length < 132 || block.toString('latin1', 36, 40) !== 'acsp') return null;
  const colorSpace = block.toString('latin1', 16, 20).trim() || null;
  const version = `${block[8]}.${(block[9]! >> 4) & 0xf}`;
  let description: string | null = null;
  const tags = block.readUInt32BE(128);
  for (let i = 0; i < Math.min(tags, 256); i++) {
    const at = 132 + i * 12;
    if (at + 12 > block.length) break;
    if (block.toString('latin1', at, at + 4) !== 'desc') continue;
    const offset = block.readUInt32BE(at + 4);
    const size = block.readUInt32BE(at + 8);
    if (offset + Math.min(size, 12) > block.length || size < 12) break;
    const type = block.toString('latin1', offset, offset + 4);
    if (type === 'desc') {
      const length = Math.min(block.readUInt32BE(offset + 8), MAX_STRING, block.length - offset - 12);
      description = block.toString('latin1', offset + 12, offset + 12 + length).replace(/\0+$/, '');
    } else if (type === 'mluc' && offset + 28 <= block.length) {
      const length = block.readUInt32BE(offset + 20);
      const strAt = offset + block.readUInt32BE(offset + 24);
      const end = Math.min(strAt + Math.min(length, MAX_STRING * 2), block.length);
      const utf16be = block.subarray(strAt, end - ((end - strAt) % 2));
      description = Buffer.from(utf16be).swap16().toString('utf16le').replace(/\0+$/, '');
    }
    break;
  }
  return { description, colorSpace, version, sizeBytes: block.length };
}
