// Audio containers, by content: WAV (RIFF/WAVE), FLAC (fLaC), Ogg by the codec of its first
// packet (Vorbis is `ogg`, Opus is `opus`; any other Ogg stream is not audio we take), MP4 audio
// (an ISO-BMFF ftyp box with an audio or generic brand; image brands such as HEIC and AVIF are
// left to the image detector) and MP3 (frame headers, after an ID3v2 tag when there is one).
// The detected kind decides the one demuxer ffmpeg may use (engines/ffmpeg.ts), so a playlist,
// a concat list or an AVI is never read as anything but what it is.
// The safety check refuses files cut short where the container says how long it should be (the
// WAV data chunk, the Ogg end-of-stream page); ffmpeg would decode what is left without a word.
import { readAt } from '../zip-inspect.ts';
import { defineContainer, sameKind, startsWith, type HeadProbe } from './container-definition.ts';
import { corrupt } from './safety-errors.ts';
import { openForReading } from '../file-reader.ts';

export type AudioKind = 'mp3' | 'wav' | 'ogg' | 'opus' | 'flac' | 'm4a';

const MIME: Record<AudioKind, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  opus: 'audio/ogg; codecs=opus',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
};

const NOUN: Record<AudioKind, string> = { mp3: 'MP3 audio', wav: 'WAV audio', ogg: 'Ogg Vorbis audio', opus: 'Opus audio', flac: 'FLAC audio', m4a: 'M4A (AAC) audio' };

/** ISO-BMFF brands of audio, or of generic MP4 whose audio ffmpeg can take. */
const MP4_AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'isom', 'iso2', 'iso4', 'iso5', 'iso6', 'mp41', 'mp42', 'dash', 'MSNV', 'F4A ']);
/** Brands of still images in the same box format: never audio. */
const IMAGE_BRANDS = new Set(['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1', 'avif', 'avis', 'jpeg', 'crx ']);

const MPEG_BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG_BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const MPEG_RATES = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] } as Record<number, number[]>;

/** The length in bytes of the MPEG layer III frame whose header starts at `at`, or null if none starts there. */
export function mp3FrameLength(bytes: Buffer, at: number): number | null {
  if (at + 4 > bytes.length) return null;
  const header = bytes.readUInt32BE(at);
  if ((header & 0xffe00000) >>> 0 !== 0xffe00000) return null;
  const version = (header >>> 19) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
  const layer = (header >>> 17) & 3; // 1: layer III
  const bitrateIndex = (header >>> 12) & 15;
  const rateIndex = (header >>> 10) & 3;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const bitrate = (version === 3 ? MPEG_BITRATES_V1_L3 : MPEG_BITRATES_V2_L3)[bitrateIndex]! * 1000;
  const rate = MPEG_RATES[version]![rateIndex]!;
  const padding = (header >>> 9) & 1;
  return Math.floor(((version === 3 ? 144 : 72) * bitrate) / rate) + padding;
}

/** Where the audio starts after an ID3v2 tag (syncsafe size, optional footer), or 0. */
function afterId3(head: Buffer): number {
  if (!startsWith(head, 'ID3') || head.length < 10) return 0;
  const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
  return 10 + size + ((head[5]! & 0x10) !== 0 ? 10 : 0);
}

function oggCodec(head: Buffer): 'ogg' | 'opus' | undefined {
  if (head.length < 28) return undefined;
  const segments = head[26]!;
  const packet = head.subarray(27 + segments, 27 + segments + 16);
  if (startsWith(packet, '\x01vorbis')) return 'ogg';
  if (startsWith(packet, 'OpusHead')) return 'opus';
  return undefined;
}

function mp4IsAudio(head: Buffer): boolean {
  if (head.length < 16 || head.toString('latin1', 4, 8) !== 'ftyp') return false;
  const boxSize = Math.min(head.readUInt32BE(0), head.length);
  const brands = [head.toString('latin1', 8, 12)];
  for (let at = 16; at + 4 <= boxSize; at += 4) brands.push(head.toString('latin1', at, at + 4));
  if (brands.some((brand) => IMAGE_BRANDS.has(brand))) return false;
  return brands.some((brand) => MP4_AUDIO_BRANDS.has(brand));
}

