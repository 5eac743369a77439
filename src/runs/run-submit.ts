// What a run submit carries, the job the executor queues for it, and the two ways a submit is
// refused (runs_busy, service_stopping): the executor's inputs and answers, kept apart from its
// queue and lifecycle in run-executor.ts (the 400-line rule).
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../accounts/account-store.ts';
import { ServiceError } from '../core/errors.ts';
import type { InvokeRequest } from '../core/invoke.ts';
import { failure, type InvokeFailure } from '../core/outcome.ts';
import type { OwnerGroup } from '../engines/fair-queue.ts';
import type { JobLink } from './run-store.ts';

/** A single tool call run async: the invoke request's own fields (the file is read into the run's own work folder when the run starts). */
export type RunSubmit = Pick<InvokeRequest, 'caller' | 'operationId' | 'input' | 'idempotencyKey' | 'requestId' | 'log' | 'file'>;

/**
 * A job of more than one call (a playbook, solve_task, verify_task): the runner's own closure,
 * run in this process with the run's signal. Its calls go through the invoke path themselves;
 * the result's `status` is the routing outcome get_run reports as resultStatus.
 */
export interface JobSubmit {
  caller: Caller;
  kind: string;
  /** what get_run shows as operationId: the skill or the goal's job */
  label: string | null;
  requestId: string;
  log: FastifyBaseLogger;
  /** the job's idempotency key: stored on the run, so a retry with it finds the run and replays it */
  idempotencyKey?: string | null | undefined;
  /** the goal in the caller's words (solve_task, verify_task), for the mcp.job.finished webhook */
  goal?: string | undefined;
  /** Runs the job; `job`, when given, is stored with the run's end (RunStore.finish). */
  execute(signal: AbortSignal, log: FastifyBaseLogger, runId: string): Promise<{ result: { status: string } & Record<string, unknown>; credits: number; job?: JobLink | undefined }>;
}

export type SubmitAnswer = { accepted: true; runId: string; createdAt: string } | { accepted: false; refusal: InvokeFailure };

/** A run as the executor holds it from its submit (or takeover, or inline start) to its end. */
export interface Job extends RunSubmit {
  /** set for a JobSubmit: what runs instead of one invoke */
  execute?: JobSubmit['execute'];
  kind: string;
  runId: string;
  createdAt: string;
  startedAt: Date | null;
  controller: AbortController;
  /** the account's line in the queue */
  group: OwnerGroup;
  /** a job's goal in the caller's words, for its webhook */
  goal?: string | undefined;
  /** true once the run's row is stored, false when it could not be: a run starts only after it */
  stored: Promise<boolean>;
  /** the run can be run again by another holder (its RunRequest is stored): a shutdown gives it back unstarted */
  rerunnable: boolean;
}

/** Seconds a refused submit is told to wait (runs take seconds to minutes; a retry storm helps nobody). */
const RETRY_AFTER_SECONDS = 5;

export function stopping(): InvokeFailure {
  return failure('run', new ServiceError(503, 'service_stopping', 'The service is shutting down and takes no new runs', { detail: 'Submit the run again in a moment' }));
}

export function runsBusy(message: string): InvokeFailure {
  return failure(
    'run',
    new ServiceError(429, 'runs_busy', message, {
      detail: 'Retry after a few seconds, or call without async',
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      extra: { retryAfterSeconds: RETRY_AFTER_SECONDS },
    }),
  );
}
