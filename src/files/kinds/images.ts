// Raster images, by their signatures. Room for more: a kind is one entry in `detected` (and
// `accepted`) and one signature test in `detect` (AVIF/HEIC: an ISO-BMFF 'ftyp' box at byte 4
// with brand avif/heic/mif1; TIFF: 'II*\0' or 'MM\0*'; BMP: 'BM'). SVG is XML text: it belongs
// before text-like in the registry, with its own safety check (no DTD, no external references).
// Pixel floods are the image engine's to refuse: the header's dimensions are checked there.
import { defineContainer, sameKind, startsWith, type Detection } from './container-definition.ts';

type ImageKind = 'png' | 'jpeg' | 'gif' | 'webp';

const MIME: Record<ImageKind, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

const SIGNATURES: readonly [ImageKind, (head: Buffer) => boolean][] = [
  ['png', (head) => startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['jpeg', (head) => startsWith(head, [0xff, 0xd8, 0xff])],
  ['gif', (head) => startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a')],
  ['webp', (head) => startsWith(head, 'RIFF') && startsWith(head, 'WEBP', 8)],
];

const detected = (kind: ImageKind) => ({ mimeType: MIME[kind], describedAs: kind.toUpperCase(), noun: `${kind.toUpperCase()} image` });

export const imageFiles = defineContainer({
  name: 'image',
  detected: { png: detected('png'), jpeg: detected('jpeg'), gif: detected('gif'), webp: detected('webp') },
  accepted: {
    png: { mimeType: MIME.png, extensions: ['png'], matches: sameKind('png') },
    jpeg: { mimeType: MIME.jpeg, extensions: ['jpg', 'jpeg'], matches: sameKind('jpeg') },
    gif: { mimeType: MIME.gif, extensions: ['gif'], matches: sameKind('gif') },
    webp: { mimeType: MIME.webp, extensions: ['webp'], matches: sameKind('webp') },
  },
  detect({ head }): Detection<ImageKind> | undefined {
    const found = SIGNATURES.find(([, test]) => test(head));
    return found ? { kind: found[0], mimeType: MIME[found[0]] } : undefined;
  },
});
