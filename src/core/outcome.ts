// What one call through the invoke path came to, in terms no surface owns: REST turns it into the
// envelope and rate headers, MCP into a tool result, runs and idempotency records store it as it
// is. A failure says at which stage it stopped, so a surface can tell "you may not" from "try
// again later" from "the tool could not" without reading HTTP statuses.
import type { Limits } from '../accounts/account-store.ts';
import type { RateDecision } from '../accounts/rate-limiter.ts';
import { ServiceError } from './errors.ts';

/**
 * resolve: no such tool. authorize: the account, plan or key may not call it. rate: the
 * per-minute limit. input: the input (or upload) was refused before any charge. quota: the
 * credits are used up. run: the tool ran (and was charged unless the failure refunds it).
 */
export type FailureStage = 'resolve' | 'authorize' | 'rate' | 'input' | 'quota' | 'run';

/** The account's standing after the call: what a surface reports as rate and credit headers. */
export interface Meter {
  limits: Limits;
  rate: RateDecision | undefined;
  creditsRemaining: number;
  /** credits this call cost in the end (0 when refused or refunded) */
  charged: number;
}

export interface InvokeSuccess {
  ok: true;
  result: unknown;
  warnings: string[];
  meter: Meter;
  /** an Idempotency-Key replay of an earlier call's outcome */
  replayed: boolean;
}

export interface InvokeFailure {
  ok: false;
  stage: FailureStage;
  error: ServiceError;
  /** when to try again, for failures that pass (rate limit, a full queue); undefined when retrying will not help */
  retryAfterSeconds: number | undefined;
  /** undefined for failures before the account's standing was looked at (unknown tool, not allowed) */
  meter: Meter | undefined;
  replayed: boolean;
}

export type Outcome = InvokeSuccess | InvokeFailure;

/** Retry-After as a number of seconds, from the error that knows it. */
export function retryAfterOf(error: ServiceError): number | undefined {
  const typed = error.extra['retryAfterSeconds'];
  if (typeof typed === 'number') return typed;
  const header = Object.entries(error.headers).find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
  const seconds = header === undefined ? NaN : Number(header);
  return Number.isFinite(seconds) ? seconds : undefined;
}

export function failure(stage: FailureStage, error: ServiceError, meter?: Meter): InvokeFailure {
  return { ok: false, stage, error, retryAfterSeconds: retryAfterOf(error), meter, replayed: false };
}

/** An outcome as an idempotency record or a run keeps it: no account standing, which is read fresh on replay. */
export interface StoredOutcome {
  ok: boolean;
  result?: unknown;
  warnings?: string[];
  stage?: FailureStage;
  error?: { status: number; code: string; message: string; detail: string; extra: Record<string, unknown>; headers: Record<string, string> };
}

export function storeOutcome(outcome: Outcome): StoredOutcome {
  if (outcome.ok) return { ok: true, result: outcome.result, warnings: outcome.warnings };
  const e = outcome.error;
  return { ok: false, stage: outcome.stage, error: { status: e.status, code: e.error, message: e.message, detail: e.detail, extra: e.extra, headers: e.headers } };
}

/**
 * Reads a stored outcome back. Records written before outcomes were stored hold the REST
 * envelope; those are read as the outcome they describe.
 */
export function loadOutcome(json: string, meter: Meter): Outcome {
  const stored = JSON.parse(json) as StoredOutcome & Record<string, unknown>;
  if (typeof stored.ok === 'boolean') {
    if (stored.ok) return { ok: true, result: stored.result, warnings: stored.warnings ?? [], meter, replayed: true };
    const e = stored.error ?? { status: 500, code: 'internal_error', message: 'The stored outcome is unreadable', detail: '', extra: {}, headers: {} };
    const error = new ServiceError(e.status, e.code, e.message, { detail: e.detail, extra: e.extra, headers: e.headers });
    return { ...failure(stored.stage ?? 'run', error, meter), replayed: true };
  }
  // A legacy envelope: { status, code, message, result, warnings, error } or the error envelope.
  if (stored['status'] === true) return { ok: true, result: stored['result'], warnings: (stored['warnings'] as string[] | undefined) ?? [], meter, replayed: true };
  const { code, message, detail, error, requestId: _requestId, status: _status, ...extra } = stored as Record<string, unknown>;
  const legacy = new ServiceError(Number(code), String(error), String(message), { detail: String(detail ?? message), extra });
  return { ...failure('run', legacy, meter), replayed: true };
}
