// Video facts and frames for ai-models/video-insight, on the ffmpeg engine's queue, sandbox and
// time limit. The same guards as the audio jobs (ffmpeg.ts): the demuxer is forced from the kind
// detected by content and no other is allowed, only the file protocol, no stdin. Frames are a
// bounded number, evenly spaced over the video, scaled so the longer side fits a model's image
// input, written as JPEG.
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ServiceError, unprocessable } from '../core/errors.ts';
import type { FfmpegEngine } from './ffmpeg.ts';
import { readEngineOutput } from '../files/engine-output.ts';
import { inJobFolder } from './job-folder.ts';

/** The containers video-insight reads, by content (src/ai/video-kind.ts), and ffmpeg's demuxer for each. */
export const VIDEO_DEMUXERS = { mp4: 'mov', mov: 'mov', webm: 'matroska', mkv: 'matroska', avi: 'avi' } as const;
export type VideoContainer = keyof typeof VIDEO_DEMUXERS;

export interface VideoProbe {
  durationSeconds: number;
  width: number;
  height: number;
  codec: string;
  hasAudio: boolean;
}

export interface VideoFrame {
  /** seconds into the video */
  atSeconds: number;
  jpeg: Buffer;
  width: number;
  height: number;
}

export interface FrameOptions {
  /** at most this many frames */
  maxFrames: number;
  /** one frame per this many seconds, up to maxFrames (at least one) */
  secondsPerFrame: number;
  /** the longer side of each frame, in pixels, at most */
  maxSide: number;
}

const guards = (container: VideoContainer): string[] => ['-protocol_whitelist', 'file', '-format_whitelist', VIDEO_DEMUXERS[container], '-f', VIDEO_DEMUXERS[container]];

const probeOutput = z.object({
  format: z.object({ duration: z.string().optional() }).optional(),
  streams: z.array(z.object({ codec_type: z.string().optional(), codec_name: z.string().optional(), width: z.number().optional(), height: z.number().optional(), duration: z.string().optional() })).optional(),
});

/** The video's duration, size and codec; 422 not_a_video when ffprobe finds no video stream in it. */
export async function probeVideo(ffmpeg: FfmpegEngine, file: string, container: VideoContainer, signal?: AbortSignal): Promise<VideoProbe> {
  // In a folder of the job's own (job-folder.ts): ffprobe answers on stdout and writes nothing.
  const result = await inJobFolder(file, 'ffprobe-', (dir) =>
    ffmpeg.engine.exec(
      'ffprobe',
      ['-hide_banner', '-v', 'error', ...guards(container), '-i', `file:./${path.basename(file)}`, '-show_entries', 'format=duration:stream=codec_type,codec_name,width,height,duration', '-of', 'json'],
      { cwd: dir, maxStdoutBytes: 1024 * 1024, ...(signal ? { signal } : {}) },
    ),
  );
  const parsed = result.code === 0 ? probeOutput.safeParse(safeJson(result.stdout.toString('utf8'))) : undefined;
  const streams = parsed?.success ? (parsed.data.streams ?? []) : [];
  const video = streams.find((s) => s.codec_type === 'video');
  if (!parsed?.success || !video || !video.width || !video.height) {
    throw notAVideo(`ffprobe found no readable video stream in this ${container} file`);
  }
  const duration = Number(parsed.data.format?.duration ?? video.duration);
  if (!Number.isFinite(duration) || duration <= 0) throw notAVideo('The video declares no duration');
  return { durationSeconds: duration, width: video.width, height: video.height, codec: video.codec_name ?? 'unknown', hasAudio: streams.some((s) => s.codec_type === 'audio') };
}

/** Frames evenly spaced over the video (the middle of equal slices), scaled to fit `maxSide`. */
export async function sampleFrames(ffmpeg: FfmpegEngine, file: string, container: VideoContainer, probe: VideoProbe, options: FrameOptions, signal?: AbortSignal): Promise<VideoFrame[]> {
  const count = Math.max(1, Math.min(options.maxFrames, Math.ceil(probe.durationSeconds / options.secondsPerFrame)));
  const scale = Math.min(1, options.maxSide / Math.max(probe.width, probe.height));
  // Even sizes: the JPEG encoder's chroma subsampling wants them.
  const width = Math.max(2, Math.round((probe.width * scale) / 2) * 2);
  const height = Math.max(2, Math.round((probe.height * scale) / 2) * 2);
  // In a folder of the job's own (job-folder.ts): the frames are written there and read back as files.
  return inJobFolder(file, 'frames-', async (dir) => {
    const frames: VideoFrame[] = [];
    for (let i = 0; i < count; i++) {
      const at = Number(((probe.durationSeconds * (i + 0.5)) / count).toFixed(3));
      const name = `frame-${i}.jpg`;
      const run = await ffmpeg.engine.exec(
        'ffmpeg',
        ['-hide_banner', '-nostdin', '-v', 'error', '-y', '-ss', String(at), ...guards(container), '-i', `file:./${path.basename(file)}`, '-map', '0:v:0', '-frames:v', '1', '-vf', `scale=${width}:${height}`, '-q:v', '4', '-f', 'image2', '-c:v', 'mjpeg', `file:./${name}`],
        { cwd: dir, ...(signal ? { signal } : {}) },
      );
      const written = await lstat(path.join(dir, name)).then((s) => s.size, () => 0);
      if (run.code !== 0 || written === 0) throw unprocessable('ffmpeg could not take a frame from the video', `No frame at ${at} s`);
      frames.push({ atSeconds: at, jpeg: await readEngineOutput(path.join(dir, name)), width, height });
    }
    return frames;
  });
}

/** 422 not_a_video, naming the field: nothing was sent to a provider, so it is not charged (core/call-failures.ts). */
export function notAVideo(detail: string): ServiceError {
  return new ServiceError(422, 'not_a_video', 'videoUrl: the file is not a video this tool reads (MP4, MOV, WebM, Matroska or AVI)', { detail, extra: { field: 'videoUrl' } });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
