// ai-models/video-insight: a prompt about a video, answered by the configured model provider
// (src/ai/). Gemini is given a video-platform URL as it is and any other video downloaded (inline
// or through its upload API); an OpenAI-compatible endpoint is given frames sampled with ffmpeg
// and the video's facts. Refusals come before any provider call and cost nothing; the provider's
// failures are refunded; the same videoUrl and prompt from the same account within 24 h is
// answered from the cache, uncharged. The answer is the spec's video-insight envelope.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type AiToolContext, type ToolContext } from '../../core/define-tool.ts';
import { ServiceError } from '../../core/errors.ts';
import { probeVideo, sampleFrames } from '../../engines/ffmpeg-video.ts';
import { downloadVideo, platformVideoUrl, VIDEO_MAX_SECONDS } from '../../ai/video-source.ts';
import type { AiProvider, ProviderVideo } from '../../ai/providers.ts';
import { AI_TIMEOUT_MAX_MS, INSIGHT_BASE_MS, INSIGHT_MS_PER_VIDEO_SECOND, insightBudgetMs, startCallBudget, type CallBudget } from '../../ai/call-budget.ts';

export const PROMPT_MAX_CHARS = 4000;
/** Frames for an OpenAI-compatible model: one per 3 s, at most 10, the longer side at most 768 px. */
export const FRAME_OPTIONS = { maxFrames: 10, secondsPerFrame: 3, maxSide: 768 } as const;
/** Gemini reads about 300 tokens per second of video at its default resolution (its documentation). */
const GEMINI_TOKENS_PER_SECOND = 300;
const OPERATION_ID = 'ai_models_video_insight';

const input = z.object({
  videoUrl: z
    .string()
    .min(1)
    .max(2048)
    .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), { message: 'must be an absolute http or https URL' })
    .describe('The video: a public video-platform URL (watch, short link, shorts, embed, live) or a direct http(s) link to an MP4, MOV, WebM, Matroska or AVI file (public addresses only)'),
  prompt: z.string().trim().min(1).max(PROMPT_MAX_CHARS).describe(`What to ask about the video, at most ${PROMPT_MAX_CHARS} characters`),
});

const meta = z.object({
  provider: z.enum(['gemini', 'openai-compatible']),
  model: z.string(),
  source: z.enum(['platform', 'download']).describe('platform: a video-platform URL the provider read itself; download: the file downloaded by the service'),
  sentAs: z.enum(['file-uri', 'inline', 'upload', 'frames']),
  durationSeconds: z.number().nullable().describe("the video length in seconds: the downloaded file's, or for a platform URL estimated from the provider's prompt tokens (durationFrom says which); null when neither is known"),
  durationFrom: z.enum(['file', 'tokens']).nullable().describe("file: measured with ffprobe on the downloaded video; tokens: Gemini's prompt tokens / 300 (its rate per second of video), an estimate"),
  frames: z.number().int().describe('frames sent (0 when the video itself was sent)'),
  frameSize: z.object({ width: z.number().int(), height: z.number().int() }).nullable(),
  tokens: z.object({ input: z.number().nullable(), output: z.number().nullable(), total: z.number().nullable() }),
  credits: z.number().int().min(0).max(10).describe('credits this call charged: by the video length (2 to 10); 0 for an answer from the cache'),
  elapsedMs: z.number().int().describe('milliseconds this call took: the model call with its download and frames; for an answer from the cache, the lookup'),
  cached: z.boolean().describe('true when this answer is the stored one of the same videoUrl and prompt within 24 h (not charged)'),
  cachedAt: z.string().nullable(),
});

const output = z.object({ text: z.string(), meta });
type Output = z.output<typeof output>;

/** Credits by the video's length: up to 1 min 2, 5 min 4, 15 min 6, 30 min 8, longer 10. */
export function insightCredits(seconds: number | null): number {
  if (seconds === null) return 10;
  if (seconds <= 60) return 2;
  if (seconds <= 300) return 4;
  if (seconds <= 900) return 6;
  if (seconds <= 1800) return 8;
  return 10;
}

