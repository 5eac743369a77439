// Runs invoke_tool calls submitted with async: true in the background of this process: a queue
// with bounded concurrency and a bounded backlog (a full backlog refuses the submit with
// runs_busy, nothing charged). A submit is preflighted first, so a call that would be refused is
// refused at once, as a synchronous call would be; an accepted one is stored `accepted`, runs
// through the same invoke path (charge, limits, refunds) with its own AbortController (it outlives
// the HTTP request that submitted it), and its outcome is stored on the run. When it finishes the
// account's webhooks get `mcp.job.finished`; the 'finished' event tells tests the same.
//
// The backlog is shared like the engines' (the same FairQueue): each account runs at most its
// plan's runsAtOnce (and never more than half the slots), keeps at most its plan's runsWaiting
// waiting (over every process: its open runs in the database count), and the next run to start
// comes from the account with the fewest running, then the one served least recently. An account
// that fills its own share hears runs_busy itself; the others still get in.
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../accounts/account-store.ts';
import type { LeaseHolder } from '../accounts/lease-holder.ts';
import { getPlan } from '../accounts/plans.ts';
import { ServiceError } from '../core/errors.ts';
import type { Invoker } from '../core/invoke.ts';
import { failure, storeOutcome, type InvokeFailure, type Outcome } from '../core/outcome.ts';
import type { WebhookDispatcher } from './webhook-delivery.ts';
import type { FilePipeline } from '../files/file-pipeline.ts';
import { FairQueue, type OwnerGroup, type QueuedJob } from '../engines/fair-queue.ts';
import { jobFinishedData } from './job-finished-event.ts';
import { newRunId, type Run, type RunEnd, type RunRequest, type RunStore } from './run-store.ts';
import { runsBusy, stopping, type Job, type JobSubmit, type RunSubmit, type SubmitAnswer } from './run-submit.ts';

// The submit's types live in run-submit.ts (the 400-line rule); still exported from here, as before.
export type { JobSubmit, RunSubmit, SubmitAnswer } from './run-submit.ts';

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
  /** runs waiting for a slot (default 100); one account may keep at most a quarter of them waiting */
  maxQueued?: number;
}

export class RunExecutor {
  /** 'finished' (run: Run) once a run's end is stored and its webhook emitted */
  readonly events = new EventEmitter();
  readonly #options: Required<Omit<RunExecutorOptions, 'holder' | 'log' | 'files'>> & Pick<RunExecutorOptions, 'holder' | 'log' | 'files'>;
  readonly #queue: FairQueue;
  /** the jobs waiting in #queue, by their queue entry */
  readonly #waiting = new Map<QueuedJob, Job>();
  readonly #running = new Map<string, { job: Job; done: Promise<void> }>();
  /** runs executing on their caller's own request (runInline): their rows are heartbeaten too */
  #inline = 0;
  #closed = false;

  constructor(options: RunExecutorOptions) {
    this.#options = { concurrency: 4, maxQueued: 100, ...options };
    this.#queue = new FairQueue(this.#options.maxQueued, Math.max(1, Math.floor(this.#options.maxQueued / 4)), this.#options.concurrency);
  }

  /**
   * Queues a multi-call job. Only the account's standing is checked now (each call is checked,
   * charged and refunded by the invoke path when it runs); a full backlog refuses it.
   */
  async submitJob(job: JobSubmit): Promise<SubmitAnswer> {
    const refusal = await this.#busy(job.caller);
    if (refusal) return { accepted: false, refusal };
    try {
      this.#options.invoker.authorizeAccount(job.caller);
    } catch (err) {
      if (err instanceof ServiceError) return { accepted: false, refusal: failure('authorize', err) };
      throw err;
    }
    return this.#enqueue({ caller: job.caller, operationId: job.label ?? job.kind, input: undefined, requestId: job.requestId, log: job.log, kind: job.kind, execute: job.execute, jobKey: job.idempotencyKey ?? null, goal: job.goal }, job.label, undefined);
  }

