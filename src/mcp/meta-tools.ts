// The MCP meta-tools of part 1: discover_tools and get_tool_schema (free: the catalog, searched and
// read), and invoke_tool (billed: one REST operation through core/invoke, the same charge, limits
// and refunds as REST). A failed call is a tool result with isError and the code, never a protocol
// error: the agent reads why and what to do. Tools never see keys; the caller comes from the HTTP
// layer, authenticated once per request, and is read from ctx when a tool is called (call-scope.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { configOnce } from './tool-config-cache.ts';
import { errorResult, result, sentWhole } from './tool-result.ts';
import { fileSourceSchema, toFileSource } from './file-source.ts';
import type { FilePipeline } from '../files/file-pipeline.ts';
import type { FileSource } from '../core/file-sources.ts';
import { isServiceError } from '../core/errors.ts';
import type { Caller } from '../accounts/account-store.ts';
import type { Catalog } from '../core/catalog.ts';
import type { AnyTool } from '../core/define-tool.ts';
import type { Invoker } from '../core/invoke.ts';
import { failure, type Outcome } from '../core/outcome.ts';
import { RESPONSE_MODES, shapeResult, type ResponseMode } from '../runs/response-mode.ts';
import { registerRunTools, type McpRunServices } from './run-tools.ts';
import { searchTools } from './tool-search.ts';
import { progressNotifier } from './progress-notifier.ts';

export interface MetaToolContext {
  caller: Caller;
  catalog: Catalog;
  invoker: Invoker;
  log: FastifyBaseLogger;
  requestId: string;
  /** async runs, get_run and fetch_payload, payloads for dataRef and oversize results */
  runs?: McpRunServices | undefined;
  /** work folders for file tools' calls (their file comes as base64, URL or fileId); without it file tools are not MCP-callable */
  files?: { pipeline: FilePipeline } | undefined;
  /** how often a call still running reports progress to a client that asked (MCP_PROGRESS_INTERVAL_MS) */
  progressIntervalMs?: number | undefined;
}

/** Why a catalog tool cannot be called over MCP, or null when it can. */
export function notCallableReason(tool: AnyTool, filesOverMcp: boolean): string | null {
  if (tool.websiteOnly) return 'This tool is offered on the website only.';
  if (tool.kind === 'file' && !filesOverMcp) return `File tools take an upload: call POST ${tool.path} over REST with the file as multipart/form-data (field "${tool.upload?.field ?? 'file'}").`;
  return null;
}

/** Close operationIds, for a name an agent misspelt. */
function suggestions(catalog: Catalog, operationId: string): string[] {
  return searchTools(catalog.tools, { query: operationId.replace(/_/g, ' '), pageSize: 3 }).tools.map((t) => t.operationId);
}

const executionSchema = z.object({
  runId: z.string().nullable().describe('The run, when the call was submitted as one (async)'),
  intentId: z.string().describe('Names this call in logs and in the webhook'),
  intentType: z.string(),
  idempotencyKey: z.string().nullable(),
  projectScope: z.string().nullable(),
});

const invokeOutput = {
  status: z.enum(['ok', 'error', 'accepted']).describe('accepted: an async run was queued; poll get_run with runId'),
  operationId: z.string(),
  runId: z.string().optional().describe('The run to poll with get_run (async: true)'),
  result: z.unknown().optional().describe("The operation's result, as REST's envelope carries it (absent when sent by dataRefId)"),
  dataRefId: z.string().optional().describe('The stored result, for fetch_payload (responseMode dataRef, or a result too large to send whole)'),
  summary: z.string().optional().describe("One line on the stored result's fields"),
  truncated: z.boolean().optional().describe('true when the result was over the size bound and only `preview` is sent'),
  preview: z.string().optional().describe('The first characters of the JSON of a result too large to send whole'),
  payloadChars: z.number().int().optional(),
  payloadExpiresAt: z.string().optional(),
  notes: z.array(z.string()).optional(),
  warnings: z.array(z.string()).optional(),
  credits: z.object({ charged: z.number().int(), remaining: z.number().int() }).optional(),
  error: z.string().optional().describe('The error code, as REST names it (quota_exhausted, rate_limited, validation_error...)'),
  message: z.string().optional(),
  detail: z.string().optional(),
  stage: z.string().optional().describe('Where the call stopped: resolve, authorize, rate, input, quota or run'),
  retryAfterSeconds: z.number().optional().describe('Present when retrying later can succeed'),
  execution: executionSchema,
};

/** The result fields of a success: the result itself, or its reference (see runs/response-mode.ts). */
type ResultFields = Record<string, unknown>;

