// The model providers of ai-models, through their official clients: Gemini with @google/genai,
// any OpenAI-compatible chat endpoint with the openai client. Each call builds its client with a
// fetch bound to the call (provider-fetch.ts): the provider host only, the call's signal, and a
// record of what the provider answered, from which its failures are mapped to ours. The key is
// given to the client and to nothing else; every text that reaches a caller is scrubbed of it.
import { GoogleGenAI, type Part } from '@google/genai';
import OpenAI from 'openai';
import type { AiSettings } from '../config.ts';
import type { EgressPolicy } from '../analysis/egress-policy.ts';
import { ServiceError, isServiceError } from '../core/errors.ts';
import { providerFetch, type ProviderFetch } from './provider-fetch.ts';

/** Gemini's limit on a whole request with the video inline is 20 MB; base64 adds a third, so larger files go through its upload API. */
export const GEMINI_INLINE_MAX_BYTES = 14 * 1024 * 1024;
/** The largest answer read from a provider. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** How often an uploaded file's processing state is asked for. */
const UPLOAD_POLL_MS = 1000;

export type ProviderVideo =
  | { kind: 'platform'; url: string }
  | { kind: 'file'; bytes: Buffer; mimeType: string }
  | { kind: 'frames'; frames: readonly { jpeg: Buffer; atSeconds: number }[]; description: string };

export interface InsightRequest {
  prompt: string;
  video: ProviderVideo;
  signal: AbortSignal;
}

export interface InsightAnswer {
  text: string;
  /** how the video reached the model */
  sentAs: 'file-uri' | 'inline' | 'upload' | 'frames';
  tokens: { input: number | null; output: number | null; total: number | null };
}

export interface AiProvider {
  readonly name: AiSettings['provider'];
  readonly model: string;
  /** whether the provider reads a video-platform URL itself */
  readonly readsPlatformUrls: boolean;
  /** AI_TIMEOUT_MS: the most one call may take (src/ai/call-budget.ts) */
  readonly timeoutMs: number;
  describe(request: InsightRequest): Promise<InsightAnswer>;
}

/** The provider the settings name; `pins` are EGRESS_RESOLVE's (they apply to the provider host too). */
export function createAiProvider(settings: AiSettings, pins: EgressPolicy['pins']): AiProvider {
  // A single request may take the whole call's bound; the call's signal (its budget) ends it sooner.
  const bind = (signal: AbortSignal, maxRequestBodyBytes: number): ProviderFetch =>
    providerFetch({ baseUrl: settings.baseUrl, pins, signal, timeoutMs: settings.timeoutMs, maxRequestBodyBytes, maxResponseBytes: MAX_RESPONSE_BYTES });
  const describe = settings.provider === 'gemini' ? geminiDescribe : openAiDescribe;
  return {
    name: settings.provider,
    model: settings.model,
    readsPlatformUrls: settings.provider === 'gemini',
    timeoutMs: settings.timeoutMs,
    async describe(request) {
      const pf = bind(request.signal, 24 * 1024 * 1024);
      try {
        return await describe(settings, pf, request);
      } catch (err) {
        throw providerFailure(err, pf, settings, request.signal);
      }
    },
  };
}

async function geminiDescribe(settings: AiSettings, pf: ProviderFetch, request: InsightRequest): Promise<InsightAnswer> {
  // The client's own retries are off (no retryOptions): a 429 is the caller's to retry, with the hint.
  const ai = new GoogleGenAI({ apiKey: settings.apiKey, httpOptions: { baseUrl: settings.baseUrl, apiVersion: 'v1beta', fetch: pf.fetch } });
  const { video, signal } = request;
  let part: Part;
  let sentAs: InsightAnswer['sentAs'];
  if (video.kind === 'platform') {
    part = { fileData: { fileUri: video.url } };
    sentAs = 'file-uri';
  } else if (video.kind === 'file' && video.bytes.byteLength <= GEMINI_INLINE_MAX_BYTES) {
    part = { inlineData: { mimeType: video.mimeType, data: video.bytes.toString('base64') } };
    sentAs = 'inline';
  } else if (video.kind === 'file') {
    const blob = new Blob([new Uint8Array(video.bytes)], { type: video.mimeType });
    let file = await ai.files.upload({ file: blob, config: { mimeType: video.mimeType, abortSignal: signal } });
    // A video is processed before it can be used: PROCESSING until ACTIVE (or FAILED).
    while (file.state === 'PROCESSING' && file.name !== undefined) {
      await sleep(UPLOAD_POLL_MS, signal);
      file = await ai.files.get({ name: file.name, config: { abortSignal: signal } });
    }
    if (file.state === 'FAILED' || file.uri === undefined) {
      throw new ServiceError(502, 'ai_provider_error', 'The AI provider could not process the uploaded video', { detail: `The file's state is ${file.state ?? 'unknown'}` });
    }
    part = { fileData: { fileUri: file.uri, mimeType: file.mimeType ?? video.mimeType } };
    sentAs = 'upload';
  } else {
    part = { text: video.description };
    sentAs = 'frames';
    const frames: Part[] = video.frames.map((f) => ({ inlineData: { mimeType: 'image/jpeg', data: f.jpeg.toString('base64') } }));
    const response = await ai.models.generateContent({ model: settings.model, contents: [{ role: 'user', parts: [...frames, part, { text: request.prompt }] }], config: { abortSignal: signal } });
    return { text: answerText(response.text), sentAs, tokens: geminiTokens(response.usageMetadata) };
  }
  const response = await ai.models.generateContent({ model: settings.model, contents: [{ role: 'user', parts: [part, { text: request.prompt }] }], config: { abortSignal: signal } });
  return { text: answerText(response.text), sentAs, tokens: geminiTokens(response.usageMetadata) };
}

