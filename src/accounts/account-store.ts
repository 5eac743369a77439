import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { minusFloorZero } from '../db/dialect.ts';
import { addActivity, monthlyCounts, usageDays, type DayUsage } from './activity-store.ts';
import { ServiceError, invalidInput } from '../core/errors.ts';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, sweepIdempotency, type ClaimOptions, type IdempotencyClaim } from './idempotency-claims.ts';
import type { LeaseHolder } from './lease-holder.ts';
import { checkPasswordReset, createPasswordReset, redeemPasswordReset, type ResetTokenState } from './password-resets.ts';
import { getPlan, PLAN_IDS, type Plan } from './plans.ts';
import { periodOf, periodResetAt } from './periods.ts';
import { assertWithinScope, type KeyScope } from './key-scope.ts';
import { constantTimeEqual, hashPassword, hashSecret, newApiKeySecret, newToken, verifyPassword } from './secrets.ts';

export interface Account {
  id: string;
  email: string;
  plan: string;
  status: string;
  emailVerified: boolean;
  quotaOverride: number | null;
  rateLimitOverride: number | null;
  createdAt: string;
}

export interface ApiKey {
  id: string;
  accountId: string;
  name: string;
  displayPrefix: string;
  tools: string[] | null;
  canManageKeys: boolean;
  createdAt: string;
  revokedAt: string | null;
  /**
   * The key's latest call as of the last usage flush (null: never used), as listKeys and getKey
   * read it; absent where it is not read (the auth lookup, a new key).
   */
  lastUsedAt?: string | null;
}

export interface Caller {
  account: Account;
  key: ApiKey;
}

export interface Limits {
  plan: Plan;
  monthlyCredits: number;
  requestsPerMinute: number;
}

export interface CreateAccountInput {
  email: string;
  password?: string | undefined;
  plan?: string | undefined;
  verified?: boolean | undefined;
  quota?: number | undefined;
  rateLimit?: number | undefined;
}

export interface CreateKeyInput {
  accountId: string;
  name?: string | undefined;
  tools?: string[] | null | undefined;
  canManageKeys?: boolean | undefined;
  /** The key creating this one; absent for the account owner (password, CLI), who may create any key. */
  actor?: KeyScope | undefined;
}

export interface UsageCount {
  accountId: string;
  keyId: string;
  operationId: string;
  period: string;
  /** UTC day (`YYYY-MM-DD`, within `period`): the recorder counts per day for usage_days */
  day: string;
  calls: number;
  failures: number;
  credits: number;
  /** the latest of these calls (ISO): the key's last_used_at */
  lastAt: string;
}

export interface ChargeResult {
  charged: boolean;
  used: number;
  remaining: number;
}

const now = (): string => new Date().toISOString();

function rowToAccount(row: {
  id: string;
  email: string;
  plan: string;
  status: string;
  email_verified_at: string | null;
  quota_override: number | null;
  rate_limit_override: number | null;
  created_at: string;
}): Account {
  return {
    id: row.id,
    email: row.email,
    plan: row.plan,
    status: row.status,
    emailVerified: row.email_verified_at !== null,
    quotaOverride: row.quota_override,
    rateLimitOverride: row.rate_limit_override,
    createdAt: row.created_at,
  };
}

function rowToKey(row: {
  id: string;
  account_id: string;
  name: string;
  display_prefix: string;
  tools: string | null;
  can_manage_keys: number;
  created_at: string;
  revoked_at: string | null;
  last_used_at?: string | null;
}): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    displayPrefix: row.display_prefix,
    tools: row.tools === null ? null : (JSON.parse(row.tools) as string[]),
    canManageKeys: row.can_manage_keys === 1,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    ...(row.last_used_at === undefined ? {} : { lastUsedAt: row.last_used_at }),
  };
}

/**
 * Adds `credits` to the account's month in one conditional upsert that never passes `quota`, so
 * concurrent callers and processes cannot overspend. Returns the new `used`, or undefined when
 * the credits do not fit. Runs on the database or inside the caller's transaction.
 */
