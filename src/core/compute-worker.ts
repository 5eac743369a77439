// Runs tools on a worker thread of the compute pool (see compute-pool.ts). A job names its tool by
// operationId and the module it was discovered in; the module is imported once per worker and the
// tool's own run(input, ctx) does the work, with a context of plain values: the request id, a
// signal, warn() collected for the envelope, and a log whose lines go back to the main thread as
// bare messages (no objects, so nothing secret rides along). A file tool gets the upload's path and
// its work folder: the file stays on disk and only paths cross the thread boundary.
import { parentPort } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { loadToolModule } from './catalog.ts';
import type { AnyTool, FileToolContext, ToolContext, UploadedFile } from './define-tool.ts';
import { isServiceError } from './errors.ts';

export interface ComputeJobMessage {
  id: number;
  operationId: string;
  /** the URL of the module the tool is exported from */
  module: string;
  input: unknown;
  requestId: string;
  /** file tools: the upload (on disk) and the call's work folder */
  file?: { upload: UploadedFile; workDir: string };
}

export type LogLevel = 'info' | 'warn' | 'error';

/** A ServiceError as it crosses the thread boundary. */
export interface ComputeErrorData {
  status: number;
  error: string;
  message: string;
  detail: string;
  headers: Record<string, string>;
  extra: Record<string, unknown>;
}

export type ComputeReply =
  | { id: number; started: true }
  | { id: number; ok: true; result: unknown; warnings: string[]; logs: [LogLevel, string][] }
  | { id: number; ok: false; serviceError?: ComputeErrorData; message?: string; warnings: string[]; logs: [LogLevel, string][] };

const tools = new Map<string, Promise<AnyTool | undefined>>();

function toolFor(operationId: string, module: string): Promise<AnyTool | undefined> {
  let found = tools.get(operationId);
  if (found === undefined) {
    found = loadToolModule(module).then((list) => list.find((tool) => tool.operationId === operationId));
    tools.set(operationId, found);
  }
  return found;
}

/** A logger with the shape tools expect; it keeps only the message text of each line. */
function collectingLog(logs: [LogLevel, string][]): FastifyBaseLogger {
  const keep =
    (level: LogLevel) =>
    (...args: unknown[]): void => {
      const message = args.find((arg): arg is string => typeof arg === 'string');
      if (message !== undefined && logs.length < 100) logs.push([level, message.slice(0, 500)]);
    };
  const ignore = (): void => {};
  const log = { level: 'info', info: keep('info'), warn: keep('warn'), error: keep('error'), fatal: keep('error'), debug: ignore, trace: ignore, silent: ignore, child: () => log };
  return log as unknown as FastifyBaseLogger;
}

async function runJob(job: ComputeJobMessage): Promise<ComputeReply> {
  const warnings: string[] = [];
  const logs: [LogLevel, string][] = [];
  try {
    const tool = await toolFor(job.operationId, job.module);
    if (tool === undefined) throw new Error(`no tool ${job.operationId} in its module`);
    parentPort?.postMessage({ id: job.id, started: true } satisfies ComputeReply);
    // The pool stops a job by ending its worker, so this signal is never aborted here; a tool may still pass it on.
    const ctx: ToolContext = { requestId: job.requestId, log: collectingLog(logs), signal: new AbortController().signal, warn: (m) => warnings.push(m) };
    const fileCtx: FileToolContext | undefined = job.file ? { ...ctx, ...job.file, engines: undefined } : undefined;
    const result: unknown = await tool.run(job.input, fileCtx ?? ctx);
    return { id: job.id, ok: true, result, warnings, logs };
  } catch (error) {
    if (isServiceError(error)) {
      const { status, error: code, message, detail, headers, extra } = error;
      return { id: job.id, ok: false, serviceError: { status, error: code, message, detail, headers, extra }, warnings, logs };
    }
    return { id: job.id, ok: false, message: error instanceof Error ? error.message : String(error), warnings, logs };
  }
}

parentPort?.on('message', (job: ComputeJobMessage) => {
  void runJob(job).then((reply) => {
    try {
      parentPort?.postMessage(reply);
    } catch (error) {
      // A result that cannot be cloned (a function, a symbol) is the tool's bug, not the input's.
      parentPort?.postMessage({ id: job.id, ok: false, message: `the result could not be sent: ${(error as Error).message}`, warnings: [], logs: [] } satisfies ComputeReply);
    }
  });
});
