import { resolve, join } from 'node:path';
import { z } from 'zod';
import { buildEgressPolicy, type EgressPolicy } from './analysis/egress-policy.ts';
import { engineSettingsFrom, engineSettingsShape, type EngineSettings } from './engines/engine-registry.ts';
import { DEFAULT_ZIP_LIMITS, type ZipSafetyLimits } from './files/zip-limits.ts';
import type { AttemptLimits } from './accounts/attempt-limiter.ts';
import { AI_TIMEOUT_MAX_MS } from './ai/call-budget.ts';
import { parseFileStore, type FileStoreSettings } from './files/s3-settings.ts';

const boolFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Every setting, from the environment, parsed by this one schema. Unknown values fail at start, not later. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.string().optional(),
  // Unset: limits counted in each process. redis://host:port[/db] (rediss:// for TLS): shared between nodes.
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/[^/]+(\/\d+)?\/?$/, 'must be redis://[user:pass@]host:port[/db] (or rediss:// for TLS)')
    .optional(),
  PUBLIC_BASE_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(1024 * 1024),
  // Slow clients (rest/body-pace.ts): headers within 10 s, a body at 1 KB/s or more over every 20 s, the whole request within 30 min.
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(24 * 3600_000).default(1_800_000),
  BODY_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(0).max(100 * 1024 * 1024).default(1024),
  BODY_PACE_WINDOW_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  SMTP_URL: z.string().optional(),
  SMTP_FROM: z.string().default('Tool Service <no-reply@localhost>'),
  TRUST_PROXY: boolFromEnv.default(false),
  BOOTSTRAP_ACCOUNT: boolFromEnv.default(true),
  BOOTSTRAP_EMAIL: z.email().default('admin@localhost.localdomain'),
  SIGNUP_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(5),
  KEYLESS_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(120),
  PASSWORD_FAILURES_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(10),
  PASSWORD_FAILURES_WINDOW_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  // Dashboard sessions (src/dashboard/session-store.ts): ended after this long idle, and this long after sign-in however busy.
  DASHBOARD_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(30 * 24 * 60).default(60),
  DASHBOARD_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(365 * 24).default(24 * 7),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().positive().max(24 * 30).default(24),
  TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  UPLOAD_LIMIT_BYTES: z.coerce.number().int().min(1024).max(2 * 1024 ** 3).default(100 * 1024 * 1024),
  OUTPUT_LIMIT_BYTES: z.coerce.number().int().min(1024).max(2 * 1024 ** 3).default(100 * 1024 * 1024),
  FILE_RETENTION_HOURS: z.coerce.number().positive().max(24).default(24),
  DOWNLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(10).max(24 * 3600).default(3600),
  FILE_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  // Where results live: local ($DATA_DIR/files) or s3://<bucket>[/<prefix>] with the AWS SDK's own variables (files/s3-settings.ts).
  FILE_STORE: z.string().default('local'),
  AWS_ENDPOINT_URL_S3: z.url({ protocol: /^https?$/ }).optional(),
  AWS_REGION: z.string().min(1).optional(),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  AWS_SESSION_TOKEN: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: boolFromEnv.default(false),
  BINARY_DELIVERY_DEPRECATED_AT: z.iso.date().default('2026-11-01'),
  BINARY_DELIVERY_SUNSET_AT: z.iso.date().default('2027-06-30'),
  ENGINE_QUEUE_LIMIT: z.coerce.number().int().min(0).max(1000).default(16),
  ENGINE_JOB_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  ENGINES_WARM_ON_START: boolFromEnv.default(true),
  // Each engine declares its own keys (LIBREOFFICE_PROGRAM, CHROMIUM_PROGRAM, ...) next to its code.
  ...engineSettingsShape(),
  // The one set of zip-bomb limits: the upload check and the engines' guard both use it.
  ZIP_MAX_ENTRIES: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_ZIP_LIMITS.maxEntries),
  ZIP_MAX_UNCOMPRESSED_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 ** 3).default(DEFAULT_ZIP_LIMITS.maxUncompressedBytes),
  ZIP_MAX_RATIO: z.coerce.number().int().min(2).max(100_000).default(DEFAULT_ZIP_LIMITS.maxRatio),
  ZIP_MAX_PART_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 ** 3).default(DEFAULT_ZIP_LIMITS.maxPartBytes),
  ZIP_MAX_DEPTH: z.coerce.number().int().min(1).max(16).default(DEFAULT_ZIP_LIMITS.maxDepth),
  USAGE_FLUSH_MS: z.coerce.number().int().min(10).max(600_000).default(250),
  EGRESS_ALLOW: z.string().default(''),
  EGRESS_RESOLVE: z.string().default(''),
  FETCH_MAX_BYTES: z.coerce.number().int().min(1024).max(1024 ** 3).default(5 * 1024 * 1024),
  FETCH_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  FETCH_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
  FETCH_CONCURRENCY_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(4),
  FETCH_QUEUE_LIMIT: z.coerce.number().int().min(0).max(10_000).default(32),
  MCP_BODY_LIMIT_BYTES: z.coerce.number().int().min(64 * 1024).max(512 * 1024 * 1024).default(16 * 1024 * 1024),
  MCP_PAYLOAD_TTL_MS: z.coerce.number().int().min(1000).max(7 * 24 * 3600_000).default(3600_000),
  MCP_SSE_SESSIONS_PER_KEY: z.coerce.number().int().min(1).max(10_000).default(8),
  MCP_SSE_SESSIONS_MAX: z.coerce.number().int().min(1).max(100_000).default(256),
  MCP_SSE_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  MCP_PROGRESS_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  RUN_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  RUN_QUEUE_LIMIT: z.coerce.number().int().min(0).max(10_000).default(100),
  TEST_PLAYBOOKS: boolFromEnv.default(false),
  // The compute pool (core/compute-pool.ts): 0 workers means one per core beyond the one serving requests.
  COMPUTE_WORKERS: z.coerce.number().int().min(0).max(64).default(0),
  COMPUTE_JOB_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  COMPUTE_MEMORY_MB: z.coerce.number().int().min(64).max(16_384).default(512),
  COMPUTE_QUEUE_LIMIT: z.coerce.number().int().min(0).max(10_000).default(64),
  // ai-models (src/ai/): the provider video-insight calls; unset, the tool answers 503 ai_not_configured.
  AI_PROVIDER: z.enum(['gemini', 'openai-compatible']).optional(),
  AI_MODEL: z.string().min(1).max(200).optional(),
  GEMINI_API_KEY: z.string().min(1).optional(),
  GEMINI_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://generativelanguage.googleapis.com'),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.openai.com/v1'),
  // A model reading a long video takes minutes, not TOOL_TIMEOUT_MS: ai-models calls have their own ceiling.
  AI_TIMEOUT_MS: z.coerce.number().int().min(1000).max(AI_TIMEOUT_MAX_MS).default(300_000),
});

