// Raster images, by their signatures: PNG, JPEG, GIF, WebP, AVIF and HEIC (an ISO-BMFF 'ftyp'
// box at byte 4 with an AV1 or HEVC image brand), TIFF ('II*\0' or 'MM\0*') and BMP ('BM' and a
// known DIB header size). SVG is XML text: it has its own container (svg.ts), tried before
// text-like. HEIC is detected so that its 415 says why: sharp's bundled libvips reads HEIF only
// with AV1 (AVIF); it has no HEVC decoder, and no tool accepts the kind.
// The safety check is the header check (image-header.ts): a pixel flood or a frame flood is
// refused from the declared dimensions and frame count, before any decoder sees the file, for
// every tool that takes an image (the image engine's decoders hold the same limits as a second line).
import { defineContainer, sameKind, startsWith, type Detection } from './container-definition.ts';
import { assertImageHeaderSafe } from './image-header.ts';

type ImageKind = 'png' | 'jpeg' | 'gif' | 'webp' | 'avif' | 'heic' | 'tiff' | 'bmp';

const MIME: Record<ImageKind, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  tiff: 'image/tiff',
  bmp: 'image/bmp',
};

/** ISO-BMFF brands of AV1 images (AVIF, its image sequences). */
const AVIF_BRANDS = new Set(['avif', 'avis']);
/** Brands of HEVC-coded HEIF and of HEIF in general (mif1/msf1 without an AV1 brand: in practice HEVC). */
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs', 'mif1', 'msf1']);
/** BITMAPCOREHEADER, INFOHEADER, V2, V3, OS/2 2.x (16 and 64 bytes), V4, V5: the DIB header sizes decoders know. */
const DIB_HEADER_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

/** The ftyp box's major and compatible brands, or none when the file does not start with one. */
function ftypBrands(head: Buffer): string[] {
  if (head.length < 16 || head.toString('latin1', 4, 8) !== 'ftyp') return [];
  const boxSize = Math.min(head.readUInt32BE(0), head.length);
  const brands = [head.toString('latin1', 8, 12)];
  for (let at = 16; at + 4 <= boxSize; at += 4) brands.push(head.toString('latin1', at, at + 4));
  return brands;
}

function isoImage(head: Buffer): 'avif' | 'heic' | undefined {
  const brands = ftypBrands(head);
  if (brands.some((brand) => AVIF_BRANDS.has(brand))) return 'avif';
  return brands.some((brand) => HEIC_BRANDS.has(brand)) ? 'heic' : undefined;
}

const SIGNATURES: readonly [ImageKind, (head: Buffer) => boolean][] = [
  ['png', (head) => startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['jpeg', (head) => startsWith(head, [0xff, 0xd8, 0xff])],
  ['gif', (head) => startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a')],
  ['webp', (head) => startsWith(head, 'RIFF') && startsWith(head, 'WEBP', 8)],
  ['avif', (head) => isoImage(head) === 'avif'],
  ['heic', (head) => isoImage(head) === 'heic'],
  ['tiff', (head) => startsWith(head, 'II*\0') || startsWith(head, 'MM\0*')],
  // 'BM' alone would take any text starting with those letters: the DIB header size (with its NUL bytes) must be one decoders know.
  ['bmp', (head) => startsWith(head, 'BM') && head.length >= 26 && DIB_HEADER_SIZES.has(head.readUInt32LE(14))],
];

const detected = (kind: ImageKind, describedAs = kind.toUpperCase()) => ({ mimeType: MIME[kind], describedAs, noun: `${kind.toUpperCase()} image` });
const accepted = (kind: ImageKind, extensions: readonly string[]) => ({ mimeType: MIME[kind], extensions, matches: sameKind(kind) });

export const imageFiles = defineContainer({
  name: 'image',
  detected: {
    png: detected('png'),
    jpeg: detected('jpeg'),
    gif: detected('gif'),
    webp: detected('webp'),
    avif: detected('avif'),
    heic: detected('heic', "HEIC (HEVC-coded HEIF), which this server cannot read: its libvips (sharp's bundled build) has no HEVC decoder. Convert it to JPEG or PNG on the device first (AVIF, HEIF coded with AV1, is read)"),
    tiff: detected('tiff'),
    bmp: detected('bmp'),
  },
  accepted: {
    png: accepted('png', ['png']),
    jpeg: accepted('jpeg', ['jpg', 'jpeg']),
    gif: accepted('gif', ['gif']),
    webp: accepted('webp', ['webp']),
    avif: accepted('avif', ['avif']),
    tiff: accepted('tiff', ['tiff', 'tif']),
    bmp: accepted('bmp', ['bmp']),
  },
  detect({ head }): Detection<ImageKind> | undefined {
    const found = SIGNATURES.find(([, test]) => test(head));
    return found ? { kind: found[0], mimeType: MIME[found[0]] } : undefined;
  },
  async assertSafe(path, kind, limits) {
    await assertImageHeaderSafe(path, kind, limits.image);
  },
});
