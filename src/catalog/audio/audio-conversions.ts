import { join } from 'node:path';
import { z } from 'zod';
import { defineFileTool, type AnyTool } from '../../core/define-tool.ts';
import { AUDIO_FORMAT_IDS, AUDIO_FORMATS, type AudioFormatId } from '../../engines/ffmpeg-formats.ts';
import { outputName } from '../../files/file-pipeline.ts';
import { acceptedKind } from '../../files/kinds/file-kind-registry.ts';

// The audio family: every pair of the six formats ffmpeg reads and writes for us, 30 conversions.
// The table is the format list (engines/ffmpeg-formats.ts): each format converts to every other,
// so listing the pairs by hand would only let one be forgotten. What differs per target is which
// options apply (bitrate for lossy formats only, the sample rates its encoder takes).

const CREDITS = 2;

/** What each target keeps and loses, for the docs. */
const NOTES: Record<AudioFormatId, string> = {
  mp3: 'Lossy MP3 (LAME), 192 kbit/s unless a bitrate is given; plays everywhere.',
  wav: 'Uncompressed 16-bit PCM WAV: lossless from here on, about 10 MB per stereo minute.',
  ogg: 'Lossy Ogg Vorbis, 160 kbit/s unless a bitrate is given.',
  opus: 'Lossy Opus in Ogg, 128 kbit/s unless a bitrate is given; best quality per bit, 48 kHz output by default.',
  flac: 'Lossless FLAC: the decoded audio of the source, compressed without loss.',
  m4a: 'Lossy AAC in an M4A (MP4) container, 192 kbit/s unless a bitrate is given; the Apple and browser standard.',
};

/** Multipart fields arrive as text, MCP and JSON as numbers: both are read as integers. */
const integer = () => z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number');

export function audioOptionsSchema(to: AudioFormatId) {
  const format = AUDIO_FORMATS[to];
  const rates = format.sampleRates;
  const shape = {
    ...(format.bitrateKbps === undefined
      ? {}
      : {
          bitrate: integer()
            .min(format.bitrateKbps.min, `at least ${format.bitrateKbps.min} kbit/s for ${format.label}`)
            .max(format.bitrateKbps.max, `at most ${format.bitrateKbps.max} kbit/s for ${format.label}`)
            .optional()
            .describe(`Target bitrate in kbit/s, ${format.bitrateKbps.min}-${format.bitrateKbps.max} (default ${format.bitrateKbps.default})`),
        }),
    sample_rate: integer()
      .refine((rate) => rates.includes(rate), `${format.label} is written at one of ${rates.join(', ')} Hz`)
      .optional()
      .describe(`Output sample rate in Hz, one of ${rates.join(', ')} (default: the source's, or the nearest the encoder takes)`),
    channels: integer().min(1, '1 (mono) or 2 (stereo)').max(2, '1 (mono) or 2 (stereo)').optional().describe('1 for mono, 2 for stereo (default: the source\'s, at most 2 for MP3)'),
  };
  return z.strictObject(shape);
}

type AudioOptions = { bitrate?: number; sample_rate?: number; channels?: number };

function exampleInput(to: AudioFormatId): AudioOptions {
  const format = AUDIO_FORMATS[to];
  // One example with every option the target takes; the examples suite checks each in the result.
  return { ...(format.bitrateKbps ? { bitrate: Math.max(64, format.bitrateKbps.min * 2) } : {}), sample_rate: 24000, channels: 1 };
}

function audioConversion(from: AudioFormatId, to: AudioFormatId): AnyTool {
  const source = AUDIO_FORMATS[from];
  const target = AUDIO_FORMATS[to];
  // The MIME type from the file-kind registry (files/kinds/audio.ts), the one place a format is described.
  const mimeType = acceptedKind(to).mimeType;
  const input = audioOptionsSchema(to);
  return defineFileTool({
    family: 'audio',
    slug: `${from}-to-${to}`,
    title: `${source.label} to ${target.label}`,
    description: `Converts ${source.label} audio to ${target.label} with ffmpeg. ${NOTES[to]} Options: ${target.bitrateKbps ? 'bitrate (kbit/s), ' : ''}sample_rate (Hz) and channels (1 or 2). Only the first audio stream is converted (cover art, video and subtitles are dropped); tags are kept. The upload's type is read from its content: a playlist or another container named .${source.extension} is refused. Upload the file in the multipart field "file"; the answer holds a presigned downloadUrl valid 1 hour.`,
    aliases: [`${from} to ${to}`, `convert ${from} to ${to}`, `${source.label} to ${target.label}`, `${from} converter`, `audio to ${to}`],
    credits: CREDITS,
    input,
    upload: { field: 'file', accept: [from] },
    conversion: { from, to },
    limits: { timeoutMs: 180_000 },
    engines: ['ffmpeg'],
    examples: [
      {
        title: `${from.toUpperCase()} to ${to.toUpperCase()}`,
        input: {},
        sampleText: 'a 3-second 440 Hz stereo tone',
        source: { seconds: 3, channels: 2 },
        expect: { mimeType, extension: target.extension, contains: [], facts: { durationSeconds: 3, channels: 2, codec: target.codecs[0] } },
      },
      {
        title: `${from.toUpperCase()} to ${to.toUpperCase()}, mono, resampled${target.bitrateKbps ? ', at a set bitrate' : ''}`,
        input: exampleInput(to),
        sampleText: 'a 3-second 440 Hz stereo tone',
        source: { seconds: 3, channels: 2 },
        expect: {
          mimeType,
          extension: target.extension,
          contains: [],
          facts: {
            durationSeconds: 3,
            channels: 1,
            // Opus always decodes at 48 kHz; the rate asked for is the encoder's bandwidth.
            sampleRate: to === 'opus' ? 48000 : exampleInput(to).sample_rate,
            // Vorbis is encoded by quality (see engines/ffmpeg.ts), so its bitrate is not exact.
            ...(exampleInput(to).bitrate && to !== 'ogg' ? { bitrateKbps: exampleInput(to).bitrate } : {}),
          },
        },
      },
    ],
    async run(options, ctx) {
      const values = options as AudioOptions;
      const outputPath = join(ctx.workDir, `result.${target.extension}`);
      await ctx.engines.ffmpeg.convertAudio({
        inputPath: ctx.upload.path,
        format: from,
        outputPath,
        to,
        ...(values.bitrate === undefined ? {} : { bitrateKbps: values.bitrate }),
        ...(values.sample_rate === undefined ? {} : { sampleRate: values.sample_rate }),
        ...(values.channels === undefined ? {} : { channels: values.channels }),
        signal: ctx.signal,
      });
      return { path: outputPath, fileName: outputName(ctx.upload.originalName, target.extension), mimeType };
    },
  });
}

/** The audio family: 30 conversions among mp3, wav, ogg, opus, flac and m4a. */
export const audioConversions: AnyTool[] = AUDIO_FORMAT_IDS.flatMap((from) => AUDIO_FORMAT_IDS.filter((to) => to !== from).map((to) => audioConversion(from, to)));
