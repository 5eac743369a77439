// The refusals the invoke path (core/invoke.ts) builds when a limit stops a call (the per-minute
// rate, the monthly credits) and the meter such an uncharged answer reports. They live apart from
// the Invoker because they are only reached off the success path; each takes what it needs as
// arguments.
import type { Limits } from '../accounts/account-store.ts';
import { periodResetAt } from '../accounts/periods.ts';
import type { RateDecision } from '../accounts/rate-limiter.ts';
import type { CreditLedger } from '../accounts/credit-ledger.ts';
import type { AnyTool } from './define-tool.ts';
import { ServiceError } from './errors.ts';
import type { Meter } from './outcome.ts';

/** The account's standing right now, for an answer that charged nothing. */
export async function meterNow(ledger: CreditLedger, accountId: string, limits: Limits, rate: RateDecision): Promise<Meter> {
  const used = await ledger.used(accountId);
  return { limits, rate, creditsRemaining: Math.max(0, limits.monthlyCredits - used), charged: 0 };
}

export function rateLimited(limits: Limits, rate: RateDecision): ServiceError {
  return new ServiceError(429, 'rate_limited', `Rate limit of ${limits.requestsPerMinute} requests per minute exceeded`, {
    detail: `Retry after ${rate.resetSeconds} seconds`,
    headers: { 'Retry-After': String(rate.resetSeconds) },
    extra: { retryAfterSeconds: rate.resetSeconds },
  });
}

export function quotaExhausted(tool: AnyTool, remaining: number): ServiceError {
  const resetAt = periodResetAt(new Date()).toISOString();
  return new ServiceError(429, 'quota_exhausted', 'The monthly credit quota is used up', {
    detail: `${tool.operationId} costs ${tool.credits} credits and ${remaining} remain this period; the quota resets at ${resetAt}`,
    headers: { 'x-should-retry': 'false' },
    extra: { resetAt, creditsRequired: tool.credits, creditsRemaining: remaining },
  });
}