function geminiTokens(usage: { promptTokenCount?: number; candidatesTokenCount?: number; totalTokenCount?: number } | undefined): InsightAnswer['tokens'] {
  return { input: usage?.promptTokenCount ?? null, output: usage?.candidatesTokenCount ?? null, total: usage?.totalTokenCount ?? null };
}

async function openAiDescribe(settings: AiSettings, pf: ProviderFetch, request: InsightRequest): Promise<InsightAnswer> {
  const { video, signal } = request;
  if (video.kind !== 'frames') throw new Error('the openai-compatible provider takes frames');
  // maxRetries 0: a 429 is answered to the caller with the provider's retry hint, not retried here.
  const client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl, fetch: pf.fetch, maxRetries: 0, timeout: settings.timeoutMs });
  const completion = await client.chat.completions.create(
    {
      model: settings.model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: `${video.description}\n\n${request.prompt}` },
            ...video.frames.map((f) => ({ type: 'image_url' as const, image_url: { url: `data:image/jpeg;base64,${f.jpeg.toString('base64')}`, detail: 'low' as const } })),
          ],
        },
      ],
    },
    { signal },
  );
  const usage = completion.usage;
  return {
    text: answerText(completion.choices[0]?.message.content ?? undefined),
    sentAs: 'frames',
    tokens: { input: usage?.prompt_tokens ?? null, output: usage?.completion_tokens ?? null, total: usage?.total_tokens ?? null },
  };
}

function answerText(text: string | undefined | null): string {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new ServiceError(502, 'ai_provider_error', 'The AI provider answered no text', { detail: 'The model returned an empty answer (it may have been blocked by the provider)' });
  }
  return text;
}

/**
 * A provider failure as ours, never quoting the key: its 429 or 503 is our 503 with the retry
 * hint it gave (OpenAI's retry-after header, Gemini's RetryInfo), any other answer a 502 naming
 * its status and message, an unreachable provider a 502; the call's own end (its time budget,
 * the caller gone) is the signal's reason. All are refunded (5xx).
 */
function providerFailure(err: unknown, pf: ProviderFetch, settings: AiSettings, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? err;
  const scrub = (text: string): string => text.split(settings.apiKey).join('[key]');
  const answered = pf.lastFailure();
  if (answered) {
    const message = scrub(providerMessage(answered.text) ?? `HTTP ${answered.status}`).slice(0, 500);
    if (answered.status === 429 || answered.status === 503) {
      const retryAfterSeconds = retryHint(answered.headers, answered.text) ?? 30;
      return new ServiceError(503, 'ai_provider_busy', `The AI provider is busy (HTTP ${answered.status}); retry after ${retryAfterSeconds} s`, {
        detail: message,
        headers: { 'Retry-After': String(retryAfterSeconds) },
        extra: { retryAfterSeconds, providerStatus: answered.status },
      });
    }
    return new ServiceError(502, 'ai_provider_error', `The AI provider refused the request (HTTP ${answered.status})`, { detail: message, extra: { providerStatus: answered.status } });
  }
  const inner = serviceErrorIn(err);
  if (inner && inner.status >= 500) return new ServiceError(inner.status, inner.error, scrub(inner.message), { detail: scrub(inner.detail), extra: inner.extra });
  if (inner) {
    return new ServiceError(502, 'ai_provider_unreachable', 'The AI provider could not be reached', { detail: scrub(inner.detail), extra: { ...inner.extra, providerError: inner.error } });
  }
  const text = err instanceof Error ? err.message : String(err);
  // The client's own error is logged as the cause (5xx are): scrubbed, as its message may quote what was sent.
  const cause = new Error(scrub(text));
  if (err instanceof Error && err.stack !== undefined) cause.stack = scrub(err.stack);
  return new ServiceError(502, 'ai_provider_error', 'The AI provider call failed', { detail: scrub(text).slice(0, 500), cause });
}

/** The ServiceError the provider fetch threw, wherever the client wrapped it. */
function serviceErrorIn(err: unknown): ServiceError | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (isServiceError(e)) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function providerMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | unknown };
    const error = Array.isArray(body) ? (body[0] as { error?: unknown })?.error : (body as { error?: unknown }).error;
    if (typeof error === 'string') return error;
    const message = (error as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return text.trim() === '' ? undefined : text.slice(0, 300);
  }
}

/** Seconds from a retry-after (or retry-after-ms) header, or from Gemini's RetryInfo `retryDelay` ("7s", "1.5s"). */
export function retryHint(headers: Record<string, string>, text: string): number | undefined {
  const ms = Number(headers['retry-after-ms']);
  if (Number.isFinite(ms) && ms > 0) return Math.max(1, Math.ceil(ms / 1000));
  const after = headers['retry-after'];
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.max(1, Math.ceil(seconds));
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(1, Math.ceil((date - Date.now()) / 1000));
  }
  const delay = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(text);
  return delay?.[1] === undefined ? undefined : Math.max(1, Math.ceil(Number(delay[1])));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
