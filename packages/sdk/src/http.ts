// The request loop every call goes through: key header, Idempotency-Key, a timeout per attempt,
// the caller's AbortSignal, retries with backoff, and the response read into a body and its meta.
import { APIConnectionError, APITimeoutError, APIUserAbortError, ToolServiceError, errorFromBody, isRecord, retryAfterSeconds } from './errors.ts';

/** Per-call options, the last argument of every method. */
export interface RequestOptions {
  /** Aborts the call (and its retries); the client throws APIUserAbortError with the signal's reason as cause. */
  signal?: AbortSignal;
  /** Time allowed for each attempt, in ms (default: the client's timeoutMs). */
  timeoutMs?: number;
  /** The Idempotency-Key of a POST (default: `sdk_` + 32 random hex digits, one per call, reused by its retries). */
  idempotencyKey?: string;
  /** Retries after the first attempt (default: the client's maxRetries). */
  maxRetries?: number;
}

export interface HttpContext {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  maxRetries: number;
  timeoutMs: number;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A path under baseUrl, or an absolute URL (a downloadUrl). */
  path: string;
  query?: Record<string, unknown>;
  /** A JSON value, or FormData (built once; fetch serialises it again for each attempt). */
  body?: unknown;
  /** false for presigned download links: the key is never sent with them. */
  sendKey?: boolean;
  /** How to read a successful body: by its Content-Type (default) or always as bytes. */
  read?: 'auto' | 'bytes';
}

/** What the response headers said about a call. */
export interface ResponseMeta {
  /** HTTP status of the answer. */
  status: number;
  /** X-Request-Id: quote it when reporting a problem. */
  requestId: string | undefined;
  /** X-Credits-Remaining: credits left in the account's monthly quota after this call. */
  creditsRemaining: number | undefined;
  /** The per-minute request window (IETF RateLimit / RateLimit-Policy "minute"). */
  rateLimit: LimitState | undefined;
  /** The monthly credit quota (IETF RateLimit / RateLimit-Policy "credits"). */
  quota: LimitState | undefined;
  /** Idempotent-Replayed: true when the service answered a stored response (not charged again). */
  replayed: boolean;
  /** Attempts made: 1 plus the retries. */
  attempts: number;
  headers: Headers;
}

export interface LimitState {
  limit: number | undefined;
  remaining: number | undefined;
  /** Seconds until the window resets. */
  resetSeconds: number | undefined;
  windowSeconds: number | undefined;
}

export interface HttpResponse {
  body: unknown;
  meta: ResponseMeta;
}

/**
 * What every SDK method returns: a promise of the answer, whose object answers (envelopes, bytes)
 * also carry the response metadata as a non-enumerable `meta` (kept out of JSON.stringify and
 * deepEqual), and `withResponse()` for `{ data, meta }` whatever the answer (a text answer too).
 */
export type APIPromise<T> = Promise<WithMeta<T>> & { withResponse(): Promise<{ data: WithMeta<T>; meta: ResponseMeta }> };

/** An object answer with its `meta`; a text answer as it is (its meta comes from withResponse()). */
export type WithMeta<T> = T extends object ? T & { readonly meta: ResponseMeta } : T;

export function apiPromise<T>(run: () => Promise<{ data: T; meta: ResponseMeta }>): APIPromise<T> {
  const response = run().then(({ data, meta }) => {
    if (typeof data === 'object' && data !== null) Object.defineProperty(data, 'meta', { value: meta, enumerable: false, configurable: true });
    return { data: data as WithMeta<T>, meta };
  });
  const promise = response.then(({ data }) => data);
  // A caller who only asks withResponse() handles the failure there; this copy must not be reported unhandled.
  promise.catch(() => undefined);
  return Object.assign(promise, { withResponse: () => response });
}

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;
const MAX_RETRY_AFTER_MS = 60_000;

