import type { z } from 'zod';
import type { FastifyBaseLogger } from 'fastify';

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

export interface ToolLimits {
  /** Wall-clock budget for one run, in milliseconds. */
  timeoutMs?: number;
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
  run(input: z.output<I>, ctx: ToolContext): Promise<z.output<O>> | z.output<O>;
}

const TOOL_BRAND: unique symbol = Symbol.for('tool-service.tool');

export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType>
  extends ToolSpec<I, O> {
  readonly [TOOL_BRAND]: true;
  readonly operationId: string;
  readonly path: string;
  readonly method: HttpMethod;
  readonly aliases: readonly string[];
}

// Any tool, whatever its schemas: the catalog, surfaces and tests work on this.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any>;

const SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function toOperationId(family: string, slug: string): string {
  return `${family}_${slug}`.replace(/-/g, '_');
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(spec: ToolSpec<I, O>): ToolDefinition<I, O> {
  if (!SEGMENT.test(spec.family) || !SEGMENT.test(spec.slug)) {
    throw new Error(`tool ${spec.family}/${spec.slug}: family and slug must be kebab-case`);
  }
  if (!Number.isInteger(spec.credits) || spec.credits < 1 || spec.credits > 10) {
    throw new Error(`tool ${spec.family}/${spec.slug}: credits must be an integer from 1 to 10`);
  }
  return {
    ...spec,
    [TOOL_BRAND]: true,
    operationId: toOperationId(spec.family, spec.slug),
    path: `/api/v1/${spec.family}/${spec.slug}`,
    method: spec.method ?? 'POST',
    aliases: spec.aliases ?? [],
  };
}

export function isTool(value: unknown): value is AnyTool {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_BRAND] === true;
}
