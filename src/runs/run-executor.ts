// Runs invoke_tool calls submitted with async: true in the background of this process: a queue
// with bounded concurrency and a bounded backlog (a full backlog refuses the submit with
// runs_busy, nothing charged). A submit is preflighted first, so a call that would be refused is
// refused at once, as a synchronous call would be; an accepted one is stored `accepted`, runs
// through the same invoke path (charge, limits, refunds) with its own AbortController (it outlives
// the HTTP request that submitted it), and its outcome is stored on the run. When it finishes the
// account's webhooks get `mcp.job.finished`; the 'finished' event tells tests the same.
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../accounts/account-store.ts';
import type { LeaseHolder } from '../accounts/lease-holder.ts';
import { ServiceError } from '../core/errors.ts';
import type { Invoker, InvokeRequest } from '../core/invoke.ts';
import { failure, storeOutcome, type InvokeFailure, type Outcome } from '../core/outcome.ts';
import type { WebhookDispatcher } from './webhook-delivery.ts';
import type { FilePipeline } from '../files/file-pipeline.ts';
import { newRunId, type Run, type RunStore } from './run-store.ts';

export interface RunSubmit {
  caller: Caller;
  operationId: string;
  input: unknown;
  idempotencyKey?: string | undefined;
  requestId: string;
  log: FastifyBaseLogger;
  /** a file tool's file, read into the run's own work folder when the run starts */
  file?: InvokeRequest['file'];
}

export type SubmitAnswer = { accepted: true; runId: string; createdAt: string } | { accepted: false; refusal: InvokeFailure };

export interface RunExecutorOptions {
  invoker: Invoker;
  /** each file tool run owns a work folder from its start to its end (the submitting request is gone by then) */
  files?: Pick<FilePipeline, 'createWorkDir' | 'removeWorkDir'>;
  runs: RunStore;
  webhooks: Pick<WebhookDispatcher, 'emit'>;
  holder: LeaseHolder;
  log: FastifyBaseLogger;
  /** runs executing at once (default 4) */
  concurrency?: number;
  /** runs waiting for a slot (default 100) */
  maxQueued?: number;
}

interface Job extends RunSubmit {
  runId: string;
  createdAt: string;
  startedAt: Date | null;
  controller: AbortController;
}

export class RunExecutor {
  /** 'finished' (run: Run) once a run's end is stored and its webhook emitted */
  readonly events = new EventEmitter();
  readonly #options: Required<Omit<RunExecutorOptions, 'holder' | 'log' | 'files'>> & Pick<RunExecutorOptions, 'holder' | 'log' | 'files'>;
  readonly #queue: Job[] = [];
  readonly #running = new Map<string, { job: Job; done: Promise<void> }>();
  #closed = false;

  constructor(options: RunExecutorOptions) {
    this.#options = { concurrency: 4, maxQueued: 100, ...options };
  }

