// ffmpeg and ffprobe for audio, one process per job behind the supervisor's queue and time limit,
// in the shared sandbox (no network, only the job's folders in view). ffmpeg will open whatever a
// file tells it to if it is allowed to guess: an HLS playlist or concat list named .mp3, or an AVI
// whose subtitle stream holds a playlist, makes it read local files and URLs. So every run:
// - forces the demuxer (-f) from the kind the service detected by content, and allows no other
//   (-format_whitelist), so hls, concat and every playlist demuxer are out of reach;
// - allows only the file protocol (-protocol_whitelist file), and names files as file: URLs so a
//   name with a colon is never read as a protocol;
// - reads no stdin, keeps only the first audio stream (no cover art, subtitles or data), and
//   stops writing at the output limit (-fs) and at the longest duration allowed (-t).
// ffprobe checks the input the same way before anything is converted.
import { lstat, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ServiceError, unprocessable } from '../core/errors.ts';
import { defineEngine } from './engine-definition.ts';
import { AUDIO_FORMATS, type AudioFormatId } from './ffmpeg-formats.ts';
import { audioTruncation } from '../files/kinds/audio.ts';
import { corrupt } from '../files/kinds/safety-errors.ts';
import { jobRunOptions, ProgramBackedEngine, type ProgramEngineOptions } from './program.ts';
import { inJobFolder, takeResult } from './job-folder.ts';

export interface FfmpegEngineOptions extends ProgramEngineOptions {
  /** longest input accepted, in seconds (default 4 hours) */
  maxDurationSeconds?: number;
  /** largest output written, in bytes (default 100 MiB, the spec's output limit) */
  maxOutputBytes?: number;
}

export interface AudioProbe {
  /** the container as ffprobe names it, e.g. 'mp3', 'ogg', 'mov,mp4,m4a,3gp,3g2,mj2' */
  container: string;
  /** the first audio stream's codec, e.g. 'mp3', 'vorbis', 'pcm_s16le' */
  codec: string;
  channels: number;
  sampleRate: number;
  /** seconds, as the container declares it (null when it does not) */
  durationSeconds: number | null;
  /** bits per second (null when unknown) */
  bitRate: number | null;
}

export interface AudioJobOptions {
  inputPath: string;
  /** what the input was detected as, by content: decides the only demuxer ffmpeg may use */
  format: AudioFormatId;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface AudioConvertOptions extends AudioJobOptions {
  outputPath: string;
  to: AudioFormatId;
  /** kbit/s, lossy targets only */
  bitrateKbps?: number;
  /** Hz; one the target's encoder accepts */
  sampleRate?: number;
  /** 1 (mono) or 2 (stereo) */
  channels?: number;
}

export interface AudioConvertResult {
  input: AudioProbe;
  output: AudioProbe;
}

const DEFAULT_MAX_DURATION_SECONDS = 4 * 3600;
const DEFAULT_MAX_OUTPUT_BYTES = 100 * 1024 * 1024;
/** Decoded audio this much shorter than declared means the input was cut (frames round a little). */
const TRUNCATION_TOLERANCE_SECONDS = 0.5;

export class FfmpegEngine extends ProgramBackedEngine {
  readonly maxDurationSeconds: number;
  readonly maxOutputBytes: number;

  constructor(options: FfmpegEngineOptions = {}) {
    super(
      {
        name: 'ffmpeg',
        label: 'ffmpeg',
        programs: ['ffmpeg', 'ffprobe'],
        install: 'Debian package ffmpeg',
        versionArgs: ['-hide_banner', '-version'],
        versionPattern: /ffmpeg version\s+(\S+)/,
      },
      options,
    );
    this.maxDurationSeconds = options.maxDurationSeconds ?? DEFAULT_MAX_DURATION_SECONDS;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  }

