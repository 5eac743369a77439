import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { minusFloorZero } from '../db/dialect.ts';
import { usageDays, type DayUsage } from './activity-store.ts';
import { ServiceError, invalidInput } from '../core/errors.ts';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, sweepIdempotency, type ClaimOptions, type IdempotencyClaim } from './idempotency-claims.ts';
import type { LeaseHolder } from './lease-holder.ts';
import { checkPasswordReset, createPasswordReset, redeemPasswordReset, type ResetTokenState } from './password-resets.ts';
import { getPlan, PLAN_IDS } from './plans.ts';
import { periodOf, periodResetAt } from './periods.ts';
import { assertWithinScope, type KeyScope } from './key-scope.ts';
import { hashPassword, hashSecret, newApiKeySecret, newToken, verifyPassword } from './secrets.ts';
import { normalizeEmail, rowToAccount, rowToKey, type Account, type ApiKey, type Caller, type ChargeResult, type CreateAccountInput, type CreateKeyInput, type Limits, type UsageCount } from './account-records.ts';
import { CallerCache, readCaller } from './caller-cache.ts';
import { addUsageCounts, spendWithinQuota, usageBreakdown } from './credit-usage.ts';

// The record types moved to account-records.ts (the 400-line rule); some fifty files import them from here.
export type { Account, ApiKey, Caller, ChargeResult, CreateAccountInput, CreateKeyInput, Limits, UsageCount } from './account-records.ts';

const now = (): string => new Date().toISOString();

/** How long a verification link works (the mail says 48 hours). */
export const VERIFICATION_TTL_MS = 48 * 3600_000;

/** Accounts, keys and credits: everything the invoke path asks of the database. */
export class AccountStore {
  readonly #db: Db;
  /** The callers cache (caller-cache.ts): forgotten whenever this store changes a key or account. */
  readonly #callers: CallerCache;

  constructor(db: Db, options: { changeCounter?: () => number } = {}) {
    this.#db = db;
    // Without a change counter nothing can tell when the cache went stale, so it is not used.
    this.#callers = new CallerCache(options.changeCounter ?? (() => Math.random()));
  }

