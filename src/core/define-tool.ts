import { z } from 'zod';
import type { FastifyBaseLogger } from 'fastify';
import type { MarkdownRenderer, UrlToolExample } from './define-url-tool.ts';
import { fileResultSchema, type FileArtifact, type UploadedFile } from '../files/file-types.ts';
import type { Analyzer } from '../analysis/scoring.ts';
import type { EngineName, EngineView, Engines } from '../engines/engine-registry.ts';
import type { PageFetcher } from '../analysis/url-report.ts';
import type { AiProvider } from '../ai/providers.ts';

export { fileResultSchema, type FileArtifact, type FileResult, type UploadedFile } from '../files/file-types.ts';

export type HttpMethod = 'GET' | 'POST';

export interface ToolExample<I, O> {
  /** Shown in the docs; also the name of the generated test. */
  title: string;
  input: I;
  /** The exact `result` the tool returns for `input`; the examples-as-tests suite checks it. */
  output: O;
}

/** What a tool may use while it runs. Tools never see accounts, keys or HTTP. */
export interface ToolContext {
  requestId: string;
  log: FastifyBaseLogger;
  /** Aborted when the caller goes away or the tool's time budget ends. */
  signal: AbortSignal;
  /** Non-fatal notes for the envelope's `warnings`. */
  warn(message: string): void;
}

/**
 * What a tool that calls an AI model gets (ToolSpec.uses 'ai'): the egress-safe fetcher bound to
 * the calling account's slots and the call's signal, the engines, and the configured provider
 * (undefined when AI_PROVIDER is unset). It never sees the provider's key.
 */
export interface AiToolContext extends ToolContext {
  fetchPage: PageFetcher;
  engines?: Engines;
  ai: AiProvider | undefined;
}

/**
 * A tool's answers kept per account: the same input from the same account within `ttlMs` is
 * answered from the store, not run nor charged again (core/invoke.ts); `served` makes a stored
 * result this call's answer: marked as stored (video-insight's meta.cached, cachedAt) and with
 * what this call did in place of the stored call's (nothing charged, the `elapsedMs` of its lookup).
 */
export interface ToolCache {
  ttlMs: number;
  served(result: unknown, hit: CacheHit): unknown;
}

/** What a call answered from a ToolCache knows of itself (core/tool-cache.ts). */
export interface CacheHit {
  /** when the stored answer was made (ISO 8601) */
  storedAt: string;
  /** what this call's lookup took, in whole milliseconds (the stored answer keeps its own call's time) */
  elapsedMs: number;
}

export interface ToolLimits {
  /** Wall-clock budget for one run, in milliseconds. */
  timeoutMs?: number;
}

/**
 * Where a tool's run computes. 'inline' (the default) runs it on the main thread: only for work
 * that stays small whatever the input (a calculator). 'pool' runs it on the compute pool's
 * workers (core/compute-pool.ts), with a time and memory limit and a fair share per account, so
 * no input can stall the service. A function of the validated input chooses per call, e.g.
 * small texts inline and large ones on the pool (see poolAbove).
 */
export type ComputePlacement<I = unknown> = 'inline' | 'pool' | ((input: I) => 'inline' | 'pool');

/** Characters of text a tool of linear cost handles inline: well under a millisecond of work. */
export const INLINE_TEXT_BUDGET = 16_384;

/**
 * Inputs whose strings (top-level fields and lists of strings) hold more than `chars` characters
 * go to the pool; smaller ones run inline, where their cost is bounded by `chars`.
 */
export function poolAbove(chars: number = INLINE_TEXT_BUDGET): (input: unknown) => 'inline' | 'pool' {
  return (input) => (textLength(input, chars) > chars ? 'pool' : 'inline');
}

/** The characters in an input's strings, counted up to just past `stopAfter` (no more is needed). */
function textLength(input: unknown, stopAfter: number): number {
  if (input === null || typeof input !== 'object') return typeof input === 'string' ? input.length : 0;
  let total = 0;
  for (const value of Object.values(input)) {
    if (typeof value === 'string') total += value.length;
    else if (Array.isArray(value)) for (const item of value) total += typeof item === 'string' ? item.length : 0;
    if (total > stopAfter) break;
  }
  return total;
}

/** Where this call of `tool` computes. */
export function placementOf(tool: AnyTool, input: unknown): 'inline' | 'pool' {
  const compute = tool.compute as ComputePlacement | undefined;
  return compute === undefined ? 'inline' : typeof compute === 'function' ? compute(input) : compute;
}