  /**
   * A job run now, on the caller's own request (sync solve_task, run_playbook, run_workflow,
   * verify_task): not queued (the request holds its connection and the job's calls meet the
   * invoke path's limits one by one), but stored as a run like an async one, so get_run serves it
   * by the runId its answer carries, and its end sends mcp.job.finished. Answers what execute
   * answered; a job that throws closes its run as `error` and the error goes on.
   */
  async runInline(job: Omit<JobSubmit, 'execute'> & { signal: AbortSignal; execute: JobSubmit['execute'] }): Promise<{ status: string } & Record<string, unknown>> {
    const runId = newRunId();
    const startedAt = new Date();
    // Stored started: it runs now, on the caller's own request.
    const run = await this.#options.runs.create({ runId, accountId: job.caller.account.id, kind: job.kind, operationId: job.label, holder: this.#options.holder, idempotencyKey: job.idempotencyKey ?? null, startedAt });
    const log = job.log.child({ runId });
    const inline: Job = {
      caller: job.caller,
      operationId: job.label ?? job.kind,
      input: undefined,
      requestId: job.requestId,
      log,
      kind: job.kind,
      runId,
      createdAt: run.createdAt,
      startedAt,
      controller: new AbortController(),
      group: this.#groupOf(job.caller),
      stored: Promise.resolve(true),
      rerunnable: false,
      goal: job.goal,
    };
    this.#inline++;
    try {
      const { result, credits, job: link } = await job.execute(job.signal, log, runId);
      await this.#close(inline, { status: result.status === 'partial' ? 'partial' : 'completed', resultStatus: result.status, outcome: { ok: true, result, warnings: [] }, errorReason: null, credits, job: link });
      return result;
    } catch (err) {
      await this.#close(inline, { status: 'error', resultStatus: null, outcome: null, errorReason: 'The service failed while running it', credits: 0 });
      throw err;
    } finally {
      this.#inline--;
    }
  }

