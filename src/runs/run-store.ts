// Async runs in the database, scoped to their account: a run is `accepted` while it waits or
// runs, then `completed` (the job finished, whatever the tool answered: `result_status` carries
// 'ok' or the tool's error code) or `error` (it could not finish: the process died mid-run, the
// service stopped, an internal failure). Every run records the lease holder of the process
// running it and that holder's heartbeat, so any node (or the same one after a restart) can tell
// a run whose holder died and take it over: run it again when it had not started and can be
// (see RunRequest), or close it `error` (see takeOrphans).
import { randomUUID } from 'node:crypto';
import { isHolderDead, type LeaseHolder } from '../accounts/lease-holder.ts';
import type { StoredOutcome } from '../core/outcome.ts';
import type { Db } from '../db/database.ts';
import type { RunsTable } from '../db/schema.ts';

export type RunStatus = 'accepted' | 'completed' | 'partial' | 'error';

/** What a job run keeps for the verifies after it besides its outcome (job-chain.ts). */
export interface JobLink {
  reportId: string | null;
  chainId: string | null;
  /** the JobState as JSON */
  jobState: string;
}

/** How a run ended, as RunStore.finish stores it. */
export interface RunEnd {
  status: Exclude<RunStatus, 'accepted'>;
  resultStatus: string | null;
  outcome: StoredOutcome | null;
  errorReason: string | null;
  credits: number;
  at: Date;
  /** a job run's link, stored in the same statement */
  job?: JobLink | undefined;
}

export interface Run {
  runId: string;
  accountId: string;
  kind: string;
  operationId: string | null;
  status: RunStatus;
  /** 'ok' or the error code of the tool's answer; null until finished, or when it could not finish */
  resultStatus: string | null;
  outcome: StoredOutcome | null;
  errorReason: string | null;
  credits: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** jobs only: the idempotency key, the jobReport id answered, the fix loop's chain and the job state (JSON) */
  idempotencyKey: string | null;
  reportId: string | null;
  chainId: string | null;
  jobState: string | null;
}

/**
 * What an invoke_tool run needs to be run again by another holder: the key that submitted it (the
 * caller is looked up again, with its state of that moment), the call, and its Idempotency-Key.
 * File runs and jobs (closures over their request) have none: they cannot be run again.
 */
export interface RunRequest {
  keyId: string;
  operationId: string;
  input: unknown;
  idempotencyKey?: string | undefined;
  requestId: string;
}

/** A run taken over from a dead holder: run it again (`request` set, never started) or close it. */
export interface TakenRun {
  run: Run;
  request: RunRequest | null;
  deadHolder: { pid: number; host: string };
}

/** Run ids are random and carry a prefix, so a stray id in a log says what it names. */
export function newRunId(): string {
  return `run_${randomUUID().replace(/-/g, '')}`;
}

function toRun(row: RunsTable): Run {
  return {
    runId: row.id,
    accountId: row.account_id,
    kind: row.kind,
    operationId: row.operation_id,
    status: row.status as RunStatus,
    resultStatus: row.result_status,
    outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as StoredOutcome),
    errorReason: row.error_reason,
    credits: row.credits,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    idempotencyKey: row.idempotency_key ?? null,
    reportId: row.report_id ?? null,
    chainId: row.chain_id ?? null,
    jobState: row.job_state ?? null,
  };
}

/** A run with the job state of its chain's newest finished run (RunStore.getWithChainState). */
export interface RunWithChainState {
  run: Run;
  chainJobState: string | undefined;
}

/** Taken over at most this many times: a run whose every holder died is closed, not passed on forever. */
export const MAX_RUN_ATTEMPTS = 3;

/** The heartbeat of a run given back by a holder that stopped: older than any staleness limit. */
const RELEASED = new Date(0).toISOString();