/** Every environment variable the service reads (docs/configuration.md's table lists each). */
export const CONFIG_KEYS: readonly string[] = Object.keys(envSchema.shape);

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `sqlite:<absolute path>`; the seam for a PostgreSQL URL later. */
  databaseUrl: string;
  publicBaseUrl: string;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  bodyLimitBytes: number;
  slowClients: SlowClientLimits;
  smtpUrl: string | undefined;
  smtpFrom: string;
  /** Sign-ups per client address per hour, and failed passwords per address and per account in a window (counted before the scrypt or the mail). */
  attemptLimits: AttemptLimits;
  /** Requests a minute one client address may make to the routes that need no key (catalog reads, sign-up). */
  keylessRequestsPerMinute: number;
  /** Dashboard sessions: ended after `idleMs` without a request, and `maxMs` after sign-in. */
  dashboardSessions: { idleMs: number; maxMs: number };
  /** `redis://host:port[/db]`: rate limits (and later run wake-ups) shared between nodes; undefined: per process. */
  redisUrl: string | undefined;
  trustProxy: boolean;
  bootstrapAccount: boolean;
  bootstrapEmail: string;
  idempotencyTtlMs: number;
  toolTimeoutMs: number;
  uploadLimitBytes: number;
  outputLimitBytes: number;
  fileRetentionMs: number;
  downloadUrlTtlSeconds: number;
  /** HMAC key for download links; unset means one generated and kept in DATA_DIR/signing-secret. */
  fileSigningSecret: string | undefined;
  /** FILE_STORE: the local folder, or an S3 bucket with its endpoint, region and credentials */
  fileStore: FileStoreSettings;
  binaryDeliveryDeprecatedAt: Date;
  binaryDeliverySunsetAt: Date;
  engineQueueLimit: number;
  engineJobTimeoutMs: number;
  enginesWarmOnStart: boolean;
  /** each engine's own settings, keyed by engine name (declared in the engine's defineEngine) */
  engines: EngineSettings;
  /** zip-bomb limits for uploads and for the engines that open zip containers */
  zipLimits: ZipSafetyLimits;
  /** How often usage counters and credit-lease consumption are written: a crash leaves at most this window's calls uncharged. */
  usageFlushMs: number;
  /** EGRESS_ALLOW and EGRESS_RESOLVE, parsed: what the egress-safe fetcher may reach beyond public addresses. */
  egress: EgressPolicy;
  /** The egress-safe fetcher's limits: body cap (wire and decoded), connect and total time, concurrency and queue. */
  fetch: {
    maxBytes: number;
    connectTimeoutMs: number;
    totalTimeoutMs: number;
    concurrency: number;
    perAccount: number;
    maxQueued: number;
  };
  /** How long a stored payload (responseMode dataRef, an oversize result) can be read with fetch_payload. */
  payloadTtlMs: number;
  /** the largest MCP message (a base64 file rides inside one); larger answers 413 with a JSON-RPC error */
  mcpBodyLimitBytes: number;
  /** legacy SSE sessions: open at once per API key and in all, and how long one may sit idle before it is closed */
  mcpSse: { perKey: number; max: number; idleMs: number };
  /** MCP_PROGRESS_INTERVAL_MS: how often a long invoke_tool reports progress to a client that asked */
  mcpProgressIntervalMs: number;
  /** Async runs executing at once in this process, and waiting beyond those (more are refused with runs_busy). */
  runConcurrency: number;
  runQueueLimit: number;
  /** Whether the playbooks tagged `test` (fixtures of the service's own tests) are listed and routable; never in production. */
  testPlaybooks: boolean;
  /** The compute pool's worker threads (0: one per core beyond the first), per-job time and heap limits, and waiting jobs. */
  compute: { workers: number; jobTimeoutMs: number; memoryMb: number; maxQueued: number };
  /** AI_PROVIDER and its model, key and base URL; undefined when AI_PROVIDER is unset (ai-models answer 503). */
  ai: AiSettings | undefined;
}

