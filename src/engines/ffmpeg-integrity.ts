// Truncation checks ffmpeg does not make: it decodes what is there of a cut file and exits 0, so a
// half-uploaded WAV or Ogg would come back as a shorter file without a word. Each check reads the
// container's own promise (the WAV data chunk's size, the Ogg end-of-stream page) against the
// bytes that are really there; mp3 (Xing), FLAC and M4A declare their length, which the engine
// compares with what was decoded.
import { open } from 'node:fs/promises';
import type { AudioFormatId } from './ffmpeg-formats.ts';

/** Why the file looks cut short, or null when it is whole as far as its container says. */
export async function truncationOf(path: string, format: AudioFormatId): Promise<string | null> {
  if (format === 'wav') return wavTruncation(path);
  if (format === 'ogg' || format === 'opus') return oggTruncation(path);
  return null;
}

async function readRange(path: string, start: number, length: number): Promise<{ bytes: Buffer; size: number }> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const from = Math.max(0, Math.min(start < 0 ? size + start : start, size));
    const bytes = Buffer.alloc(Math.min(length, size - from));
    await handle.read(bytes, 0, bytes.length, from);
    return { bytes, size };
  } finally {
    await handle.close();
  }
}

/** The data chunk must fit in the file (sizes 0 and 0xFFFFFFFF are what streaming writers leave: unknown). */
async function wavTruncation(path: string): Promise<string | null> {
  const { bytes, size } = await readRange(path, 0, 64 * 1024);
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') return null;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('latin1', at, at + 4);
    const length = bytes.readUInt32LE(at + 4);
    if (id === 'data') {
      if (length === 0 || length === 0xffffffff) return null;
      const end = at + 8 + length;
      return end > size ? `The WAV data chunk declares ${length} bytes; the file ends ${end - size} bytes short` : null;
    }
    at += 8 + length + (length % 2);
  }
  return null;
}

/** The last page must be complete and carry the end-of-stream flag, as every Ogg encoder writes it. */
async function oggTruncation(path: string): Promise<string | null> {
  const { bytes, size } = await readRange(path, -128 * 1024, 128 * 1024);
  const offset = size - bytes.length;
  const at = bytes.lastIndexOf('OggS', undefined, 'latin1');
  if (at < 0) return 'No Ogg page was found at the end of the file';
  if (at + 27 > bytes.length) return 'The last Ogg page is cut short';
  const segments = bytes[at + 26]!;
  if (at + 27 + segments > bytes.length) return 'The last Ogg page is cut short';
  let body = 0;
  for (let i = 0; i < segments; i++) body += bytes[at + 27 + i]!;
  const end = offset + at + 27 + segments + body;
  if (end > size) return `The last Ogg page is cut short (${end - size} bytes missing)`;
  const endOfStream = (bytes[at + 5]! & 0x04) !== 0;
  return endOfStream ? null : 'The Ogg stream has no end-of-stream page: the file is cut short';
}
