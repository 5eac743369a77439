// The run step of the invoke path (core/invoke.ts), once a call is admitted and charged: the
// tool's context, its time budget, the compute pool, and a file tool's safety check and stored
// result. It lives apart from the Invoker because none of it touches the account's standing
// (limits, credits, idempotency); the Invoker builds one at its construction and calls it per
// call with what it needs as arguments, so the hot path allocates nothing more for it.
import { toolModule } from './catalog.ts';
import type { ComputePool } from './compute-pool.ts';
import { placementOf, type AiToolContext, type AnyTool, type FileArtifact, type FileToolContext, type ToolContext, type UploadedFile } from './define-tool.ts';
import type { FilePipeline } from '../files/file-pipeline.ts';
import { ServiceError } from './errors.ts';
import type { EgressFetcher } from '../analysis/fetch-supervisor.ts';
import type { PageMemo } from '../analysis/page-memo.ts';
import type { UrlToolContext } from './define-url-tool.ts';
import type { Engines } from '../engines/index.ts';
import type { AiProvider } from '../ai/providers.ts';
import type { InvokeRequest } from './invoke.ts';

/** What running a tool needs of the Invoker's deps (InvokerDeps holds them all). */
export interface ToolRunnerDeps {
  toolTimeoutMs: number;
  files?: FilePipeline;
  engines?: Engines;
  fetcher?: EgressFetcher;
  compute?: ComputePool;
  ai?: AiProvider | undefined;
}

/** The file pipeline, which only file tools need: a bare invoker in a test may have none. */
export function requireFiles(files: FilePipeline | undefined): FilePipeline {
  if (!files) throw new Error('file tools need the file pipeline');
  return files;
}

export class ToolRunner {
  readonly #deps: ToolRunnerDeps;

  constructor(deps: ToolRunnerDeps) {
    this.#deps = deps;
  }

  /**
   * Runs the tool. A synchronous tool's result comes back as it is, without a promise: it has
   * finished already, and no timer could have interrupted it (its input bounds are what keep it
   * short). Only work that awaits gets a time budget.
   */
  run(tool: AnyTool, input: unknown, req: InvokeRequest, accountId: string, warnings: string[], upload?: UploadedFile, workDir?: string, pooled = false): unknown {
    const controller = new AbortController();
    const ctx: ToolContext = { requestId: req.requestId, log: req.log, signal: controller.signal, warn: (m) => warnings.push(m) };
    let pending: Promise<unknown>;
    if (tool.kind === 'url') {
      pending = Promise.resolve(tool.run(input, this.#urlContext(ctx, accountId, req.pages)));
    } else if (tool.uses === 'ai') {
      const aiContext: AiToolContext = { ...this.#urlContext(ctx, accountId, req.pages), ai: this.#deps.ai };
      pending = Promise.resolve(tool.run(input, aiContext));
    } else if (tool.kind === 'file') {
      if (!upload || workDir === undefined) throw new Error('file tool without an upload');
      pending = this.#runFileTool(tool, input, { ...ctx, upload, workDir, engines: this.#deps.engines }, accountId, pooled ? warnings : undefined, req.keepResultAt);
    } else if (pooled) {
      pending = this.#onPool(tool, input, ctx, warnings);
    } else {
      const result: unknown = tool.run(input, ctx);
      if (!(result instanceof Promise)) return result;
      pending = result;
    }
    return this.#withTimeout(tool, pending, controller, req);
  }

  /** Whether this call computes on the pool: the tool asks for it (for this input) and there is a pool. */
  pooled(tool: AnyTool, input: unknown): boolean {
    // A tool without `compute` (a calculator) is decided on its first test: the hot path pays nothing.
    return tool.compute !== undefined && this.#deps.compute !== undefined && placementOf(tool, input) === 'pool' && toolModule(tool) !== undefined;
  }

  async #withTimeout(tool: AnyTool, pending: Promise<unknown>, controller: AbortController, req: InvokeRequest): Promise<unknown> {
    const timeoutMs = tool.limits?.timeoutMs ?? this.#deps.toolTimeoutMs;
    const onCallerGone = () => controller.abort(new ServiceError(499, 'client_closed', 'The caller closed the request'));
    req.signal?.addEventListener('abort', onCallerGone, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new ServiceError(504, 'tool_timeout', `${tool.operationId} did not finish within ${timeoutMs} ms`);
        controller.abort(err);
        reject(err);
      }, timeoutMs);
    });
    try {
      return await Promise.race([pending, timeout]);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerGone);
    }
  }

  /**
   * A URL tool's fetches run in its account's fetcher slots and end with the call. The page it
   * analyses comes from the job's pages when the call is a job's step (InvokeRequest.pages).
   */
  #urlContext(ctx: ToolContext, accountId: string, pages: PageMemo | undefined): UrlToolContext {
    const fetcher = this.#deps.fetcher;
    if (!fetcher) throw new Error('URL tools need the egress-safe fetcher');
    const own = { account: accountId, signal: ctx.signal, ...(pages === undefined ? {} : { memo: pages }) };
    return {
      ...ctx,
      fetchPage: (url, options = {}) => fetcher.fetch(url, { ...options, ...own }),
      withPage: (url, use, options = {}) => fetcher.fetchAndUse(url, use, { ...options, ...own }),
      ...(this.#deps.engines ? { engines: this.#deps.engines } : {}),
    };
  }

  /**
   * Runs the tool's own run on a compute worker; its warnings join the call's, and its log lines
   * (bare messages) go to the request's log. The call's signal (caller gone, time budget over)
   * ends the job. A file tool's upload and work folder cross as paths.
   */
  async #onPool(tool: AnyTool, input: unknown, ctx: ToolContext, warnings: string[], file?: { upload: UploadedFile; workDir: string }): Promise<unknown> {
    const compute = this.#deps.compute!;
    const job = { operationId: tool.operationId, module: toolModule(tool)!, input, requestId: ctx.requestId, ...(file ? { file } : {}) };
    const done = await compute.run(job, ctx.signal);
    warnings.push(...done.warnings);
    for (const [level, message] of done.logs) ctx.log[level]({ operationId: tool.operationId }, message);
    return done.result;
  }

  async #runFileTool(tool: AnyTool, input: unknown, ctx: FileToolContext, accountId: string, poolWarnings?: string[], keepResultAt?: string): Promise<unknown> {
    const files = requireFiles(this.#deps.files);
    await files.assertSafe(ctx.upload);
    const produced = poolWarnings ? await this.#onPool(tool, input, ctx, poolWarnings, { upload: ctx.upload, workDir: ctx.workDir }) : await tool.run(input, ctx);
    // A tool that answers in the body (FileAnswer 'json' or 'text') stores nothing.
    if (tool.answer === 'json' || tool.answer === 'text') return produced;
    return files.store(produced as FileArtifact, accountId, keepResultAt);
  }
}