  /** Reads the first audio stream's facts with the demuxer of `format` only; 422 when it cannot. */
  async probeAudio(options: AudioJobOptions): Promise<AudioProbe> {
    const size = await stat(options.inputPath).then((s) => s.size);
    if (size === 0) throw unprocessable('The file is empty');
    const format = AUDIO_FORMATS[options.format];
    // In a folder of the job's own (job-folder.ts): ffprobe answers on stdout and writes nothing.
    const { result, dir } = await inJobFolder(options.inputPath, 'ffprobe-', async (dir, input) => ({
      dir,
      result: await this.engine.exec(
        'ffprobe',
        [
          '-hide_banner', '-v', 'error',
          ...inputGuards(format.demuxer),
          '-i', fileUrl(input, dir),
          '-show_entries', 'format=format_name,duration,bit_rate:stream=codec_type,codec_name,channels,sample_rate,bit_rate,duration',
          '-select_streams', 'a:0',
          '-of', 'json',
        ],
        { cwd: dir, maxStdoutBytes: 1024 * 1024, ...jobRunOptions(options) },
      ),
    }));
    if (result.code !== 0) throw unreadable(format.label, result.stderr, dir);
    const parsed = probeOutput.safeParse(safeJson(result.stdout.toString('utf8')));
    if (!parsed.success) throw unreadable(format.label, 'ffprobe gave no readable answer', dir);
    const stream = parsed.data.streams?.find((s) => s.codec_type === 'audio');
    if (!stream) throw unprocessable(`The file holds no audio stream`, `ffprobe found no audio stream in this ${format.label} file`);
    if (!format.codecs.includes(stream.codec_name ?? '')) {
      throw unprocessable(`The ${format.label} file holds ${stream.codec_name ?? 'unknown'} audio, which this conversion does not read`, `Expected one of: ${format.codecs.join(', ')}`);
    }
    const duration = num(parsed.data.format?.duration) ?? num(stream.duration);
    return {
      container: parsed.data.format?.format_name ?? format.demuxer,
      codec: stream.codec_name ?? 'unknown',
      channels: stream.channels ?? 0,
      sampleRate: num(stream.sample_rate) ?? 0,
      durationSeconds: duration,
      bitRate: num(stream.bit_rate) ?? num(parsed.data.format?.bit_rate),
    };
  }