  /** The account's line, its caps from its plan of this moment. */
  #groupOf(caller: Caller): OwnerGroup {
    const plan = getPlan(caller.account.plan);
    return this.#queue.group({ id: caller.account.id, maxJobs: plan?.runsAtOnce ?? 1, maxWaiting: plan?.runsWaiting ?? 1 });
  }

  /** True when a run of the group would start at once (a slot free and the account under its cap). */
  #startsNow(group: OwnerGroup): boolean {
    // Runs queued but not yet started (their rows are being stored) count as taking a slot, so a
    // burst of submits cannot all pass as "starts at once" past the account's share of the backlog.
    return this.#running.size + this.#queue.size < this.#options.concurrency && group.running + group.waiting.length < group.cap;
  }

  /**
   * Why a submit is refused before anything else is looked at: shutting down, the account's share
   * of the backlog full (here, or over every process: its open runs in the database), or the
   * whole backlog full. Synchronous past the count, so a burst cannot pass it together.
   */
  async #busy(caller: Caller): Promise<InvokeFailure | undefined> {
    if (this.#closed) return stopping();
    const plan = getPlan(caller.account.plan);
    const share = (plan?.runsAtOnce ?? 1) + (plan?.runsWaiting ?? 1);
    const open = await this.#options.runs.countOpen(caller.account.id);
    if (open >= share) return runsBusy(`${open} of your runs are already open (your plan allows ${share} at once, running and waiting)`);
    return this.#admission(this.#groupOf(caller));
  }

  /** The queue's own verdict for one more run of the group (synchronous: checked again right before the run is queued). */
  #admission(group: OwnerGroup): InvokeFailure | undefined {
    if (this.#closed) return stopping();
    if (this.#startsNow(group)) return undefined;
    const refusal = this.#queue.refusal(group);
    if (refusal === null) return undefined;
    this.#queue.forgetIfIdle(group);
    return refusal === 'owner_queue_full'
      ? runsBusy(`${this.#queue.waitingOf(group)} of your runs are already waiting in this process (at most ${this.#queue.ownerWaitingLimit(group)})`)
      : runsBusy(`${this.#options.maxQueued} runs are already waiting in this process`);
  }

  async #enqueue(call: RunSubmit & { kind: string; execute?: JobSubmit['execute']; jobKey?: string | null; goal?: string | undefined }, label: string | null, request: RunRequest | undefined): Promise<SubmitAnswer> {
    const group = this.#groupOf(call.caller);
    // Checked again without an await before the run takes its place: the preflight awaited.
    const refusal = this.#admission(group);
    if (refusal) return { accepted: false, refusal };
    const runId = newRunId();
    const stored = this.#options.runs.create({ runId, accountId: call.caller.account.id, kind: call.kind, operationId: label, holder: this.#options.holder, idempotencyKey: call.jobKey ?? null, request });
    const job: Job = { ...call, runId, createdAt: new Date().toISOString(), startedAt: null, log: call.log.child({ runId }), controller: new AbortController(), group, stored: stored.then(() => true, () => false), rerunnable: request !== undefined };
    this.#queueJob(job);
    let run: Run;
    try {
      run = await stored;
    } catch (err) {
      // Not stored: it never runs (if it was started meanwhile, #start sees `stored` false).
      for (const [entry, waiting] of this.#waiting) if (waiting === job && this.#queue.remove(entry)) this.#waiting.delete(entry);
      throw err;
    }
    job.createdAt = run.createdAt;
    this.#pump();
    return { accepted: true, runId, createdAt: run.createdAt };
  }

  /** Puts a job in its account's line. */
  #queueJob(job: Job): void {
    const entry: QueuedJob = {
      group: job.group,
      seq: this.#queue.nextSeq(),
      resolve: () => {
        this.#waiting.delete(entry);
        this.#start(job);
      },
      reject: () => undefined,
    };
    this.#waiting.set(entry, job);
    this.#queue.push(entry);
  }

  /**
   * Runs again a run taken over from a dead holder (see run-takeover.ts): its row exists and is
   * this holder's now. It was accepted already, so no admission check refuses it; it waits its
   * account's turn like any other. The caller is the submitting key looked up again, so the invoke
   * path authorizes, limits and charges it with the account's state of this moment.
   */
  resume(run: Run, request: RunRequest, caller: Caller, log: FastifyBaseLogger): void {
    const job: Job = {
      caller,
      operationId: request.operationId,
      input: request.input,
      idempotencyKey: request.idempotencyKey,
      requestId: request.requestId,
      log: log.child({ runId: run.runId }),
      kind: run.kind,
      runId: run.runId,
      createdAt: run.createdAt,
      startedAt: null,
      controller: new AbortController(),
      group: this.#groupOf(caller),
      stored: Promise.resolve(true),
      rerunnable: true,
    };
    this.#queueJob(job);
    this.#pump();
  }

  /** Whether runs of this holder are open here (waiting, running or inline): only then is a heartbeat written. */
  get holdsRuns(): boolean {
    return this.#running.size + this.#queue.size + this.#inline > 0;
  }

  /** Preflights the call and, when it would be admitted, stores the run and queues it. */
  async submit(call: RunSubmit): Promise<SubmitAnswer> {
    const busy = await this.#busy(call.caller);
    if (busy) return { accepted: false, refusal: busy };
    const refusal = await this.#options.invoker.preflight(call);
    if (refusal) return { accepted: false, refusal };
    // A run without a file can be run again by another node if this one dies before starting it.
    const request: RunRequest | undefined = call.file === undefined ? { keyId: call.caller.key.id, operationId: call.operationId, input: call.input, idempotencyKey: call.idempotencyKey, requestId: call.requestId } : undefined;
    return this.#enqueue({ ...call, kind: 'invoke_tool' }, call.operationId, request);
  }

  get stats(): { running: number; queued: number } {
    return { running: this.#running.size, queued: this.#queue.size };
  }

  /** Starts waiting runs while slots are free: the next account in turn, each under its cap. */
  #pump(): void {
    while (!this.#closed && this.#running.size < this.#options.concurrency) {
      // next() counts the run as running for its account; undefined when every waiting account is at its cap.
      const entry = this.#queue.next();
      if (entry === undefined) return;
      entry.resolve(0);
    }
  }

  #start(job: Job): void {
    const done = job.stored
      .then((stored) => (stored ? this.#execute(job) : undefined))
      .finally(() => {
        this.#running.delete(job.runId);
        this.#queue.finished(job.group);
        this.#pump();
      });
    this.#running.set(job.runId, { job, done });
  }

  async #execute(job: Job): Promise<void> {
    const startedAt = new Date();
    job.startedAt = startedAt;
    let outcome: Outcome | undefined;
    let internal: unknown;
    let workDir: string | undefined;
    if (job.execute) return this.#executeJob(job, job.execute, startedAt);
    try {
      if (!(await this.#markStarted(job, startedAt))) return;
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

  async #executeJob(job: Job, execute: JobSubmit['execute'], startedAt: Date): Promise<void> {
    try {
      if (!(await this.#markStarted(job, startedAt))) return;
      const { result, credits, job: link } = await execute(job.controller.signal, job.log, job.runId);
      // A partial job (some of its calls failed) is a partial run; its result says which.
      const status = result.status === 'partial' ? 'partial' : 'completed';
      await this.#close(job, { status, resultStatus: result.status, outcome: { ok: true, result, warnings: [] }, errorReason: null, credits, job: link });
    } catch (err) {
      job.log.error({ err }, 'async job failed inside the service');
      await this.#close(job, { status: 'error', resultStatus: null, outcome: null, errorReason: `The service failed while running it: ${err instanceof Error ? err.message : String(err)}`, credits: 0 });
    }
  }

  /** False when the run is no longer this holder's (taken over by another node while this one stalled): it is not run here. */
  async #markStarted(job: Job, startedAt: Date): Promise<boolean> {
    const mine = await this.#options.runs.markStarted(job.runId, this.#options.holder, startedAt);
    if (!mine) job.log.warn('a run was taken over by another node before it started here; not run here');
    return mine;
  }

  async #close(job: Job, end: Omit<RunEnd, 'at'>): Promise<void> {
    const finishedAt = new Date();
    let stored = false;
    try {
      stored = await this.#options.runs.finish(job.runId, this.#options.holder, { ...end, at: finishedAt });
    } catch (err) {
      job.log.error({ err }, 'the end of an async run could not be stored');
    }
    // A run closed already (shutdown, a sweep) announced its end then.
    if (!stored) return;
    this.announce(job.caller.account.id, {
      runId: job.runId,
      accountId: job.caller.account.id,
      kind: job.kind,
      operationId: job.operationId,
      status: end.status,
      resultStatus: end.resultStatus,
      outcome: end.outcome,
      errorReason: end.errorReason,
      credits: end.credits,
      createdAt: job.createdAt,
      startedAt: job.startedAt?.toISOString() ?? null,
      finishedAt: finishedAt.toISOString(),
      idempotencyKey: null,
      reportId: null,
      chainId: null,
      jobState: null,
    }, job.goal);
  }

  /** The webhook and the 'finished' event for a run that ended (here, or closed by the start-up sweep). */
  announce(accountId: string, run: Run, goal?: string): void {
    if (run.status !== 'accepted') this.#options.webhooks.emit(accountId, { type: 'mcp.job.finished', data: jobFinishedData({ ...run, status: run.status }, goal) });
    this.events.emit('finished', run);
  }

  /**
   * Shutdown: queued runs that can run again are given back unstarted (another node, or this one
   * after its restart, takes them); the other queued runs and the runs in flight are closed as
   * `error` (their webhooks go out while the dispatcher still runs) and the running ones are
   * aborted; a late finish is then ignored.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const reason = 'The service stopped before the run finished; submit it again';
    const drained = this.#queue.drain().flatMap((entry) => this.#waiting.get(entry) ?? []);
    this.#waiting.clear();
    const released = drained.filter((job) => job.rerunnable);
    await this.#options.runs.release(this.#options.holder, released.map((job) => job.runId)).catch((err: unknown) => this.#options.log.error({ err }, 'queued runs could not be given back'));
    if (released.length > 0) this.#options.log.info({ runs: released.length }, 'gave back the queued runs for another node (or the next start) to run');
    const waiting = drained.filter((job) => !job.rerunnable);
    const open = [...waiting, ...[...this.#running.values()].map(({ job }) => job)];
    for (const job of open) {
      await this.#close(job, { status: 'error', resultStatus: null, outcome: null, errorReason: reason, credits: 0 });
      job.controller.abort(new ServiceError(503, 'service_stopping', reason));
    }
  }
}
