// REST's reading of an invoke outcome: the envelope, the status, and the rate and credit headers
// (IETF RateLimit-Policy / RateLimit, X-Credits-Remaining) from the account's standing.
import { periodBounds } from '../accounts/periods.ts';
import { errorEnvelope, insightFailure, insightSuccess, statusMessageBody, successEnvelope, type ErrorEnvelope, type InsightEnvelope, type StatusMessageBody, type SuccessEnvelope } from '../core/envelope.ts';
import type { ErrorBody } from '../core/define-tool.ts';
import type { ServiceError } from '../core/errors.ts';
import type { Meter, Outcome } from '../core/outcome.ts';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: SuccessEnvelope | ErrorEnvelope | StatusMessageBody | InsightEnvelope;
}

export function rateHeaders(meter: Meter, nowMs = Date.now()): Record<string, string> {
  const { limits, rate, creditsRemaining } = meter;
  const { startMs, endMs } = periodBounds(nowMs);
  const periodSeconds = Math.round((endMs - startMs) / 1000);
  const toReset = Math.max(1, Math.ceil((endMs - nowMs) / 1000));
  const headers: Record<string, string> = {
    'ratelimit-policy': `"minute";q=${limits.requestsPerMinute};w=60, "credits";q=${limits.monthlyCredits};qu="credits";w=${periodSeconds}`,
    'x-credits-remaining': String(creditsRemaining),
  };
  const credits = `"credits";r=${creditsRemaining};t=${toReset}`;
  headers['ratelimit'] = rate ? `"minute";r=${rate.remaining};t=${rate.resetSeconds}, ${credits}` : credits;
  return headers;
}

/** `errorBody` is the tool's (ToolDefinition.errorBody): the envelope unless the tool asks for the spec's shorter body. */
export function outcomeToHttp(outcome: Outcome, requestId: string, errorBody: ErrorBody = 'envelope'): HttpAnswer {
  const headers = outcome.meter ? rateHeaders(outcome.meter) : {};
  if (outcome.replayed) headers['idempotent-replayed'] = 'true';
  if (outcome.ok) return { status: 200, headers, body: errorBody === 'insight' ? insightSuccess(outcome.result) : successEnvelope(outcome.result, { warnings: outcome.warnings }) };
  return { status: outcome.error.status, headers: { ...headers, ...outcome.error.headers }, body: failureBody(outcome.error, requestId, errorBody) };
}

/** An error before any call (a key that does not authenticate): the envelope (or the tool's shorter body), no rate headers. */
export function errorToHttp(error: ServiceError, requestId: string, errorBody: ErrorBody = 'envelope'): HttpAnswer {
  return { status: error.status, headers: { ...error.headers }, body: failureBody(error, requestId, errorBody) };
}

function failureBody(error: ServiceError, requestId: string, errorBody: ErrorBody): ErrorEnvelope | StatusMessageBody | InsightEnvelope {
  if (errorBody === 'insight') return insightFailure(error, requestId);
  return errorBody === 'status-message' ? statusMessageBody(error) : errorEnvelope(error, requestId);
}
