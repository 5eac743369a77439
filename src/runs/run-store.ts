// Async runs in the database, scoped to their account: a run is `accepted` while it waits or
// runs, then `completed` (the job finished, whatever the tool answered: `result_status` carries
// 'ok' or the tool's error code) or `error` (it could not finish: the process died, the service
// stopped, an internal failure). Every run records the lease holder of the process running it, so
// the next start can tell a run left `accepted` by a dead process and close it as `error`.
import { randomUUID } from 'node:crypto';
import { isHolderDead, type LeaseHolder } from '../accounts/lease-holder.ts';
import type { StoredOutcome } from '../core/outcome.ts';
import type { Db } from '../db/database.ts';
import type { RunsTable } from '../db/schema.ts';

export type RunStatus = 'accepted' | 'completed' | 'partial' | 'error';

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

/**
 * A run with no process left to finish it: its holder is gone. Runs do not heartbeat, so a
 * holder on another host (which no pid check can reach) is taken for dead only a day after the
 * run was accepted, far beyond any queue wait and tool time limit.
 */
const FOREIGN_HOST_STALE_MS = 24 * 3600_000;

export class RunStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async create(input: { runId: string; accountId: string; kind: string; operationId: string | null; holder: LeaseHolder; now?: Date; idempotencyKey?: string | null | undefined; startedAt?: Date | undefined }): Promise<Run> {
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
      created_at: (input.now ?? new Date()).toISOString(),
      started_at: input.startedAt?.toISOString() ?? null,
      finished_at: null,
      idempotency_key: input.idempotencyKey ?? null,
      report_id: null,
      chain_id: null,
      job_state: null,
    };
    await this.#db.insertInto('runs').values(row).execute();
    return toRun(row);
  }

  /** The account's run; another account's is as unknown as one that does not exist. */
  async get(accountId: string, runId: string): Promise<Run | undefined> {
    const row = await this.#db.selectFrom('runs').selectAll().where('id', '=', runId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? toRun(row) : undefined;
  }

  /** The account's job run of this kind holding this idempotency key (the first, when a race stored two). */
  async byIdempotencyKey(accountId: string, kind: string, key: string): Promise<Run | undefined> {
    const row = await this.#db.selectFrom('runs').selectAll().where('account_id', '=', accountId).where('kind', '=', kind).where('idempotency_key', '=', key).orderBy('created_at').limit(1).executeTakeFirst();
    return row ? toRun(row) : undefined;
  }

  /** The account's job run whose answer carried this jobReport. */
  async byReportId(accountId: string, reportId: string): Promise<Run | undefined> {
    const row = await this.#db.selectFrom('runs').selectAll().where('account_id', '=', accountId).where('report_id', '=', reportId).limit(1).executeTakeFirst();
    return row ? toRun(row) : undefined;
  }

  /** The newest finished run of a fix loop's chain (the account's own). */
  async latestInChain(accountId: string, chainId: string): Promise<Run | undefined> {
    const row = await this.#db
      .selectFrom('runs')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('account_id', '=', accountId)
      .where('job_state', 'is not', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toRun(row) : undefined;
  }

  /** What a job run keeps besides its outcome: set when the job has its answer, before the run is closed. */
  async attachJob(runId: string, job: { reportId: string | null; chainId: string | null; jobState: string }): Promise<void> {
    await this.#db.updateTable('runs').set({ report_id: job.reportId, chain_id: job.chainId, job_state: job.jobState }).where('id', '=', runId).execute();
  }

  /** Runs of the account still `accepted` (waiting or running), in every process. */
  async countOpen(accountId: string): Promise<number> {
    const row = await this.#db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'accepted').where('account_id', '=', accountId).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async markStarted(runId: string, at: Date): Promise<void> {
    await this.#db.updateTable('runs').set({ started_at: at.toISOString() }).where('id', '=', runId).where('status', '=', 'accepted').execute();
  }

  /**
   * Closes a run that is still `accepted`; false when it was closed already (by a shutdown or a
   * sweep that took its holder for dead), so a late finish never overwrites that.
   */
  async finish(
    runId: string,
    end: { status: Exclude<RunStatus, 'accepted'>; resultStatus: string | null; outcome: StoredOutcome | null; errorReason: string | null; credits: number; at: Date },
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
      })
      .where('id', '=', runId)
      .where('status', '=', 'accepted')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Marks `error` every run still `accepted` whose holder is dead (see isHolderDead): at start,
   * the runs a killed process left behind. Answers the runs it closed, so their webhooks can go out.
   */
  async sweepDead(now: Date = new Date()): Promise<Run[]> {
    const open = await this.#db.selectFrom('runs').selectAll().where('status', '=', 'accepted').execute();
    const closed: Run[] = [];
    for (const row of open) {
      const record = { holder: row.holder, pid: row.holder_pid, host: row.holder_host, heartbeatAt: Date.parse(row.created_at) };
      if (!isHolderDead(record, now.getTime(), FOREIGN_HOST_STALE_MS)) continue;
      const reason = `The process running this run (pid ${row.holder_pid} on ${row.holder_host}) stopped before it finished; submit it again`;
      const done = await this.finish(row.id, { status: 'error', resultStatus: null, outcome: null, errorReason: reason, credits: 0, at: now });
      if (done) closed.push({ ...toRun(row), status: 'error', errorReason: reason, finishedAt: now.toISOString() });
    }
    return closed;
  }
}