export function outcomeResult(operationId: string, outcome: Outcome, execution: z.infer<typeof executionSchema>, shaped?: ResultFields): CallToolResult {
  const credits = outcome.meter ? { charged: outcome.meter.charged, remaining: outcome.meter.creditsRemaining } : undefined;
  if (outcome.ok) return result({ status: 'ok', operationId, ...(shaped ?? { result: outcome.result }), warnings: outcome.warnings, ...(credits ? { credits } : {}), execution });
  const { error } = outcome;
  return result(
    {
      status: 'error',
      operationId,
      error: error.error,
      message: error.message,
      detail: error.detail,
      stage: outcome.stage,
      ...(outcome.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: outcome.retryAfterSeconds }),
      ...(credits ? { credits } : {}),
      ...(Object.keys(error.extra).length > 0 ? { details: error.extra } : {}),
      execution,
    },
    true,
  );
}

export function registerMetaTools(server: McpServer, ctx: MetaToolContext): void {
  const { catalog, invoker } = ctx;
  const families = catalog.families();

  server.registerTool(
    'discover_tools',
    configOnce(catalog, 'discover_tools', () => ({
      title: 'Discover tools',
      description:
        'Search the catalog of operations by a few words (what you want done, e.g. "pdf to word", "security headers", "emi loan"), ' +
        'optionally within one family. Answers a ranked, paged list of operationIds with a one-line summary and the credits each ' +
        'costs. Free. Next: get_tool_schema for the one you want, then invoke_tool.',
      inputSchema: {
        query: z.string().max(200).optional().describe('Words describing the task; leave out to list everything'),
        family: z.enum(families as [string, ...string[]]).optional().describe('Only tools of this family'),
        page: z.number().int().min(1).max(1000).optional().describe('Page number, from 1'),
        pageSize: z.number().int().min(1).max(50).optional().describe('Results per page (default 10, at most 50)'),
      },
      outputSchema: {
        tools: z.array(z.object({ operationId: z.string(), family: z.string(), title: z.string(), summary: z.string(), credits: z.number(), kind: z.string(), method: z.string() })),
        total: z.number().int(),
        page: z.number().int(),
        pageSize: z.number().int(),
        nextPage: z.number().int().nullable(),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    (args) => {
      const page = searchTools(catalog.tools.filter((t) => !t.websiteOnly), args);
      return result(page as unknown as Record<string, unknown>);
    },
  );

  server.registerTool(
    'get_tool_schema',
    configOnce(catalog, 'get_tool_schema', () => ({
      title: 'Get a tool schema',
      description:
        "One operation's input and output JSON Schema, its credits, examples, and whether it can be called over MCP (and if not, how " +
        'to call it). Free. Call it before invoke_tool to build a valid input.',
      inputSchema: { operationId: z.string().min(1).max(200).describe('The operationId, as discover_tools lists it (e.g. calculators_emi_calculator)') },
      outputSchema: {
        operationId: z.string(),
        title: z.string(),
        description: z.string(),
        family: z.string(),
        credits: z.number(),
        kind: z.string(),
        inputSchema: z.record(z.string(), z.unknown()),
        outputSchema: z.record(z.string(), z.unknown()),
        examples: z.array(z.object({ title: z.string(), input: z.unknown() })),
        mcpCallable: z.boolean(),
        notCallableReason: z.string().nullable(),
        fileInput: z.string().optional().describe('For file tools: how to give the file'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    ({ operationId }) => {
      const tool = catalog.get(operationId);
      if (!tool || tool.websiteOnly) return errorResult('unknown_tool', `No tool with operationId ${operationId}`, { suggestions: suggestions(catalog, operationId) });
      const reason = notCallableReason(tool, ctx.files !== undefined);
      return result({
        operationId: tool.operationId,
        title: tool.title,
        description: tool.description,
        family: tool.family,
        credits: tool.credits,
        kind: tool.kind,
        inputSchema: z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
        outputSchema: z.toJSONSchema(tool.output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>,
        examples: [...tool.examples, ...(tool.urlExamples ?? [])].map((e) => ({ title: e.title, input: e.input })),
        mcpCallable: reason === null,
        notCallableReason: reason,
        ...(tool.kind === 'file' ? { fileInput: `Give the file in invoke_tool's \`file\`: {base64, fileName}, {url} or {fileId} (an earlier result of yours), one of ${tool.upload?.accept.join(', ') ?? 'the accepted kinds'}; the result is a downloadUrl.` } : {}),
      });
    },
  );

  server.registerTool(
    'invoke_tool',
    configOnce(catalog, 'invoke_tool', () => ({
      title: 'Invoke one operation',
      description:
        'Call one catalog operation by operationId with its input (the fields its schema names, as a JSON object). Billed: it costs ' +
        'exactly what the same REST call costs, from the same monthly credits, and failures the service caused are refunded. A ' +
        'failure is a result with isError: read `error` (quota_exhausted: no retry until the quota resets; rate_limited: retry after ' +
        '`retryAfterSeconds`; validation_error: fix the fields named in `details.issues`). Pass an idempotencyKey to make a retry ' +
        'replay the first answer instead of charging again. async: true checks the call now and answers {status: "accepted", ' +
        'runId} at once; the operation runs in the background: poll get_run with the runId (the account\'s webhooks get ' +
        'mcp.job.finished). responseMode: compact (default) and full send the result (they differ for workflows only); dataRef ' +
        'stores it and sends a dataRefId and a summary for fetch_payload. A result over about 25,000 tokens is always sent as a ' +
        'preview with a dataRefId.',
      inputSchema: {
        operationId: z.string().min(1).max(200).describe('The operation to call (see discover_tools)'),
        input: z.record(z.string(), z.unknown()).default({}).describe("The operation's fields (see get_tool_schema)"),
        idempotencyKey: z.string().min(1).max(255).optional().describe('The same key with the same input replays the first answer, never charging twice'),
        async: z.boolean().default(false).describe('true: answer {status: "accepted", runId} at once and run in the background; read the outcome with get_run'),
        file: fileSourceSchema.optional().describe("File tools only: the file, as {base64, fileName} (within the upload size limit), {url} (fetched by the service, public addresses only) or {fileId} (an earlier result of yours)"),
        responseMode: z.enum(RESPONSE_MODES).default('compact').describe('compact (default) or full: the result itself; dataRef: a dataRefId and a summary, the result kept for fetch_payload'),
      },
      outputSchema: invokeOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    })),
    async ({ operationId, input, idempotencyKey, async: runAsync, responseMode, file }, extra) => {
      const execution = { runId: null, intentId: ctx.requestId, intentType: 'invoke_tool', idempotencyKey: idempotencyKey ?? null, projectScope: null };
      const tool = catalog.get(operationId);
      if (!tool || tool.websiteOnly) {
        return errorResult('unknown_tool', `No tool with operationId ${operationId}; search with discover_tools`, { operationId, suggestions: suggestions(catalog, operationId), execution });
      }
      const reason = notCallableReason(tool, ctx.files !== undefined);
      if (reason !== null) return errorResult('not_callable_over_mcp', reason, { operationId, execution });
      if (tool.kind === 'file' && file === undefined) {
        return errorResult('file_required', `${operationId} converts a file: give it in \`file\` as {base64, fileName}, {url} or {fileId}`, { operationId, accept: tool.upload?.accept ?? [], execution });
      }
      let source: FileSource | undefined;
      try {
        source = tool.kind === 'file' && file !== undefined ? toFileSource(file) : undefined;
      } catch (err) {
        if (!isServiceError(err)) throw err;
        return outcomeResult(operationId, failure('input', err), execution);
      }
      const call = { caller: ctx.caller, operationId, input, idempotencyKey, requestId: ctx.requestId, log: ctx.log, file: source };
      if (runAsync) {
        if (!ctx.runs) return errorResult('async_unavailable', 'Async runs are not available on this server; call without async', { operationId, execution });
        const submitted = await ctx.runs.executor.submit(call);
        if (!submitted.accepted) return outcomeResult(operationId, submitted.refusal, execution);
        return result({ status: 'accepted', operationId, runId: submitted.runId, execution: { ...execution, runId: submitted.runId } });
      }
      // Progress for clients that asked for it (a progressToken): one at the start, one every
      // progressIntervalMs while the call runs (a video read by a model takes minutes; clients
      // give up after 60 s without news), and one at the end.
      const progress = progressNotifier(extra, ctx.log);
      progress?.report(0, 1, `Running ${operationId}`);
      const stopHeartbeat = progress?.heartbeat(ctx.progressIntervalMs ?? 10_000, (ms) => `Running ${operationId} (${Math.round(ms / 1000)} s)`);
      // A file tool's call owns a work folder for as long as it runs; a sync call ends with this request.
      const pipeline = tool.kind === 'file' ? ctx.files?.pipeline : undefined;
      const workDir = pipeline ? await pipeline.createWorkDir() : undefined;
      let outcome: Outcome;
      try {
        outcome = await invoker.invoke({ ...call, workDir, signal: extra.signal });
      } finally {
        stopHeartbeat?.();
        if (pipeline && workDir) await pipeline.removeWorkDir(workDir);
      }
      // The answer with the result whole first; shaped only when it cannot go as it is (tool-result.ts).
      const whole = outcomeResult(operationId, outcome, execution);
      const shaped = outcome.ok && ctx.runs && !sentWhole(whole, responseMode as ResponseMode)
        ? await shapeResult(ctx.runs.payloads, ctx.caller.account.id, outcome.result, responseMode as ResponseMode)
        : undefined;
      progress?.finish(outcome.ok ? `${operationId} finished` : `${operationId} failed: ${outcome.error.error}`);
      await progress?.flush();
      return shaped === undefined ? whole : outcomeResult(operationId, outcome, execution, shaped as Record<string, unknown>);
    },
  );

  // The caller is read when a run tool is called, as every tool reads it (call-scope.ts).
  if (ctx.runs) registerRunTools(server, { get caller() { return ctx.caller; }, services: ctx.runs });
}
