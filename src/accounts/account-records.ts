// The shapes the account store hands out and takes in, and the row mappers that build them: kept
// apart from AccountStore (the 400-line rule) because some fifty files use these types while only
// a few need the store itself, and the caller cache (caller-cache.ts) maps rows the same way.
import type { Plan } from './plans.ts';
import type { KeyScope } from './key-scope.ts';

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

export function rowToAccount(row: {
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

export function rowToKey(row: {
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

/** The form of an e-mail as accounts.email stores it: look-ups and limits key on it. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
