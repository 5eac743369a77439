// Frozen coding jobs (the spec's completion loop, rule 8): a goal and the host's own checks
// (e.g. `npm test`), each with the last result the host submitted. The service never runs a
// check's command and cannot see the host's workspace: a result is what the host's runner
// reported, recorded as given. A check passed when its last submitted exit code is 0, and the job
// is `done` when every check's last result passed; a later failing submission reopens it. Jobs
// are private to their account.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { inTransaction, withAccountLocked } from '../../db/dialect.ts';
import type { CodingJobChecksTable } from '../../db/schema.ts';

export const JOB_ID = /^job_[0-9a-f]{32}$/;
export const CHECK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_GOAL_CHARS = 2000;
export const MAX_CHECKS = 20;
export const MAX_COMMAND_CHARS = 500;
export const MAX_DESCRIPTION_CHARS = 500;
/** The most output one submission may carry; more is refused (send the tail). */
export const MAX_OUTPUT_CHARS = 1_000_000;
/** What is kept of an output: its tail, where test runners print the failures and the summary. */
export const MAX_KEPT_OUTPUT_CHARS = 8000;
/** Jobs an account keeps at most (old jobs are not deleted for it: the limit is what it says). */
export const MAX_JOBS_PER_ACCOUNT = 1000;

export type JobStatus = 'open' | 'done';

export interface CheckSpec {
  id: string;
  command: string;
  description: string;
}

export interface CheckResult {
  exitCode: number;
  passed: boolean;
  /** the tail of the output, at most MAX_KEPT_OUTPUT_CHARS */
  output: string;
  /** the length of the output as submitted */
  outputChars: number;
  truncated: boolean;
  submittedAt: string;
}

export interface CheckState extends CheckSpec {
  attempts: number;
  last: CheckResult | null;
}

export interface CodingJob {
  jobId: string;
  goal: string;
  status: JobStatus;
  checks: CheckState[];
  /** the ids of the checks whose last result did not pass (or that have none yet), in order */
  remaining: string[];
  createdAt: string;
  updatedAt: string;
}

export type StartResult = { kind: 'started'; job: CodingJob } | { kind: 'duplicate_check'; checkId: string } | { kind: 'too_many_jobs' };

export type SubmitResult =
  | { kind: 'recorded'; job: CodingJob; check: CheckState }
  | { kind: 'job_not_found' }
  | { kind: 'check_not_found'; checkIds: string[] }
  | { kind: 'output_too_large'; chars: number };

function toCheck(row: CodingJobChecksTable): CheckState {
  const last: CheckResult | null =
    row.last_exit_code === null || row.last_submitted_at === null
      ? null
      : {
          exitCode: row.last_exit_code,
          passed: row.last_exit_code === 0,
          output: row.last_output ?? '',
          outputChars: row.last_output_chars ?? 0,
          truncated: (row.last_output_chars ?? 0) > (row.last_output ?? '').length,
          submittedAt: row.last_submitted_at,
        };
  return { id: row.check_id, command: row.command, description: row.description, attempts: row.attempts, last };
}

/** The last `max` characters, not splitting a surrogate pair at the cut. */
export function outputTail(output: string, max = MAX_KEPT_OUTPUT_CHARS): string {
  if (output.length <= max) return output;
  let start = output.length - max;
  const code = output.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++;
  return output.slice(start);
}

export class CodingJobStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async start(accountId: string, input: { goal: string; checks: readonly CheckSpec[]; now?: Date }): Promise<StartResult> {
    const seen = new Set<string>();
    for (const check of input.checks) {
      if (seen.has(check.id)) return { kind: 'duplicate_check', checkId: check.id };
      seen.add(check.id);
    }
    const jobId = `job_${randomUUID().replace(/-/g, '')}`;
    const now = (input.now ?? new Date()).toISOString();
    // The count and the insert under the account's lock on PostgreSQL, so two nodes starting jobs
    // at once cannot both pass the limit (see withAccountLocked).
    const started = await withAccountLocked(this.#db, accountId, async (db) => {
      const count = await db.selectFrom('coding_jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_JOBS_PER_ACCOUNT) return false;
      await inTransaction(db, async (trx) => {
        await trx.insertInto('coding_jobs').values({ id: jobId, account_id: accountId, goal: input.goal, created_at: now, updated_at: now }).execute();
        await trx
          .insertInto('coding_job_checks')
          .values(
            input.checks.map((check, position) => ({
              job_id: jobId,
              check_id: check.id,
              position,
              command: check.command,
              description: check.description,
              attempts: 0,
              last_exit_code: null,
              last_output: null,
              last_output_chars: null,
              last_submitted_at: null,
            })),
          )
          .execute();
      });
      return true;
    });
    if (!started) return { kind: 'too_many_jobs' };
    const job = await this.get(accountId, jobId);
    if (!job) throw new Error(`coding job ${jobId} vanished after its insert`);
    return { kind: 'started', job };
  }

  /** The account's job; another account's is as unknown as one that does not exist. */
  async get(accountId: string, jobId: string): Promise<CodingJob | undefined> {
    if (!JOB_ID.test(jobId)) return undefined;
    const job = await this.#db.selectFrom('coding_jobs').selectAll().where('id', '=', jobId).where('account_id', '=', accountId).executeTakeFirst();
    if (!job) return undefined;
    const rows = await this.#db.selectFrom('coding_job_checks').selectAll().where('job_id', '=', jobId).orderBy('position').execute();
    const checks = rows.map(toCheck);
    const remaining = checks.filter((c) => c.last?.passed !== true).map((c) => c.id);
    return { jobId, goal: job.goal, status: remaining.length === 0 ? 'done' : 'open', checks, remaining, createdAt: job.created_at, updatedAt: job.updated_at };
  }

  /** Records the host's run of one check: passed when exitCode is 0. */
  async submit(accountId: string, input: { jobId: string; checkId: string; exitCode: number; output: string; now?: Date }): Promise<SubmitResult> {
    const job = await this.get(accountId, input.jobId);
    if (!job) return { kind: 'job_not_found' };
    if (!job.checks.some((c) => c.id === input.checkId)) return { kind: 'check_not_found', checkIds: job.checks.map((c) => c.id) };
    if (input.output.length > MAX_OUTPUT_CHARS) return { kind: 'output_too_large', chars: input.output.length };
    const now = (input.now ?? new Date()).toISOString();
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .updateTable('coding_job_checks')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          last_exit_code: input.exitCode,
          last_output: outputTail(input.output),
          last_output_chars: input.output.length,
          last_submitted_at: now,
        }))
        .where('job_id', '=', input.jobId)
        .where('check_id', '=', input.checkId)
        .execute();
      await trx.updateTable('coding_jobs').set({ updated_at: now }).where('id', '=', input.jobId).execute();
    });
    const updated = await this.get(accountId, input.jobId);
    const check = updated?.checks.find((c) => c.id === input.checkId);
    if (!updated || !check) return { kind: 'job_not_found' };
    return { kind: 'recorded', job: updated, check };
  }
}