export const videoInsight = defineTool({
  family: 'ai-models',
  slug: 'video-insight',
  title: 'Video insight',
  description:
    'Answers a prompt about a video with the configured AI model (Gemini, or an OpenAI-compatible model with image input). ' +
    'Gemini reads a video-platform URL itself; a direct video link is downloaded (type checked by content, at most 20 minutes) and sent whole to Gemini, or as up to 10 frames with its facts to an OpenAI-compatible model. ' +
    'Credits by the video length: up to 1 min 2, up to 5 min 4, up to 15 min 6, up to 30 min 8, longer or unknown 10 (the most is reserved and the rest given back). ' +
    'A refused input costs nothing, a provider failure is refunded, and the same videoUrl and prompt within 24 h is answered from the cache, uncharged. The provider\'s 429 or 503 answers 503 with retryAfterSeconds. ' +
    `Time limit: ${INSIGHT_BASE_MS / 1000} s plus ${INSIGHT_MS_PER_VIDEO_SECOND} ms per second of a downloaded video, at most the operator's AI_TIMEOUT_MS (5 min by default); past it 504 tool_timeout, refunded.`,
  aliases: ['video summary', 'summarise video', 'summarize video', 'video analysis', 'ask about a video', 'describe video', 'what happens in a video', 'explain video'],
  credits: 10,
  input,
  output,
  // Run against a Gemini stand-in answering this text (test/ai-models/video-insight-examples.test.ts);
  // elapsedMs is the one field that differs from run to run.
  examples: [
    {
      title: 'Summarise a video-platform video (Gemini)',
      input: { videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', prompt: 'Summarise this video in two sentences' },
      output: {
        text: 'A man sings and dances in a series of outdoor and studio scenes. The song promises never to give the listener up.',
        meta: {
          provider: 'gemini',
          model: 'gemini-2.5-flash',
          source: 'platform',
          sentAs: 'file-uri',
          durationSeconds: 212,
          durationFrom: 'tokens',
          frames: 0,
          frameSize: null,
          tokens: { input: 63600, output: 28, total: 63628 },
          credits: 4,
          elapsedMs: 2140,
          cached: false,
          cachedAt: null,
        },
      },
    },
  ],
  uses: 'ai',
  errorBody: 'insight',
  cache: {
    ttlMs: 24 * 3600_000,
    // A cached answer is not charged (core/invoke.ts), so its meta.credits is 0, not the stored
    // call's charge; its elapsedMs is this call's (the lookup's), not the stored call's.
    served: (result, { storedAt, elapsedMs }) => {
      const answer = result as Output;
      return { ...answer, meta: { ...answer.meta, credits: 0, elapsedMs, cached: true, cachedAt: storedAt } };
    },
  },
  creditsFor: (result) => result.meta.credits,
  // The catalog's limit is only the hard stop above every AI_TIMEOUT_MS: the call's own bound
  // (src/ai/call-budget.ts, from AI_TIMEOUT_MS and the video's length) ends it first.
  limits: { timeoutMs: AI_TIMEOUT_MAX_MS + 5_000 },
  run: (fields, ctx: ToolContext) => insight(fields, ctx as AiToolContext),
});

async function insight(fields: z.output<typeof input>, ctx: AiToolContext): Promise<Output> {
  const started = performance.now();
  const ai = ctx.ai;
  if (!ai) {
    throw new ServiceError(503, 'ai_not_configured', 'No AI model provider is configured on this service', { detail: 'The operator sets AI_PROVIDER (gemini or openai-compatible) and its key; see docs/ai-models.md' });
  }
  const budget = startCallBudget(OPERATION_ID, ai.timeoutMs, ctx.signal);
  try {
    return await budget.within(answer(fields, ai, { ...ctx, signal: budget.signal }, budget, started));
  } finally {
    budget.end();
  }
}

async function answer(fields: z.output<typeof input>, ai: AiProvider, ctx: AiToolContext, budget: CallBudget, started: number): Promise<Output> {
  const url = new URL(fields.videoUrl);
  const platform = platformVideoUrl(url);
  let video: ProviderVideo;
  let durationSeconds: number | null = null;
  let frameSize: Output['meta']['frameSize'] = null;
  let frames = 0;
  if (platform !== undefined && ai.readsPlatformUrls) {
    video = { kind: 'platform', url: platform };
  } else if (platform !== undefined) {
    throw new ServiceError(422, 'video_not_downloadable', 'videoUrl: a video-platform page cannot be downloaded as a video file, and the configured openai-compatible provider reads only frames', {
      detail: 'Give a direct link to the video file (MP4, MOV, WebM, Matroska, AVI), or ask the operator for AI_PROVIDER=gemini, which reads platform URLs itself',
      extra: { field: 'videoUrl' },
    });
  } else {
    const downloaded = await downloadVideo(fields.videoUrl, ctx.fetchPage);
    const ffmpeg = ctx.engines?.ffmpeg;
    if (!ffmpeg) throw new ServiceError(503, 'engine_unavailable', 'ffmpeg is not available on this service');
    const dir = await mkdtemp(path.join(tmpdir(), 'video-insight-'));
    try {
      const file = path.join(dir, `input.${downloaded.container}`);
      await writeFile(file, downloaded.bytes);
      const probe = await probeVideo(ffmpeg, file, downloaded.container, ctx.signal);
      if (probe.durationSeconds > VIDEO_MAX_SECONDS) {
        throw new ServiceError(422, 'video_too_long', `videoUrl: the video is longer than the ${VIDEO_MAX_SECONDS / 60} minutes this tool reads`, { detail: `It lasts ${Math.round(probe.durationSeconds)} s`, extra: { field: 'videoUrl' } });
      }
      durationSeconds = Number(probe.durationSeconds.toFixed(3));
      budget.narrow(
        insightBudgetMs(durationSeconds, ai.timeoutMs),
        `${Math.round(durationSeconds)} s of video: ${INSIGHT_BASE_MS / 1000} s plus ${INSIGHT_MS_PER_VIDEO_SECOND} ms per second of video, at most AI_TIMEOUT_MS (${ai.timeoutMs} ms)`,
      );
      if (ai.name === 'gemini') {
        video = { kind: 'file', bytes: downloaded.bytes, mimeType: downloaded.mimeType };
      } else {
        const sampled = await sampleFrames(ffmpeg, file, downloaded.container, probe, FRAME_OPTIONS, ctx.signal);
        frames = sampled.length;
        frameSize = { width: sampled[0]?.width ?? 0, height: sampled[0]?.height ?? 0 };
        const at = sampled.map((f) => `${f.atSeconds} s`).join(', ');
        video = {
          kind: 'frames',
          frames: sampled,
          description: `The images are ${frames} frames of one video, in order, taken at ${at}. The video lasts ${durationSeconds} s, is ${probe.width}x${probe.height} (${probe.codec}), ${probe.hasAudio ? 'with' : 'without'} sound (not included).`,
        };
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const answered = await ai.describe({ prompt: fields.prompt, video, signal: ctx.signal });
  const estimated = durationSeconds === null && answered.tokens.input !== null ? Math.round(answered.tokens.input / GEMINI_TOKENS_PER_SECOND) : null;
  const seconds = durationSeconds ?? estimated;
  return {
    text: answered.text,
    meta: {
      provider: ai.name,
      model: ai.model,
      source: video.kind === 'platform' ? 'platform' : 'download',
      sentAs: answered.sentAs,
      durationSeconds: seconds,
      durationFrom: durationSeconds !== null ? 'file' : estimated !== null ? 'tokens' : null,
      frames,
      frameSize,
      tokens: answered.tokens,
      credits: insightCredits(seconds),
      elapsedMs: Math.round(performance.now() - started),
      cached: false,
      cachedAt: null,
    },
  };
}