export interface ToolSpec<I extends z.ZodType, O extends z.ZodType> {
  family: string;
  slug: string;
  title: string;
  description: string;
  aliases?: readonly string[];
  method?: HttpMethod;
  /** Credits charged per successful call: an integer from 1 to 10. */
  credits: number;
  input: I;
  output: O;
  examples: readonly ToolExample<z.input<I>, z.output<O>>[];
  limits?: ToolLimits;
  /** Offered on the website only: not listed or callable over MCP (false by default). */
  websiteOnly?: boolean;
  /** See ComputePlacement (default 'inline'). */
  compute?: ComputePlacement<z.output<I>>;
  /** 'ai': run gets an AiToolContext (the fetcher, the engines, the model provider). */
  uses?: 'ai';
  /** See ToolCache. */
  cache?: ToolCache;
  /**
   * Credits by the work done: `credits` is charged up front (the most a call costs) and the
   * difference to this (1 to `credits`) is given back once the call succeeded.
   */
  creditsFor?: (result: z.output<O>) => number;
  /** See ErrorBody (default 'envelope'). */
  errorBody?: ErrorBody;
  run(input: z.output<I>, ctx: ToolContext): Promise<z.output<O>> | z.output<O>;
}

/**
 * A file tool (a conversion) as data: it takes one upload in `upload.field`, options in `input`
 * (multipart fields or query parameters), and returns a FileArtifact. Its examples name a sample
 * text; the examples-as-tests suite builds a source file of the accepted kind holding that text,
 * converts it, and checks the result holds `expect.contains`.
 */
export interface FileToolExample<I> {
  title: string;
  input: I;
  sampleText: string;
  expect: {
    mimeType: string;
    extension: string;
    contains: readonly string[];
    /**
     * Facts of the result for families whose results are not text (an image's format, size and
     * sampled colour; a JSON answer's exact value), checked by that family's examples suite.
     */
    facts?: Readonly<Record<string, unknown>>;
  };
  /** How that family's examples suite builds the source when a sample text is not enough (e.g. an image's size and colour). */
  source?: Readonly<Record<string, unknown>>;
}

/**
 * How a file tool answers. 'link' (the default): run returns a FileArtifact, stored behind a
 * signed link (the FileResult). 'json' and 'text': run returns the answer itself, which goes in
 * the body (the spec's exceptions: convertors/image-metadata and csv-2-json answer JSON,
 * convertors/to-base64 plain text); nothing is stored.
 */
export type FileAnswer = 'link' | 'json' | 'text';

/**
 * The body of a failed call over REST: the standard error envelope, or the spec's shorter body
 * for convertors/to-jpg, `{ status: <HTTP status>, message }`. 'insight' is the spec's
 * video-insight envelope, for its successes too: `result` the model's text (run returns
 * `{ text, meta }`), `meta`, and `retryAfterSeconds` on every answer (0 when there is nothing to wait for).
 */
export type ErrorBody = 'envelope' | 'status-message' | 'insight';

export interface FileToolContext<E = unknown> extends ToolContext {
  upload: UploadedFile;
  /** A private folder for this call, removed afterwards. */
  workDir: string;
  engines: E;
}

export interface FileToolSpec<I extends z.ZodType, N extends EngineName = never> {
  family: string;
  slug: string;
  title: string;
  description: string;
  aliases?: readonly string[];
  credits: number;
  input: I;
  /** alsoAccepts: other field names taken for the file (the image convertors take the spec's "image" and "file") */
  upload: { field: string; accept: readonly string[]; alsoAccepts?: readonly string[] };
  /** For conversions: source and target format, from which supported-conversions maps are derived. */
  conversion?: { from: string; to: string };
  examples: readonly FileToolExample<z.input<I>>[];
  limits?: ToolLimits;
  /**
   * The engines run uses (engines/engine-registry.ts): ctx.engines has them, typed; when one is
   * not installed the call answers 503 engine_unavailable before anything is charged.
   */
  engines?: readonly N[];
  /** See FileAnswer; with 'json' or 'text', `output` is the answer's schema (default: any JSON, or a string). */
  answer?: FileAnswer;
  output?: z.ZodType;
  /** See ErrorBody (default 'envelope'). */
  errorBody?: ErrorBody;
  /**
   * 'pool': run computes on the compute pool's workers (see ComputePlacement), given the upload's
   * path and the work folder (the file stays on disk). A pooled tool uses no engine.
   */
  compute?: 'inline' | 'pool';
  run(input: z.output<I>, ctx: FileToolContext<EngineView<N>>): Promise<FileArtifact | unknown>;
}

const TOOL_BRAND: unique symbol = Symbol.for('tool-service.tool');