  /**
   * Converts the first audio stream of `inputPath` to `to`. The input is probed first (readable,
   * audio of the expected codec, not too long, not cut short) and the output afterwards: it must
   * be within the output limit and as long as the input declared.
   */
  async convertAudio(options: AudioConvertOptions): Promise<AudioConvertResult> {
    const from = AUDIO_FORMATS[options.format];
    const to = AUDIO_FORMATS[options.to];
    checkOptions(options);
    const input = await this.probeAudio(options);
    if (input.durationSeconds !== null && input.durationSeconds > this.maxDurationSeconds) {
      throw unprocessable(`The audio is longer than the ${formatSeconds(this.maxDurationSeconds)} this service converts`, `It lasts ${formatSeconds(input.durationSeconds)}`);
    }
    // The upload check makes it too (files/kinds/audio.ts); the engine does not rely on its callers.
    const cut = await audioTruncation(options.inputPath, options.format);
    if (cut !== null) throw corrupt(`${from.label} audio`, cut);
    await mkdir(path.dirname(options.outputPath), { recursive: true });
    // In a folder of the job's own (job-folder.ts), writing its result there: taken out as a file.
    const convert = (dir: string, inputFile: string, outputFile: string) => [
      '-hide_banner', '-nostdin', '-v', 'error', '-y',
      ...inputGuards(from.demuxer),
      '-i', fileUrl(inputFile, dir),
      '-map', '0:a:0', '-vn', '-sn', '-dn',
      '-c:a', to.encoder,
      ...bitrateArgs(options.to, options.bitrateKbps),
      ...(options.sampleRate === undefined ? [] : ['-ar', String(options.sampleRate)]),
      ...(options.channels === undefined ? [] : ['-ac', String(options.channels)]),
      '-t', String(this.maxDurationSeconds),
      // Writing stops once the file is past the limit, so a result of exactly the limit still passes.
      '-fs', String(this.maxOutputBytes + 1),
      '-f', to.muxer,
      fileUrl(outputFile, dir),
    ];
    try {
      const written = await inJobFolder(options.inputPath, 'ffmpeg-', async (dir, inputFile) => {
        const outputFile = path.join(dir, `result-${path.basename(options.outputPath)}`);
        const run = await this.engine.exec('ffmpeg', convert(dir, inputFile, outputFile), { cwd: dir, ...jobRunOptions(options) });
        if (run.code !== 0) {
          if (run.code === null) throw unprocessable('The audio is too large or complex to convert', clean(run.stderr, dir));
          throw unprocessable(`ffmpeg could not convert this ${from.label} file to ${to.label}`, clean(run.stderr, dir));
        }
        const written = await lstat(outputFile).then((s) => (s.isFile() ? s.size : 0), () => 0);
        if (written === 0) throw unprocessable(`ffmpeg wrote no ${to.label} audio`, clean(run.stderr, dir) || 'The input decoded to nothing');
        await takeResult(outputFile, options.outputPath);
        return written;
      });
      if (written > this.maxOutputBytes) {
        throw new ServiceError(422, 'output_too_large', 'The result is larger than the output limit', { detail: `The output reached the ${this.maxOutputBytes}-byte limit; choose a lower bitrate, sample rate or fewer channels` });
      }
      const output = await this.probeAudio({ ...options, inputPath: options.outputPath, format: options.to });
      if (input.durationSeconds !== null && output.durationSeconds !== null && output.durationSeconds < input.durationSeconds - TRUNCATION_TOLERANCE_SECONDS) {
        throw corrupt(`${from.label} audio`, `It declares ${input.durationSeconds.toFixed(2)} s of audio but only ${output.durationSeconds.toFixed(2)} s could be decoded`);
      }
      return { input, output };
    } catch (error) {
      // A failed conversion leaves no partial file for anyone to pick up.
      await rm(options.outputPath, { force: true });
      throw error;
    }
  }
}

/** Input options that keep ffmpeg and ffprobe to the one demuxer and to local files. */
function inputGuards(demuxer: string): string[] {
  return ['-protocol_whitelist', 'file', '-format_whitelist', demuxer, '-f', demuxer];
}

/** A file: URL relative to the working folder when the file is in it, so no server path shows in messages. */
function fileUrl(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return `file:${relative.startsWith('..') || path.isAbsolute(relative) ? file : `./${relative}`}`;
}

/**
 * libvorbis refuses a managed bitrate its tables lack for the rate and channels (96 kbit/s of
 * 8 kHz mono fails to set up), so Vorbis gets the quality that aims at the bitrate for 44.1 kHz
 * stereo instead, which works at every rate; the other encoders take the bitrate as it is.
 */
function bitrateArgs(to: AudioFormatId, kbps: number | undefined): string[] {
  const range = AUDIO_FORMATS[to].bitrateKbps;
  if (range === undefined) return [];
  const target = kbps ?? range.default;
  if (to !== 'ogg') return ['-b:a', `${target}k`];
  // libvorbis nominal bitrates of qualities -1..10 at 44.1 kHz stereo.
  const nominal = [45, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 500];
  let quality = nominal.length - 2;
  for (let q = 0; q < nominal.length - 1; q++) {
    if (target <= nominal[q + 1]!) {
      quality = q + (target - nominal[q]!) / (nominal[q + 1]! - nominal[q]!);
      break;
    }
  }
  return ['-q:a', (Math.max(0, quality) - 1).toFixed(2)];
}

/** The engine's own check of what the tools validate: a caller of the engine cannot pass a bad value to ffmpeg. */
function checkOptions(options: AudioConvertOptions): void {
  const to = AUDIO_FORMATS[options.to];
  if (options.bitrateKbps !== undefined) {
    const range = to.bitrateKbps;
    if (range === undefined) throw new Error(`${to.label} takes no bitrate`);
    if (!Number.isInteger(options.bitrateKbps) || options.bitrateKbps < range.min || options.bitrateKbps > range.max) throw new Error(`bitrate ${options.bitrateKbps} is outside ${range.min}-${range.max}`);
  }
  if (options.sampleRate !== undefined && !to.sampleRates.includes(options.sampleRate)) throw new Error(`${to.label} cannot be written at ${options.sampleRate} Hz`);
  if (options.channels !== undefined && options.channels !== 1 && options.channels !== 2) throw new Error('channels is 1 or 2');
}

/** ffmpeg's message without the job folder's path, first lines only. */
function clean(stderr: string, dir: string): string {
  return stderr.split(dir).join('.').replace(/\b0x[0-9a-f]{6,}\b/g, '').trim().split('\n').slice(0, 6).join('\n').slice(0, 500);
}

function unreadable(label: string, stderr: string, dir: string): ServiceError {
  return unprocessable(`The file is not a readable ${label} file`, clean(stderr, dir) || `ffprobe could not read it as ${label}`);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function num(value: string | number | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

function formatSeconds(seconds: number): string {
  return seconds >= 3600 ? `${(seconds / 3600).toFixed(seconds % 3600 === 0 ? 0 : 1)} h` : `${Math.round(seconds)} s`;
}

const probeOutput = z.object({
  format: z.object({ format_name: z.string().optional(), duration: z.string().optional(), bit_rate: z.string().optional() }).optional(),
  streams: z
    .array(
      z.object({
        codec_type: z.string().optional(),
        codec_name: z.string().optional(),
        channels: z.number().optional(),
        sample_rate: z.string().optional(),
        bit_rate: z.string().optional(),
        duration: z.string().optional(),
      }),
    )
    .optional(),
});

export const ffmpegEngine = defineEngine({
  name: 'ffmpeg',
  label: 'ffmpeg',
  credits: 2,
  settings: z.object({
    AUDIO_MAX_DURATION_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(DEFAULT_MAX_DURATION_SECONDS).describe('Longest audio input ffmpeg converts, in seconds (default 4 hours)'),
  }),
  fromSettings: (settings): FfmpegEngineOptions => ({ maxDurationSeconds: settings.AUDIO_MAX_DURATION_SECONDS }),
  create: (options) => new FfmpegEngine(options),
});