/** Sends a request with retries; resolves to the 2xx answer, throws a ToolServiceError otherwise. */
export async function send(ctx: HttpContext, req: HttpRequest, options: RequestOptions = {}): Promise<HttpResponse> {
  const maxRetries = Math.max(0, options.maxRetries ?? ctx.maxRetries);
  const timeoutMs = options.timeoutMs ?? ctx.timeoutMs;
  const url = buildUrl(ctx.baseUrl, req.path, req.query);
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' };
  if (req.sendKey !== false && ctx.apiKey) headers['x-api-key'] = ctx.apiKey;
  if (req.method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? newIdempotencyKey();
  let body: RequestInit['body'];
  if (req.body instanceof FormData) body = req.body;
  else if (req.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(req.body);
  }
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(options.signal);
    // One controller per attempt, its timer cleared when the attempt ends: AbortSignal.timeout
    // would keep a timer per call alive for timeoutMs (60 s) and AbortSignal.any adds its own
    // bookkeeping, both paid on every call of a busy client.
    const attemptController = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attemptController.abort(new Error(`No answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onCallerAbort = (): void => attemptController.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const signal = attemptController.signal;
    let failure: ToolServiceError;
    try {
      const response = await ctx.fetch(url, { method: req.method, headers, body, signal });
      const read = response.ok ? (req.read ?? 'auto') : 'auto';
      const answer = await readBody(response, read);
      if (response.ok) return { body: answer, meta: readMeta(response, attempt + 1) };
      failure = errorFromBody(response.status, answer, response.headers);
      if (attempt >= maxRetries || !shouldRetry(response, failure)) throw failure;
    } catch (err) {
      if (err instanceof ToolServiceError) throw err;
      if (options.signal?.aborted) throw new APIUserAbortError({ cause: options.signal.reason });
      failure = timedOut
        ? new APITimeoutError({ message: `No answer within ${timeoutMs} ms`, cause: err })
        : new APIConnectionError({ message: `Connection error: ${describe(err)}`, cause: err });
      if (attempt >= maxRetries) throw failure;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
    const delayMs = retryDelayMs(attempt, failure.headers);
    // A Retry-After past 60 s is longer than a call should hang: the caller decides (retryAfterSeconds).
    if (delayMs === Infinity) throw failure;
    await sleep(delayMs, options.signal);
  }
}

/** The retryable failures: 408, 409 idempotency_in_progress, 429 but a used-up quota, 5xx; `x-should-retry` overrides. */
function shouldRetry(response: Response, failure: ToolServiceError): boolean {
  const hint = response.headers.get('x-should-retry');
  if (hint === 'true') return true;
  if (hint === 'false') return false;
  const { status } = response;
  if (status === 408 || status >= 500) return true;
  if (status === 409) return failure.code === 'idempotency_in_progress';
  if (status === 429) return failure.code !== 'quota_exhausted';
  return false;
}

/**
 * Retry-After (seconds or an HTTP date) when the service gave one (Infinity past 60 s: not
 * retried), else exponential backoff from 0.5 s doubling to 8 s, each cut by up to a quarter at
 * random so clients that failed together do not come back together.
 */
export function retryDelayMs(attempt: number, headers: Headers | undefined, random = Math.random): number {
  const told = headers ? retryAfterMs(headers) : undefined;
  if (told !== undefined) return told;
  const backoff = Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_DELAY_MS);
  return backoff * (1 - 0.25 * random());
}

/** Retry-After in ms; Infinity past 60 s (waiting that long inside one call is the caller's choice, not ours). */
function retryAfterMs(headers: Headers): number | undefined {
  const seconds = retryAfterSeconds(headers);
  if (seconds === undefined) return undefined;
  const ms = seconds * 1000;
  return ms > MAX_RETRY_AFTER_MS ? Infinity : ms;
}

async function readBody(response: Response, read: 'auto' | 'bytes'): Promise<unknown> {
  if (read === 'bytes') return new Uint8Array(await response.arrayBuffer());
  const type = response.headers.get('content-type') ?? '';
  if (/[/+]json\b/i.test(type)) {
    const text = await response.text();
    try {
      return text === '' ? undefined : JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (/^text\//i.test(type)) return response.text();
  const bytes = new Uint8Array(await response.arrayBuffer());
  return bytes.byteLength === 0 && !response.ok ? undefined : bytes;
}

/** The response's meta; the rate-limit headers are parsed when first read (most callers never do). */
export function readMeta(response: Response, attempts: number): ResponseMeta {
  const { headers } = response;
  let limits: Map<string, LimitState> | undefined;
  const limit = (name: string): LimitState | undefined => (limits ??= parseRateLimit(headers)).get(name);
  const credits = headers.get('x-credits-remaining');
  return {
    status: response.status,
    requestId: headers.get('x-request-id') ?? undefined,
    creditsRemaining: credits === null || credits === '' || Number.isNaN(Number(credits)) ? undefined : Number(credits),
    get rateLimit() {
      return limit('minute');
    },
    get quota() {
      return limit('credits');
    },
    replayed: headers.get('idempotent-replayed') === 'true',
    attempts,
    headers,
  };
}

/**
 * The IETF draft headers the service sends: `RateLimit-Policy: "minute";q=30;w=60, "credits";q=500;w=...`
 * and `RateLimit: "minute";r=29;t=60, "credits";r=499;t=...`, merged by policy name.
 */
export function parseRateLimit(headers: Headers): Map<string, LimitState> {
  const states = new Map<string, LimitState>();
  const entry = (name: string): LimitState => {
    let state = states.get(name);
    if (!state) {
      state = { limit: undefined, remaining: undefined, resetSeconds: undefined, windowSeconds: undefined };
      states.set(name, state);
    }
    return state;
  };
  for (const [header, fields] of [['ratelimit-policy', { q: 'limit', w: 'windowSeconds' }], ['ratelimit', { r: 'remaining', t: 'resetSeconds' }]] as const) {
    for (const item of (headers.get(header) ?? '').split(',')) {
      const [rawName, ...params] = item.split(';');
      const name = rawName?.trim().replace(/^"|"$/g, '');
      if (!name) continue;
      const state = entry(name);
      for (const param of params) {
        const [key, value] = param.split('=').map((part) => part.trim());
        const field = key ? (fields as Record<string, keyof LimitState | undefined>)[key] : undefined;
        if (field && value !== undefined && /^\d+$/.test(value)) state[field] = Number(value);
      }
    }
  }
  return states;
}

function buildUrl(baseUrl: string, path: string, query: Record<string, unknown> | undefined): string {
  const url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(`${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    url.searchParams.append(name, formValue(value));
  }
  return url.toString();
}

/** A field as text, for query strings and multipart forms: strings as they are, other values as JSON. */
export function formValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  // Node >= 19 and browsers have Web Crypto as a global; Node 18 does not, and a key only needs to be unique.
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return `sdk_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** AbortSignal.any where it exists (Node >= 20.3), a small equivalent elsewhere. */
function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new APIUserAbortError({ cause: signal.reason });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError({ cause: signal.reason }));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new APIUserAbortError({ cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describe(err: unknown): string {
  const cause = isRecord(err) && err['cause'] instanceof Error ? err['cause'] : undefined;
  const base = err instanceof Error ? err.message : String(err);
  return cause ? `${base} (${cause.message})` : base;
}