async function detectAudio({ handle, head, size }: HeadProbe): Promise<AudioKind | undefined> {
  if (startsWith(head, 'RIFF') && startsWith(head, 'WAVE', 8)) return 'wav';
  if (startsWith(head, 'fLaC')) return 'flac';
  if (startsWith(head, 'OggS')) return oggCodec(head);
  if (mp4IsAudio(head)) return 'm4a';
  const start = afterId3(head);
  if (start >= size) return undefined;
  // A large tag (cover art) pushes the audio past the head: read what follows it.
  const audio = start + 8 > head.length ? await readAt(handle, start, Math.min(size - start, 16 * 1024)) : head.subarray(start);
  if (start > 0 && startsWith(audio, 'fLaC')) return 'flac';
  const first = mp3FrameLength(audio, 0);
  if (first === null) return undefined;
  // After a tag one frame header is enough; a bare file needs a second one where the first ends
  // (0xFFE… starts plenty of binary files by chance).
  if (start > 0 || first >= audio.length) return 'mp3';
  return mp3FrameLength(audio, first) !== null ? 'mp3' : undefined;
}

/** Why a WAV or Ogg file looks cut short, or null (other kinds declare nothing to check here). */
export async function audioTruncation(path: string, kind: AudioKind): Promise<string | null> {
  if (kind !== 'wav' && kind !== 'ogg' && kind !== 'opus') return null;
  const handle = await openForReading(path);
  try {
    const size = (await handle.stat()).size;
    if (kind === 'wav') return wavTruncation(await readAt(handle, 0, Math.min(size, 64 * 1024)), size);
    const start = Math.max(0, size - 128 * 1024);
    return oggTruncation(await readAt(handle, start, size - start), start, size);
  } finally {
    await handle.close();
  }
}

/** The data chunk must fit in the file (sizes 0 and 0xFFFFFFFF are what streaming writers leave: unknown). */
function wavTruncation(bytes: Buffer, size: number): string | null {
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
  return at + 8 > size ? 'The WAV file ends before its data chunk' : null;
}

/** The last page must be complete and carry the end-of-stream flag, as every Ogg encoder writes it. */
function oggTruncation(bytes: Buffer, offset: number, size: number): string | null {
  const at = bytes.lastIndexOf('OggS', undefined, 'latin1');
  if (at < 0) return 'No Ogg page was found at the end of the file';
  const segments = bytes[at + 26];
  if (segments === undefined || at + 27 + segments > bytes.length) return 'The last Ogg page is cut short';
  let body = 0;
  for (let i = 0; i < segments; i++) body += bytes[at + 27 + i]!;
  const end = offset + at + 27 + segments + body;
  if (end > size) return `The last Ogg page is cut short (${end - size} bytes missing)`;
  return (bytes[at + 5]! & 0x04) !== 0 ? null : 'The Ogg stream has no end-of-stream page: the file is cut short';
}

const spec = (kind: AudioKind, describedAs: string) => ({ mimeType: MIME[kind], describedAs, noun: NOUN[kind] });
const accepted = (kind: AudioKind, extensions: readonly string[]) => ({ mimeType: MIME[kind], extensions, matches: sameKind(kind) });

export const audioFiles = defineContainer({
  name: 'audio',
  detected: {
    mp3: spec('mp3', 'MP3 audio'),
    wav: spec('wav', 'WAV audio'),
    ogg: spec('ogg', 'Ogg Vorbis audio'),
    opus: spec('opus', 'Opus audio'),
    flac: spec('flac', 'FLAC audio'),
    m4a: spec('m4a', 'MP4/M4A audio'),
  },
  accepted: {
    mp3: accepted('mp3', ['mp3']),
    wav: accepted('wav', ['wav']),
    ogg: accepted('ogg', ['ogg', 'oga']),
    opus: accepted('opus', ['opus']),
    flac: accepted('flac', ['flac']),
    m4a: accepted('m4a', ['m4a', 'mp4', 'aac']),
  },
  async detect(probe) {
    const kind = await detectAudio(probe);
    return kind === undefined ? undefined : { kind, mimeType: MIME[kind] };
  },
  async assertSafe(path, kind) {
    const cut = await audioTruncation(path, kind);
    if (cut !== null) throw corrupt(NOUN[kind], cut);
  },
});