  /** Preflights the call and, when it would be admitted, stores the run and queues it. */
  async submit(call: RunSubmit): Promise<SubmitAnswer> {
    if (this.#closed) return { accepted: false, refusal: failure('run', new ServiceError(503, 'service_stopping', 'The service is shutting down and takes no new runs', { detail: 'Submit the run again in a moment' })) };
    // Refused only when every slot is taken and the backlog is full.
    if (this.#running.size >= this.#options.concurrency && this.#queue.length >= this.#options.maxQueued) {
      return {
        accepted: false,
        refusal: failure(
          'run',
          new ServiceError(429, 'runs_busy', `${this.#options.maxQueued} runs are already waiting in this process`, {
            detail: 'Retry after a few seconds, or call invoke_tool without async',
            extra: { retryAfterSeconds: 5 },
          }),
        ),
      };
    }
    const refusal = await this.#options.invoker.preflight(call);
    if (refusal) return { accepted: false, refusal };
    const runId = newRunId();
    const run = await this.#options.runs.create({ runId, accountId: call.caller.account.id, kind: 'invoke_tool', operationId: call.operationId, holder: this.#options.holder });
    this.#queue.push({ ...call, runId, createdAt: run.createdAt, startedAt: null, log: call.log.child({ runId }), controller: new AbortController() });
    this.#pump();
    return { accepted: true, runId, createdAt: run.createdAt };
  }

  get stats(): { running: number; queued: number } {
    return { running: this.#running.size, queued: this.#queue.length };
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < this.#options.concurrency) {
      const job = this.#queue.shift();
      if (!job) return;
      const done = this.#execute(job).finally(() => {
        this.#running.delete(job.runId);
        this.#pump();
      });
      this.#running.set(job.runId, { job, done });
    }
  }

  async #execute(job: Job): Promise<void> {
    const startedAt = new Date();
    job.startedAt = startedAt;
    let outcome: Outcome | undefined;
    let internal: unknown;
    let workDir: string | undefined;
    try {
      await this.#options.runs.markStarted(job.runId, startedAt);
      if (job.file) {
        if (!this.#options.files) throw new Error('file runs need the file pipeline');
        workDir = await this.#options.files.createWorkDir();
      }
      // The invoke path applies the tool's own time limit; the signal is the run's, not the request's.
      outcome = await this.#options.invoker.invoke({
        caller: job.caller,
        operationId: job.operationId,
        input: job.input,
        idempotencyKey: job.idempotencyKey,
        requestId: job.requestId,
        log: job.log,
        signal: job.controller.signal,
        file: job.file,
        workDir,
      });
    } catch (err) {
      internal = err;
      job.log.error({ err }, 'async run failed inside the service');
    } finally {
      if (workDir !== undefined) await this.#options.files?.removeWorkDir(workDir).catch((err: unknown) => job.log.warn({ err }, 'a run work folder was not removed'));
    }
    const end = outcome
      ? { status: 'completed' as const, resultStatus: outcome.ok ? 'ok' : outcome.error.error, outcome: storeOutcome(outcome), errorReason: null, credits: outcome.meter?.charged ?? 0 }
      : { status: 'error' as const, resultStatus: null, outcome: null, errorReason: `The service failed while running it: ${internal instanceof Error ? internal.message : String(internal)}`, credits: 0 };
    await this.#close(job, end);
  }

  async #close(job: Job, end: { status: 'completed' | 'error'; resultStatus: string | null; outcome: Run['outcome']; errorReason: string | null; credits: number }): Promise<void> {
    const finishedAt = new Date();
    let stored = false;
    try {
      stored = await this.#options.runs.finish(job.runId, { ...end, at: finishedAt });
    } catch (err) {
      job.log.error({ err }, 'the end of an async run could not be stored');
    }
    // A run closed already (shutdown, a sweep) announced its end then.
    if (!stored) return;
    this.announce(job.caller.account.id, {
      runId: job.runId,
      accountId: job.caller.account.id,
      kind: 'invoke_tool',
      operationId: job.operationId,
      status: end.status,
      resultStatus: end.resultStatus,
      outcome: end.outcome,
      errorReason: end.errorReason,
      credits: end.credits,
      createdAt: job.createdAt,
      startedAt: job.startedAt?.toISOString() ?? null,
      finishedAt: finishedAt.toISOString(),
    });
  }

  /** The webhook and the 'finished' event for a run that ended (here, or closed by the start-up sweep). */
  announce(accountId: string, run: Run): void {
    const finishedAt = run.finishedAt ?? new Date().toISOString();
    if (run.status !== 'accepted') {
      this.#options.webhooks.emit(accountId, {
        type: 'mcp.job.finished',
        data: {
          runId: run.runId,
          kind: run.kind,
          operationId: run.operationId ?? undefined,
          status: run.status,
          resultStatus: run.resultStatus ?? undefined,
          startedAt: run.startedAt ?? run.createdAt,
          finishedAt,
          credits: run.credits,
        },
      });
    }
    this.events.emit('finished', run);
  }

  /**
   * Shutdown: queued runs and runs in flight are closed as `error` (their webhooks go out while
   * the dispatcher still runs) and the running ones are aborted; a late finish is then ignored.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const reason = 'The service stopped before the run finished; submit it again';
    const open = [...this.#queue.splice(0), ...[...this.#running.values()].map(({ job }) => job)];
    for (const job of open) {
      await this.#close(job, { status: 'error', resultStatus: null, outcome: null, errorReason: reason, credits: 0 });
      job.controller.abort(new ServiceError(503, 'service_stopping', reason));
    }
  }
}