export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType>
  extends ToolSpec<I, O> {
  readonly [TOOL_BRAND]: true;
  readonly operationId: string;
  readonly path: string;
  readonly method: HttpMethod;
  readonly aliases: readonly string[];
  /** json: fields in, result out; file: an upload in, a stored file out; url: reads the web through the fetcher (define-url-tool.ts) */
  readonly kind: 'json' | 'file' | 'url';
  /** Set on file tools: the multipart field and the accepted content kinds. */
  readonly upload?: { field: string; accept: readonly string[]; alsoAccepts?: readonly string[] };
  readonly conversion?: { from: string; to: string };
  /** Set on file tools: 'link' stores run's FileArtifact; 'json' and 'text' answer run's value in the body (see FileAnswer). */
  readonly answer?: FileAnswer;
  /** REST's body for a failure (see ErrorBody); undefined is the envelope. */
  readonly errorBody?: ErrorBody;
  /** Set on file tools: the engines checked before the charge (see FileToolSpec.engines). */
  readonly engines?: readonly EngineName[];
  readonly fileExamples?: readonly FileToolExample<unknown>[];
  /** Set on URL tools: examples as pages to serve and rules to see fire or pass. */
  readonly urlExamples?: readonly UrlToolExample<unknown>[];
  /** Set on URL tools: the result as text/markdown (REST `format=markdown`). */
  readonly markdown?: MarkdownRenderer;
  /**
   * Set on URL tools whose whole report comes from the page's HTML: the analyzers that produce
   * it, so a playbook can judge HTML an agent passes (input.html) with no fetch.
   */
  readonly htmlAnalyzers?: readonly Analyzer[];
}

// Any tool, whatever its schemas: the catalog, surfaces and tests work on this.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any>;

const SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function toOperationId(family: string, slug: string): string {
  return `${family}_${slug}`.replace(/-/g, '_');
}

function checkIdentity(spec: { family: string; slug: string; credits: number }): void {
  if (!SEGMENT.test(spec.family) || !SEGMENT.test(spec.slug)) {
    throw new Error(`tool ${spec.family}/${spec.slug}: family and slug must be kebab-case`);
  }
  if (!Number.isInteger(spec.credits) || spec.credits < 1 || spec.credits > 10) {
    throw new Error(`tool ${spec.family}/${spec.slug}: credits must be an integer from 1 to 10`);
  }
}

/**
 * A tool's fields are exactly those of its schema: an unknown field is a 400 naming it, not
 * silently dropped (a misspelt optional field would otherwise fall back to its default unseen).
 * A schema that says what to do with extra keys (loose or strict) is kept as it is.
 */
function rejectUnknownFields<I extends z.ZodType>(input: I): I {
  return input instanceof z.ZodObject && input._zod.def.catchall === undefined ? (input.strict() as z.ZodType as I) : input;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(spec: ToolSpec<I, O>): ToolDefinition<I, O> {
  checkIdentity(spec);
  return {
    ...spec,
    input: rejectUnknownFields(spec.input),
    [TOOL_BRAND]: true,
    kind: 'json',
    operationId: toOperationId(spec.family, spec.slug),
    path: `/api/v1/${spec.family}/${spec.slug}`,
    method: spec.method ?? 'POST',
    aliases: spec.aliases ?? [],
  };
}

export function defineFileTool<I extends z.ZodType, N extends EngineName = never>(spec: FileToolSpec<I, N>): ToolDefinition<I, typeof fileResultSchema> {
  checkIdentity(spec);
  // Engines live in the main process; a pool worker has none to hand over.
  if (spec.compute === 'pool' && (spec.engines?.length ?? 0) > 0) throw new Error(`tool ${spec.family}/${spec.slug}: a tool computing on the pool uses no engine`);
  const { examples, run, ...rest } = spec;
  return {
    ...rest,
    input: rejectUnknownFields(spec.input),
    [TOOL_BRAND]: true,
    kind: 'file',
    operationId: toOperationId(spec.family, spec.slug),
    path: `/api/v1/${spec.family}/${spec.slug}`,
    method: 'POST',
    aliases: spec.aliases ?? [],
    // A tool answering in the body declares its answer's schema; a link answer is the FileResult.
    output: (spec.answer === 'json' || spec.answer === 'text' ? (spec.output ?? (spec.answer === 'text' ? z.string() : z.unknown())) : fileResultSchema) as typeof fileResultSchema,
    // JSON examples do not apply: file examples are checked by converting a generated sample.
    examples: [],
    fileExamples: examples as readonly FileToolExample<unknown>[],
    // The platform calls run with a FileToolContext and turns the artifact into a FileResult.
    run: run as unknown as ToolSpec<I, typeof fileResultSchema>['run'],
  };
}

export function isTool(value: unknown): value is AnyTool {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_BRAND] === true;
}