export interface AiSettings {
  provider: 'gemini' | 'openai-compatible';
  model: string;
  /** never logged nor answered (see src/ai/) */
  apiKey: string;
  baseUrl: string;
  /** AI_TIMEOUT_MS: the most one ai-models call may take (a shorter video is given less; catalog/ai-models/) */
  timeoutMs: number;
}

/** The model used when AI_MODEL is unset (docs/ai-models.md). */
export const DEFAULT_AI_MODELS = { gemini: 'gemini-2.5-flash', 'openai-compatible': 'gpt-4o-mini' } as const;

function aiSettings(e: z.infer<typeof envSchema>): AiSettings | undefined {
  if (e.AI_PROVIDER === undefined) return undefined;
  const gemini = e.AI_PROVIDER === 'gemini';
  const apiKey = gemini ? e.GEMINI_API_KEY : e.OPENAI_API_KEY;
  if (apiKey === undefined) {
    const name = gemini ? 'GEMINI_API_KEY' : 'OPENAI_API_KEY';
    throw new ConfigError(`invalid configuration:\n  ${name}: required with AI_PROVIDER=${e.AI_PROVIDER}${gemini ? '' : ' (any value for a server that takes no key)'}`);
  }
  return { provider: e.AI_PROVIDER, model: e.AI_MODEL ?? DEFAULT_AI_MODELS[e.AI_PROVIDER], apiKey, baseUrl: (gemini ? e.GEMINI_BASE_URL : e.OPENAI_BASE_URL).replace(/\/+$/, ''), timeoutMs: e.AI_TIMEOUT_MS };
}