  /**
   * Runs a write to keys or accounts with the cached callers forgotten before it (the change
   * applies at once) and again once it has committed or failed: a lookup that read the row just
   * before the write and was cached meanwhile would otherwise be served for good, since this
   * connection's own commits do not move data_version.
   */
  async #changing<T>(write: () => Promise<T>): Promise<T> {
    this.#callers.forget();
    try {
      return await write();
    } finally {
      this.#callers.forget();
    }
  }

  limitsOf(account: Account): Limits {
    const plan = getPlan(account.plan);
    if (!plan) throw new Error(`account ${account.id} has unknown plan ${account.plan}`);
    return {
      plan,
      monthlyCredits: account.quotaOverride ?? plan.monthlyCredits,
      requestsPerMinute: account.rateLimitOverride ?? plan.requestsPerMinute,
    };
  }

  async countAccounts(): Promise<number> {
    const row = await this.#db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async createAccount(input: CreateAccountInput): Promise<Account> {
    const plan = input.plan ?? 'free';
    if (!getPlan(plan)) throw invalidInput('Unknown plan', [{ field: 'plan', message: `must be one of: ${PLAN_IDS.join(', ')}`, allowed: PLAN_IDS }]);
    const email = normalizeEmail(input.email);
    const existing = await this.#db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
    if (existing) throw new ServiceError(409, 'email_taken', 'An account with this e-mail already exists');
    const row = {
      id: randomUUID(),
      email,
      password_hash: input.password ? await hashPassword(input.password) : null,
      email_verified_at: input.verified ? now() : null,
      plan,
      status: 'active',
      quota_override: input.quota ?? null,
      rate_limit_override: input.rateLimit ?? null,
      created_at: now(),
    };
    await this.#db.insertInto('accounts').values(row).execute();
    return rowToAccount(row);
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const row = await this.#db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? rowToAccount(row) : undefined;
  }

  /** Accounts oldest first, for the operator's CLI (accounts list). */
  async listAccounts(options: { limit: number; offset?: number }): Promise<Account[]> {
    const rows = await this.#db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').limit(options.limit).offset(options.offset ?? 0).execute();
    return rows.map(rowToAccount);
  }

  async findAccountByEmail(email: string): Promise<Account | undefined> {
    const row = await this.#db.selectFrom('accounts').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
    return row ? rowToAccount(row) : undefined;
  }

  async setPlan(accountId: string, plan: string): Promise<Account> {
    if (!getPlan(plan)) throw invalidInput('Unknown plan', [{ field: 'plan', message: `must be one of: ${PLAN_IDS.join(', ')}`, allowed: PLAN_IDS }]);
    const result = await this.#changing(() => this.#db.updateTable('accounts').set({ plan }).where('id', '=', accountId).executeTakeFirst());
    if (Number(result.numUpdatedRows) === 0) throw new ServiceError(404, 'account_not_found', `No account ${accountId}`);
    return (await this.getAccount(accountId))!;
  }

  // A hash no password matches, so an unknown e-mail costs the same scrypt as a wrong password.
  #decoyHash: Promise<string> | undefined;

  /**
   * Checks e-mail and password; the same answer, in the same time, for an unknown e-mail and a
   * wrong password, so the answer says nothing about which accounts exist.
   */
  async authenticatePassword(email: string, password: string): Promise<Account | undefined> {
    const row = await this.#db.selectFrom('accounts').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
    if (!row?.password_hash) {
      this.#decoyHash ??= hashPassword(newToken());
      await verifyPassword(password, await this.#decoyHash);
      return undefined;
    }
    return (await verifyPassword(password, row.password_hash)) ? rowToAccount(row) : undefined;
  }

  async createVerificationToken(accountId: string, ttlMs = VERIFICATION_TTL_MS): Promise<string> {
    const token = newToken();
    await this.#db
      .insertInto('email_verifications')
      .values({ token_hash: hashSecret(token), account_id: accountId, expires_at: new Date(Date.now() + ttlMs).toISOString(), used_at: null })
      .execute();
    return token;
  }

  /**
   * A new verification link for the account with `email` when it is active and not verified
   * yet; undefined otherwise (no such account, verified already, suspended). The account's expired
   * links are deleted on the way; with no account to mail, the same delete runs on an id matching
   * nothing, so the answer comes after similar work either way (as createPasswordReset does).
   *
   * Earlier unused links stay valid until their own expiry, unlike a password reset's: every
   * link proves the same thing (the mailbox of that address received it) and verifying twice
   * changes nothing, so an older one is no weaker. Mail arrives out of order (greylisting holds
   * a first message for minutes, which is when people ask again), and a replaced link would greet
   * them with "not valid". The resend limits bound how many are live at once.
   */
  async renewVerification(email: string, now = Date.now()): Promise<{ account: Account; token: string } | undefined> {
    const account = await this.findAccountByEmail(email);
    const owner = account?.status === 'active' && !account.emailVerified ? account : undefined;
    const token = newToken();
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('email_verifications')
        .where('account_id', '=', owner?.id ?? randomUUID())
        .where('expires_at', '<=', new Date(now).toISOString())
        .execute();
      if (!owner) return;
      await trx
        .insertInto('email_verifications')
        .values({ token_hash: hashSecret(token), account_id: owner.id, expires_at: new Date(now + VERIFICATION_TTL_MS).toISOString(), used_at: null })
        .execute();
    });
    return owner ? { account: owner, token } : undefined;
  }

  async verifyEmail(token: string): Promise<Account> {
    const row = await this.#db.selectFrom('email_verifications').selectAll().where('token_hash', '=', hashSecret(token)).executeTakeFirst();
    if (!row || row.used_at !== null || row.expires_at < now()) {
      throw new ServiceError(400, 'invalid_token', 'The verification link is invalid, used or expired');
    }
    await this.#changing(() =>
      this.#db.transaction().execute(async (trx) => {
        await trx.updateTable('email_verifications').set({ used_at: now() }).where('token_hash', '=', row.token_hash).execute();
        await trx.updateTable('accounts').set({ email_verified_at: now() }).where('id', '=', row.account_id).where('email_verified_at', 'is', null).execute();
      }),
    );
    return (await this.getAccount(row.account_id))!;
  }

  // Password reset by mail: the links in password-resets.ts, the new password hashed as at sign-up.
  createPasswordReset(accountId: string | undefined, now = Date.now()): Promise<string> {
    return createPasswordReset(this.#db, accountId, now);
  }

  checkPasswordReset(token: string, now = Date.now()): Promise<ResetTokenState> {
    return checkPasswordReset(this.#db, token, now);
  }

  /** Sets the password of a live link's account and uses the link up; the link's state otherwise. */
  async resetPassword(token: string, password: string, now = Date.now()): Promise<ResetTokenState> {
    const passwordHash = await hashPassword(password);
    // #changing: the reset may verify the e-mail, which cached callers carry.
    return this.#changing(() => redeemPasswordReset(this.#db, token, passwordHash, now));
  }

  async createKey(input: CreateKeyInput): Promise<{ key: ApiKey; secret: string }> {
    assertWithinScope(input.actor ?? null, { tools: input.tools ?? null, canManageKeys: input.canManageKeys ?? false }, 'create');
    const secret = newApiKeySecret();
    const row = {
      id: randomUUID(),
      account_id: input.accountId,
      name: input.name ?? 'default',
      display_prefix: secret.slice(0, 13),
      secret_hash: hashSecret(secret),
      tools: input.tools ? JSON.stringify([...new Set(input.tools)].sort()) : null,
      can_manage_keys: input.canManageKeys ? 1 : 0,
      created_at: now(),
      revoked_at: null,
    };
    await this.#db.insertInto('api_keys').values(row).execute();
    return { key: rowToKey(row), secret };
  }

  async listKeys(accountId: string): Promise<ApiKey[]> {
    const rows = await this.#db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
    return rows.map(rowToKey);
  }

  async getKey(keyId: string): Promise<ApiKey | undefined> {
    const row = await this.#db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
    return row ? rowToKey(row) : undefined;
  }

  /**
   * The key `keyId` of `accountId` for `actor` to rotate or revoke: 404 when it is not that
   * account's (the same answer as for an id that does not exist, so nothing leaks), 403 when it
   * may do more than the acting key. Scopes never change after creation, so the check stays true
   * for the update that follows.
   */
  async #keyFor(keyId: string, accountId: string | undefined, actor: KeyScope | undefined, action: 'rotate' | 'revoke'): Promise<ApiKey> {
    const key = await this.getKey(keyId);
    if (!key || (accountId !== undefined && key.accountId !== accountId)) throw new ServiceError(404, 'key_not_found', `No API key ${keyId}`);
    assertWithinScope(actor ?? null, key, action);
    return key;
  }

  /**
   * Revokes a key; `accountId` scopes the change to the caller's own keys, `actor` (the acting
   * key, absent for the owner and the CLI) to keys within its scope.
   */
  async revokeKey(keyId: string, accountId?: string, actor?: KeyScope): Promise<ApiKey> {
    const target = await this.#keyFor(keyId, accountId, actor, 'revoke');
    await this.#changing(() => this.#db.updateTable('api_keys').set({ revoked_at: now() }).where('id', '=', target.id).where('revoked_at', 'is', null).execute());
    return (await this.getKey(target.id))!;
  }

  /**
   * Replaces a key's secret: the old secret stops working at once, the id and scopes stay. The
   * new secret goes to the caller, so `actor` may rotate only keys within its own scope.
   */
  async rotateKey(keyId: string, accountId: string, actor?: KeyScope): Promise<{ key: ApiKey; secret: string }> {
    const target = await this.#keyFor(keyId, accountId, actor, 'rotate');
    const secret = newApiKeySecret();
    const result = await this.#changing(() =>
      this.#db
        .updateTable('api_keys')
        .set({ secret_hash: hashSecret(secret), display_prefix: secret.slice(0, 13) })
        .where('id', '=', target.id)
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst(),
    );
    if (Number(result.numUpdatedRows) === 0) throw new ServiceError(404, 'key_not_found', `No active API key ${keyId}`);
    return { key: (await this.getKey(keyId))!, secret };
  }

  /**
   * The caller for `secret` when it is cached and nothing in the database changed since, without
   * a query or a promise: the hot path of every metered call. Otherwise undefined (use findCaller).
   */
  cachedCaller(secret: string): Caller | undefined {
    return this.#callers.cached(secret);
  }

  /** Resolves a secret to its key and account. Revoked keys resolve too, so the caller can say why they fail. */
  findCaller(secret: string): Promise<Caller | undefined> {
    return this.#callers.find(secret, (hash) => readCaller(this.#db, hash));
  }

  /**
   * Spends `credits` from the account's quota for the current UTC month, atomically: one
   * conditional upsert, so concurrent calls and other processes on the same database can never
   * push `used` past the quota.
   */
  async charge(accountId: string, credits: number, quota: number, at = new Date()): Promise<ChargeResult> {
    const period = periodOf(at);
    if (credits > quota) return { charged: false, used: await this.usedCredits(accountId, at), remaining: 0 };
    const spent = await spendWithinQuota(this.#db, accountId, period, credits, quota);
    if (spent !== undefined) return { charged: true, used: spent, remaining: Math.max(0, quota - spent) };
    const used = await this.usedCredits(accountId, at);
    return { charged: false, used, remaining: Math.max(0, quota - used) };
  }

  async refund(accountId: string, credits: number, at = new Date()): Promise<void> {
    await this.refundPeriod(accountId, periodOf(at), credits);
  }

  async refundPeriod(accountId: string, period: string, credits: number): Promise<void> {
    await this.#db
      .updateTable('credit_periods')
      .set({ used: minusFloorZero('used', credits) })
      .where('account_id', '=', accountId)
      .where('period', '=', period)
      .execute();
  }

  async usedCredits(accountId: string, at = new Date()): Promise<number> {
    const row = await this.#db
      .selectFrom('credit_periods')
      .select('used')
      .where('account_id', '=', accountId)
      .where('period', '=', periodOf(at))
      .executeTakeFirst();
    return row?.used ?? 0;
  }

  async addUsage(counts: readonly UsageCount[]): Promise<void> {
    if (counts.length === 0) return;
    await this.#db.transaction().execute((trx) => addUsageCounts(trx, counts));
  }

  /**
   * `used` comes from the caller: the credit ledger knows what this process holds unspent.
   * `days` are the month's UTC days with calls (at most 31, oldest first), the figures the
   * dashboard's chart draws and GET /api/v1/usage lists.
   */
  async usageSummary(account: Account, used: number, at = new Date()) {
    const period = periodOf(at);
    const limits = this.limitsOf(account);
    const { byTool, byKey } = await usageBreakdown(this.#db, account.id, period);
    // '-31' bounds any month: the day is text, and no month has a later one.
    const days = await usageDays(this.#db, account.id, `${period}-01`, `${period}-31`);
    return {
      period,
      plan: limits.plan.id,
      quota: limits.monthlyCredits,
      used,
      remaining: Math.max(0, limits.monthlyCredits - used),
      resetAt: periodResetAt(at).toISOString(),
      requestsPerMinute: limits.requestsPerMinute,
      byTool,
      byKey,
      days,
    };
  }

  // Per-day usage: see activity-store.ts (written by addUsageCounts).
  usageDays(accountId: string, from: string, to: string): Promise<DayUsage[]> {
    return usageDays(this.#db, accountId, from, to);
  }

  // Idempotency records: see idempotency-claims.ts (a dead holder's pending claim is taken over by a retry).
  claimIdempotencyKey(accountId: string, key: string, requestHash: string, options: ClaimOptions): Promise<IdempotencyClaim> {
    return claimIdempotencyKey(this.#db, accountId, key, requestHash, options);
  }

  completeIdempotencyKey(accountId: string, key: string, holder: LeaseHolder, status: number, body: string): Promise<void> {
    return completeIdempotencyKey(this.#db, accountId, key, holder, status, body);
  }

  /** Releases a claim so a retry can run again (the service failed, nothing to replay). */
  releaseIdempotencyKey(accountId: string, key: string, holder: LeaseHolder): Promise<void> {
    return releaseIdempotencyKey(this.#db, accountId, key, holder);
  }

  sweepIdempotency(ttlMs: number): Promise<void> {
    return sweepIdempotency(this.#db, ttlMs);
  }
}