export class RunStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async create(input: { runId: string; accountId: string; kind: string; operationId: string | null; holder: LeaseHolder; now?: Date; idempotencyKey?: string | null | undefined; startedAt?: Date | undefined; request?: RunRequest | undefined }): Promise<Run> {
    const createdAt = (input.now ?? new Date()).toISOString();
    const row: RunsTable = {
      id: input.runId,
      account_id: input.accountId,
      kind: input.kind,
      operation_id: input.operationId,
      status: 'accepted',
      result_status: null,
      outcome: null,
      error_reason: null,
      credits: 0,
      holder: input.holder.token,
      holder_pid: input.holder.pid,
      holder_host: input.holder.host,
      created_at: createdAt,
      started_at: input.startedAt?.toISOString() ?? null,
      finished_at: null,
      idempotency_key: input.idempotencyKey ?? null,
      report_id: null,
      chain_id: null,
      job_state: null,
      heartbeat_at: createdAt,
      request: input.request === undefined ? null : JSON.stringify(input.request),
      attempts: 1,
    };
    await this.#db.insertInto('runs').values(row).execute();
    return toRun(row);
  }

  /** The account's run; another account's is as unknown as one that does not exist. */
  async get(accountId: string, runId: string): Promise<Run | undefined> {
    const row = await this.#db.selectFrom('runs').selectAll().where('id', '=', runId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? toRun(row) : undefined;
  }

  /**
   * The account's run, and the job state of the newest finished run of the fix loop's chain it
   * belongs to (the chain it heads when it names none): what verify_task reads of a `{runId}`
   * baseline, in one statement.
   */
  getWithChainState(accountId: string, runId: string): Promise<RunWithChainState | undefined> {
    return this.#withChainState(accountId, 'id', runId);
  }

  /** The same for the account's job run whose answer carried this jobReport (a baseline that names no run). */
  byReportIdWithChainState(accountId: string, reportId: string): Promise<RunWithChainState | undefined> {
    return this.#withChainState(accountId, 'report_id', reportId);
  }

  async #withChainState(accountId: string, column: 'id' | 'report_id', value: string): Promise<RunWithChainState | undefined> {
    const row = await this.#db
      .selectFrom('runs as r')
      .selectAll('r')
      .select((eb) =>
        eb
          .selectFrom('runs as c')
          .select('c.job_state')
          .where('c.chain_id', '=', eb.fn.coalesce('r.chain_id', 'r.id'))
          .whereRef('c.account_id', '=', 'r.account_id')
          .where('c.job_state', 'is not', null)
          .orderBy('c.created_at', 'desc')
          .orderBy('c.id', 'desc')
          .limit(1)
          .as('chain_job_state'),
      )
      .where(column === 'id' ? 'r.id' : 'r.report_id', '=', value)
      .where('r.account_id', '=', accountId)
      .limit(1)
      .executeTakeFirst();
    if (!row) return undefined;
    const { chain_job_state: chainJobState, ...run } = row;
    return { run: toRun(run), chainJobState: chainJobState ?? undefined };
  }

  /** The account's job run of this kind holding this idempotency key (the first, when a race stored two). */
  async byIdempotencyKey(accountId: string, kind: string, key: string): Promise<Run | undefined> {
    const row = await this.#db.selectFrom('runs').selectAll().where('account_id', '=', accountId).where('kind', '=', kind).where('idempotency_key', '=', key).orderBy('created_at').limit(1).executeTakeFirst();
    return row ? toRun(row) : undefined;
  }

  /** What a job run keeps besides its outcome: set when the job has its answer, before the run is closed. */
  async attachJob(runId: string, job: JobLink): Promise<void> {
    await this.#db.updateTable('runs').set({ report_id: job.reportId, chain_id: job.chainId, job_state: job.jobState }).where('id', '=', runId).execute();
  }

  /** Runs of the account still `accepted` (waiting or running), in every process. */
  async countOpen(accountId: string): Promise<number> {
    const row = await this.#db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'accepted').where('account_id', '=', accountId).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Marks a run started by its holder; false when it is no longer this holder's to run (taken over, or closed). */
  async markStarted(runId: string, holder: LeaseHolder, at: Date): Promise<boolean> {
    const result = await this.#db.updateTable('runs').set({ started_at: at.toISOString() }).where('id', '=', runId).where('holder', '=', holder.token).where('status', '=', 'accepted').executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Closes a run that is still `accepted` and still this holder's; false when it was closed
   * already (by a shutdown) or taken over by another holder, so a late finish never overwrites that.
   */
  async finish(
    runId: string,
    holder: LeaseHolder,
    end: RunEnd,
  ): Promise<boolean> {
    const result = await this.#db
      .updateTable('runs')
      .set({
        status: end.status,
        result_status: end.resultStatus,
        outcome: end.outcome === null ? null : JSON.stringify(end.outcome),
        error_reason: end.errorReason,
        credits: end.credits,
        finished_at: end.at.toISOString(),
        // A job run's link (its report, chain and state) is stored with its end: one statement.
        ...(end.job === undefined ? {} : { report_id: end.job.reportId, chain_id: end.job.chainId, job_state: end.job.jobState }),
      })
      .where('id', '=', runId)
      .where('holder', '=', holder.token)
      .where('status', '=', 'accepted')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The holder is alive: its open runs' heartbeat is now. One statement whatever their number. */
  async heartbeat(holder: LeaseHolder, at: Date = new Date()): Promise<void> {
    await this.#db.updateTable('runs').set({ heartbeat_at: at.toISOString() }).where('holder', '=', holder.token).where('status', '=', 'accepted').execute();
  }

  /**
   * Gives runs back without closing them (a shutdown's runs that never started): their heartbeat
   * goes to the epoch, so the next sweep of any node, or of this one after its restart, takes them.
   */
  async release(holder: LeaseHolder, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.#db.updateTable('runs').set({ heartbeat_at: RELEASED }).where('id', 'in', runIds).where('holder', '=', holder.token).where('status', '=', 'accepted').execute();
  }

  /**
   * Takes over every run still `accepted` whose holder is dead (see isHolderDead: a pid gone on
   * this host, or a heartbeat older than `staleMs`). Each take is one conditional update naming
   * the holder it read, so when several nodes sweep at once exactly one takes a run; the others'
   * updates match nothing. Answers what was taken, for the caller to run again or close.
   */
  async takeOrphans(holder: LeaseHolder, staleMs: number, now: Date = new Date()): Promise<TakenRun[]> {
    const open = await this.#db.selectFrom('runs').selectAll().where('status', '=', 'accepted').where('holder', '!=', holder.token).execute();
    const taken: TakenRun[] = [];
    for (const row of open) {
      const heartbeatAt = Date.parse(row.heartbeat_at ?? row.created_at);
      if (!isHolderDead({ holder: row.holder, pid: row.holder_pid, host: row.holder_host, heartbeatAt }, now.getTime(), staleMs)) continue;
      const result = await this.#db
        .updateTable('runs')
        .set({ holder: holder.token, holder_pid: holder.pid, holder_host: holder.host, heartbeat_at: now.toISOString(), attempts: (row.attempts ?? 1) + 1 })
        .where('id', '=', row.id)
        .where('holder', '=', row.holder)
        .where('status', '=', 'accepted')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) continue; // another node took it first
      const rerun = row.request != null && row.started_at === null && (row.attempts ?? 1) < MAX_RUN_ATTEMPTS;
      taken.push({ run: toRun(row), request: rerun ? (JSON.parse(row.request!) as RunRequest) : null, deadHolder: { pid: row.holder_pid, host: row.holder_host } });
    }
    return taken;
  }
}