export async function spendWithinQuota(db: Kysely<Database>, accountId: string, period: string, credits: number, quota: number): Promise<number | undefined> {
  const row = await db
    .insertInto('credit_periods')
    .values({ account_id: accountId, period, used: credits })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'period'])
        .doUpdateSet({ used: sql<number>`credit_periods.used + excluded.used` })
        .where(sql<number>`credit_periods.used + excluded.used`, '<=', quota),
    )
    .returning('used')
    .executeTakeFirst();
  return row?.used;
}

/**
 * Adds counts to the usage counters inside the caller's transaction: the credit ledger writes
 * them together with its leases' consumption, so a crash never leaves the two disagreeing.
 */
export async function addUsageCounts(trx: Kysely<Database>, counts: readonly UsageCount[]): Promise<void> {
  // In the key's order: two nodes flushing the same counters at once then lock their rows in one
  // order and wait for each other instead of deadlocking (PostgreSQL locks row by row).
  for (const c of monthlyCounts(counts).sort(compareUsageCounts)) {
    await trx
      .insertInto('usage_counters')
      .values({ account_id: c.accountId, key_id: c.keyId, operation_id: c.operationId, period: c.period, calls: c.calls, failures: c.failures, credits: c.credits })
      .onConflict((oc) =>
        oc.columns(['account_id', 'period', 'key_id', 'operation_id']).doUpdateSet({
          calls: sql<number>`usage_counters.calls + excluded.calls`,
          failures: sql<number>`usage_counters.failures + excluded.failures`,
          credits: sql<number>`usage_counters.credits + excluded.credits`,
        }),
      )
      .execute();
  }
  await addActivity(trx, counts);
}