/** How long a client may take to send a request (see rest/body-pace.ts for why these defaults). */
export interface SlowClientLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** 0: no pace check */
  bodyMinBytesPerSecond: number;
  bodyPaceWindowMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  let egress: EgressPolicy;
  try {
    egress = buildEgressPolicy(e.EGRESS_ALLOW, e.EGRESS_RESOLVE);
  } catch (error) {
    throw new ConfigError(`invalid configuration:\n  EGRESS_ALLOW/EGRESS_RESOLVE: ${(error as Error).message}`);
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(`invalid configuration:\n  HEADERS_TIMEOUT_MS: ${e.HEADERS_TIMEOUT_MS} is over REQUEST_TIMEOUT_MS (${e.REQUEST_TIMEOUT_MS}); the headers are part of the request`);
  }
  const dataDir = resolve(e.DATA_DIR);
  const databaseUrl = e.DATABASE_URL ?? `sqlite:${join(dataDir, 'tool-service.db')}`;
  const databaseProblem = databaseUrlProblem(databaseUrl);
  if (databaseProblem) throw new ConfigError(`invalid configuration:\n  DATABASE_URL: ${databaseProblem}`);
  let fileStore: FileStoreSettings;
  try {
    fileStore = parseFileStore(e);
  } catch (error) {
    throw new ConfigError(`invalid configuration:\n  ${(error as Error).message}`);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    slowClients: { headersTimeoutMs: e.HEADERS_TIMEOUT_MS, requestTimeoutMs: e.REQUEST_TIMEOUT_MS, bodyMinBytesPerSecond: e.BODY_MIN_BYTES_PER_SECOND, bodyPaceWindowMs: e.BODY_PACE_WINDOW_MS },
    smtpUrl: e.SMTP_URL,
    smtpFrom: e.SMTP_FROM,
    attemptLimits: { signupsPerHour: e.SIGNUP_PER_HOUR, passwordFailures: e.PASSWORD_FAILURES_LIMIT, passwordWindowMinutes: e.PASSWORD_FAILURES_WINDOW_MINUTES },
    keylessRequestsPerMinute: e.KEYLESS_REQUESTS_PER_MINUTE,
    dashboardSessions: { idleMs: e.DASHBOARD_SESSION_IDLE_MINUTES * 60_000, maxMs: e.DASHBOARD_SESSION_MAX_HOURS * 3600_000 },
    redisUrl: e.REDIS_URL,
    trustProxy: e.TRUST_PROXY,
    bootstrapAccount: e.BOOTSTRAP_ACCOUNT,
    bootstrapEmail: e.BOOTSTRAP_EMAIL,
    idempotencyTtlMs: e.IDEMPOTENCY_TTL_HOURS * 3600_000,
    toolTimeoutMs: e.TOOL_TIMEOUT_MS,
    uploadLimitBytes: e.UPLOAD_LIMIT_BYTES,
    outputLimitBytes: e.OUTPUT_LIMIT_BYTES,
    fileRetentionMs: e.FILE_RETENTION_HOURS * 3600_000,
    downloadUrlTtlSeconds: e.DOWNLOAD_URL_TTL_SECONDS,
    fileSigningSecret: e.FILE_SIGNING_SECRET,
    fileStore,
    binaryDeliveryDeprecatedAt: new Date(`${e.BINARY_DELIVERY_DEPRECATED_AT}T00:00:00Z`),
    binaryDeliverySunsetAt: new Date(`${e.BINARY_DELIVERY_SUNSET_AT}T00:00:00Z`),
    engineQueueLimit: e.ENGINE_QUEUE_LIMIT,
    engineJobTimeoutMs: e.ENGINE_JOB_TIMEOUT_MS,
    enginesWarmOnStart: e.ENGINES_WARM_ON_START,
    engines: engineSettingsFrom(e),
    zipLimits: {
      maxEntries: e.ZIP_MAX_ENTRIES,
      maxUncompressedBytes: e.ZIP_MAX_UNCOMPRESSED_BYTES,
      maxRatio: e.ZIP_MAX_RATIO,
      maxPartBytes: e.ZIP_MAX_PART_BYTES,
      ratioFloorBytes: DEFAULT_ZIP_LIMITS.ratioFloorBytes,
      maxDepth: e.ZIP_MAX_DEPTH,
    },
    usageFlushMs: e.USAGE_FLUSH_MS,
    egress,
    fetch: {
      maxBytes: e.FETCH_MAX_BYTES,
      connectTimeoutMs: e.FETCH_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: e.FETCH_TIMEOUT_MS,
      concurrency: e.FETCH_CONCURRENCY,
      perAccount: e.FETCH_CONCURRENCY_PER_ACCOUNT,
      maxQueued: e.FETCH_QUEUE_LIMIT,
    },
    payloadTtlMs: e.MCP_PAYLOAD_TTL_MS,
    mcpBodyLimitBytes: e.MCP_BODY_LIMIT_BYTES,
    mcpSse: { perKey: e.MCP_SSE_SESSIONS_PER_KEY, max: e.MCP_SSE_SESSIONS_MAX, idleMs: e.MCP_SSE_IDLE_SECONDS * 1000 },
    mcpProgressIntervalMs: e.MCP_PROGRESS_INTERVAL_MS,
    runConcurrency: e.RUN_CONCURRENCY,
    runQueueLimit: e.RUN_QUEUE_LIMIT,
    testPlaybooks: e.TEST_PLAYBOOKS,
    compute: { workers: e.COMPUTE_WORKERS, jobTimeoutMs: e.COMPUTE_JOB_TIMEOUT_MS, memoryMb: e.COMPUTE_MEMORY_MB, maxQueued: e.COMPUTE_QUEUE_LIMIT },
    ai: aiSettings(e),
  };
}

/** Whether DATABASE_URL is `postgres://` (or `postgresql://`) rather than `sqlite:`. */
export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}

/** What is wrong with a DATABASE_URL, or undefined. The answer never repeats a password. */
function databaseUrlProblem(databaseUrl: string): string | undefined {
  if (databaseUrl.startsWith('sqlite:')) return databaseUrl.length > 'sqlite:'.length ? undefined : 'sqlite: needs a path (sqlite:<path>)';
  if (!isPostgresUrl(databaseUrl)) {
    return `must be sqlite:<path> or postgres://user:pass@host:port/db (got "${databaseUrl.split(':')[0]}:")`;
  }
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return 'is not a valid postgres:// URL (expected postgres://user:pass@host:port/db; percent-encode special characters in the password)';
  }
  if (!url.hostname && !url.searchParams.get('host')) return 'names no host (expected postgres://user:pass@host:port/db)';
  if (url.pathname.replace(/^\//, '') === '') return 'names no database (expected postgres://user:pass@host:port/db)';
  return undefined;
}

/** Resolves `sqlite:<path>` (relative paths against the working directory). */
export function sqlitePath(databaseUrl: string): string {
  const path = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  return path === ':memory:' ? path : resolve(path);
}
