// The invoke path's claims in the idempotency store (accounts/idempotency-claims.ts) other than
// the Idempotency-Key's own flow: how long a claim's holder may take before it counts as gone,
// and the ToolCache entries a tool keeps its answers in. They live apart from the Invoker
// (core/invoke.ts) as free functions that take the store and holder as arguments, so the call
// path allocates nothing more for them; a tool without a cache never reaches them.
import type { AccountStore } from '../accounts/account-store.ts';
import type { LeaseHolder } from '../accounts/lease-holder.ts';
import type { AnyTool } from './define-tool.ts';
import { idempotencyRequestHash } from './idempotency-hash.ts';
import type { Outcome } from './outcome.ts';

/** The store's claim methods, all the cache needs of the AccountStore. */
export type ClaimStore = Pick<AccountStore, 'claimIdempotencyKey' | 'completeIdempotencyKey' | 'releaseIdempotencyKey'>;

/** What a ToolCache lookup found: an answer to serve, a claim to fill, or nothing (another call holds the entry). */
export type CacheLookup = { kind: 'hit'; result: unknown } | { kind: 'claimed'; key: string } | undefined;

/**
 * A live holder keeps a claim while the call is charged, run (within its time limit) and
 * stored; a claim far older than that, whose holder's pid cannot tell, is a holder gone.
 */
export function claimStaleMs(tool: AnyTool, toolTimeoutMs: number): number {
  return 2 * (tool.limits?.timeoutMs ?? toolTimeoutMs) + 60_000;
}

/**
 * A ToolCache entry lives in the idempotency store under a key no caller can send (it holds a
 * space, which an Idempotency-Key may not), per account, for the tool's ttl (the store's sweep,
 * IDEMPOTENCY_TTL_HOURS, may end it sooner).
 */
export async function cacheLookup(accounts: ClaimStore, holder: LeaseHolder, toolTimeoutMs: number, tool: AnyTool, accountId: string, input: unknown): Promise<CacheLookup> {
  // A hit's answer reports this call's time, the lookup's, not the stored call's.
  const started = performance.now();
  const cache = tool.cache!;
  const hash = idempotencyRequestHash(tool.operationId, input, undefined, undefined);
  const key = `cache ${hash}`;
  const staleMs = claimStaleMs(tool, toolTimeoutMs);
  const claim = await accounts.claimIdempotencyKey(accountId, key, hash, { holder, ttlMs: cache.ttlMs, staleMs });
  if (claim.kind === 'replay') {
    const stored = JSON.parse(claim.body) as { result: unknown; storedAt: string };
    return { kind: 'hit', result: cache.served(stored.result, { storedAt: stored.storedAt, elapsedMs: Math.round(performance.now() - started) }) };
  }
  // Another call with the same input is running: this one runs too, and leaves the entry to it.
  return claim.kind === 'claimed' ? { kind: 'claimed', key } : undefined;
}

/** Fills the claimed entry with a success, or gives it up after a failure (the next call runs). */
export async function cacheSettle(accounts: ClaimStore, holder: LeaseHolder, accountId: string, key: string, outcome: Outcome): Promise<void> {
  if (outcome.ok) await accounts.completeIdempotencyKey(accountId, key, holder, 200, JSON.stringify({ result: outcome.result, storedAt: new Date().toISOString() }));
  else await accounts.releaseIdempotencyKey(accountId, key, holder);
}
