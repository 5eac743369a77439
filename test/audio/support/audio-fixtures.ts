// Audio fixtures made by code with the ffmpeg CLI (a sine tone, no committed binaries), and an
// independent reading of a result with the ffprobe CLI (not the engine under test).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AudioFormatId } from '../../../src/engines/ffmpeg-formats.ts';

const run = promisify(execFile);

/** How the ffmpeg CLI writes each format for the fixtures. */
const WRITERS: Record<AudioFormatId, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '128k', '-f', 'mp3'],
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  ogg: ['-c:a', 'libvorbis', '-f', 'ogg'],
  opus: ['-c:a', 'libopus', '-f', 'opus'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
  m4a: ['-c:a', 'aac', '-f', 'ipod'],
};

export interface ToneOptions {
  seconds: number;
  channels: 1 | 2;
  sampleRate?: number;
  frequency?: number;
}

/** A sine tone of `seconds` in `format`, written at `file`. */
export async function tone(file: string, format: AudioFormatId, options: ToneOptions): Promise<string> {
  const rate = options.sampleRate ?? (format === 'opus' ? 48000 : 44100);
  await run('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
    '-f', 'lavfi', '-i', `sine=frequency=${options.frequency ?? 440}:sample_rate=${rate}:duration=${options.seconds}`,
    '-ac', String(options.channels),
    ...WRITERS[format],
    file,
  ]);
  return file;
}

export interface Decoded {
  container: string;
  codec: string;
  channels: number;
  sampleRate: number;
  /** the container's duration */
  durationSeconds: number;
  /** seconds of audio really decoded (samples / rate) */
  decodedSeconds: number;
  bitRate: number | null;
}

/** Reads a file with the ffprobe CLI and decodes it all with the ffmpeg CLI, counting samples. */
export async function decode(file: string): Promise<Decoded> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=format_name,duration,bit_rate:stream=codec_name,channels,sample_rate,bit_rate', '-select_streams', 'a:0', '-of', 'json', file]);
  const info = JSON.parse(stdout) as { format: Record<string, string>; streams: Record<string, string | number>[] };
  const stream = info.streams[0]!;
  const sampleRate = Number(stream.sample_rate);
  const channels = Number(stream.channels);
  // Decode to raw 16-bit PCM and count: the duration a listener would hear.
  const pcm = await run('ffmpeg', ['-v', 'error', '-nostdin', '-i', file, '-f', 's16le', '-ac', String(channels), '-ar', String(sampleRate), '-'], { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 });
  const samples = pcm.stdout.length / 2 / channels;
  const bitRate = stream.bit_rate ?? info.format.bit_rate;
  return {
    container: info.format.format_name!,
    codec: String(stream.codec_name),
    channels,
    sampleRate,
    durationSeconds: Number(info.format.duration),
    decodedSeconds: samples / sampleRate,
    bitRate: bitRate === undefined ? null : Number(bitRate),
  };
}

/** An HLS playlist that would make a probing ffmpeg read /etc/passwd, meant to be named .mp3. */
export function hlsPlaylist(target = 'file:///etc/passwd'): string {
  return `#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n${target}\n#EXT-X-ENDLIST\n`;
}

/** An ffconcat list that would make a probing ffmpeg read local files. */
export function concatList(target = '/etc/passwd'): string {
  return `ffconcat version 1.0\nfile '${target}'\nfile 'subfile,,start,0,end,1000,,:${target}'\n`;
}

function chunk(id: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function list(type: string, ...chunks: Buffer[]): Buffer {
  return chunk('LIST', Buffer.concat([Buffer.from(type, 'latin1'), ...chunks]));
}

/**
 * An AVI whose one stream is a GAB2 subtitle packet holding an HLS playlist, the shape of the
 * 2017 ffmpeg local-file-read exploit: a probing ffmpeg opens the playlist and reads its target.
 */
export function aviWithHls(target = 'file:///etc/passwd'): Buffer {
  const avih = Buffer.alloc(56);
  avih.writeUInt32LE(40000, 0); // microseconds per frame
  avih.writeUInt32LE(1, 16); // frames
  avih.writeUInt32LE(1, 24); // streams
  const strh = Buffer.alloc(56);
  strh.write('txts', 0, 'latin1');
  strh.writeUInt32LE(1, 20); // scale
  strh.writeUInt32LE(25, 24); // rate
  strh.writeUInt32LE(1, 32); // length
  const playlist = Buffer.from(hlsPlaylist(target));
  const name = Buffer.from('sub\0', 'utf16le');
  const gab2 = Buffer.alloc(5 + 2 + 4 + name.length + 2 + 4);
  let at = gab2.write('GAB2\0', 0, 'latin1');
  gab2.writeUInt16LE(2, at); at += 2;
  gab2.writeUInt32LE(name.length, at); at += 4;
  name.copy(gab2, at); at += name.length;
  gab2.writeUInt16LE(4, at); at += 2;
  gab2.writeUInt32LE(playlist.length, at);
  const packet = Buffer.concat([gab2, playlist]);
  const body = Buffer.concat([
    Buffer.from('AVI ', 'latin1'),
    list('hdrl', chunk('avih', avih), list('strl', chunk('strh', strh), chunk('strf', Buffer.alloc(0)))),
    list('movi', chunk('00tx', packet)),
  ]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from(Uint32Array.of(body.length).buffer), body]);
}

export async function writeText(dir: string, name: string, text: string | Buffer): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}