function compareUsageCounts(a: UsageCount, b: UsageCount): number {
  return compareText(a.accountId, b.accountId) || compareText(a.period, b.period) || compareText(a.keyId, b.keyId) || compareText(a.operationId, b.operationId);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Accounts, keys and credits: everything the invoke path asks of the database. */
export class AccountStore {
  readonly #db: Db;
  readonly #changeCounter: () => number;
  /**
   * Callers by secret hash. Valid while no other connection has committed (SQLite's
   * data_version) and this store has not changed a key or account itself, so a revoke from the
   * CLI or another process is seen on the very next call.
   */
  readonly #callers = new Map<string, Caller>();
  // NaN equals nothing: the first call reads the database.
  #callersVersion = Number.NaN;
  /** Bumped whenever this store changes a key or account: a lookup in flight across a bump is not cached. */
  #generation = 0;

  constructor(db: Db, options: { changeCounter?: () => number } = {}) {
    this.#db = db;
    // Without a change counter nothing can tell when the cache went stale, so it is not used.
    this.#changeCounter = options.changeCounter ?? (() => Math.random());
  }

  #forgetCallers(): void {
    this.#callers.clear();
    this.#generation++;
  }

  /**
   * Runs a write to keys or accounts with the cached callers forgotten before it (the change
   * applies at once) and again once it has committed or failed: a lookup that read the row just
   * before the write and was cached meanwhile would otherwise be served for good, since this
   * connection's own commits do not move data_version.
   */
  async #changing<T>(write: () => Promise<T>): Promise<T> {
    this.#forgetCallers();
    try {
      return await write();
    } finally {
      this.#forgetCallers();
    }
  }

  // The same few keys call again and again; their hashes are remembered (bounded) rather than recomputed.
  readonly #hashes = new Map<string, string>();

  #hashOf(secret: string): string {
    let hash = this.#hashes.get(secret);
    if (hash === undefined) {
      if (this.#hashes.size >= 10_000) this.#hashes.clear();
      hash = hashSecret(secret);
      this.#hashes.set(secret, hash);
    }
    return hash;
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

  async createVerificationToken(accountId: string, ttlMs = 48 * 3600_000): Promise<string> {
    const token = newToken();
    await this.#db
      .insertInto('email_verifications')
      .values({ token_hash: hashSecret(token), account_id: accountId, expires_at: new Date(Date.now() + ttlMs).toISOString(), used_at: null })
      .execute();
    return token;
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
    const version = this.#changeCounter();
    if (version !== this.#callersVersion || this.#callers.size > 10_000) {
      this.#callers.clear();
      this.#callersVersion = version;
      return undefined;
    }
    return this.#callers.get(this.#hashOf(secret));
  }

  /** Resolves a secret to its key and account. Revoked keys resolve too, so the caller can say why they fail. */
  async findCaller(secret: string): Promise<Caller | undefined> {
    const cached = this.cachedCaller(secret);
    if (cached) return cached;
    // What the cache was valid for when the lookup began: data_version (just read by cachedCaller) and this store's generation.
    const version = this.#callersVersion;
    const generation = this.#generation;
    const hash = this.#hashOf(secret);
    const row = await this.#db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'api_keys.id as key_id',
        'api_keys.name',
        'api_keys.display_prefix',
        'api_keys.secret_hash',
        'api_keys.tools',
        'api_keys.can_manage_keys',
        'api_keys.created_at as key_created_at',
        'api_keys.revoked_at',
        'accounts.id',
        'accounts.email',
        'accounts.plan',
        'accounts.status',
        'accounts.email_verified_at',
        'accounts.quota_override',
        'accounts.rate_limit_override',
        'accounts.created_at',
      ])
      .where('api_keys.secret_hash', '=', hash)
      .executeTakeFirst();
    // The index lookup already matched; the constant-time compare keeps the check itself free of timing signal.
    if (!row || !constantTimeEqual(row.secret_hash, hash)) return undefined;
    const caller = {
      account: rowToAccount(row),
      key: rowToKey({ ...row, id: row.key_id, account_id: row.id, created_at: row.key_created_at }),
    };
    // Cached only if nothing moved while the query waited its turn: a newer data_version seen by
    // another call, or a write of this store, may have come after the row was read.
    if (this.#callersVersion === version && this.#generation === generation) this.#callers.set(hash, caller);
    return caller;
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

  /** `used` comes from the caller: the credit ledger knows what this process holds unspent. */
  async usageSummary(account: Account, used: number, at = new Date()) {
    const period = periodOf(at);
    const limits = this.limitsOf(account);
    const byTool = await this.#db
      .selectFrom('usage_counters')
      .select((eb) => ['operation_id', eb.fn.sum<number>('calls').as('calls'), eb.fn.sum<number>('failures').as('failures'), eb.fn.sum<number>('credits').as('credits')])
      .where('account_id', '=', account.id)
      .where('period', '=', period)
      .groupBy('operation_id')
      .orderBy('operation_id')
      .execute();
    const byKey = await this.#db
      .selectFrom('usage_counters')
      .leftJoin('api_keys', 'api_keys.id', 'usage_counters.key_id')
      .select((eb) => [
        'usage_counters.key_id',
        'api_keys.name',
        eb.fn.sum<number>('usage_counters.calls').as('calls'),
        eb.fn.sum<number>('usage_counters.failures').as('failures'),
        eb.fn.sum<number>('usage_counters.credits').as('credits'),
      ])
      .where('usage_counters.account_id', '=', account.id)
      .where('usage_counters.period', '=', period)
      .groupBy(['usage_counters.key_id', 'api_keys.name'])
      .orderBy('usage_counters.key_id')
      .execute();
    return {
      period,
      plan: limits.plan.id,
      quota: limits.monthlyCredits,
      used,
      remaining: Math.max(0, limits.monthlyCredits - used),
      resetAt: periodResetAt(at).toISOString(),
      requestsPerMinute: limits.requestsPerMinute,
      byTool: byTool.map((r) => ({ operationId: r.operation_id, calls: Number(r.calls), failures: Number(r.failures), credits: Number(r.credits ?? 0) })),
      byKey: byKey.map((r) => ({ keyId: r.key_id, name: r.name ?? null, calls: Number(r.calls), failures: Number(r.failures), credits: Number(r.credits ?? 0) })),
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
