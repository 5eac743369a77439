// Password-reset links (the dashboard's "Forgot your password?"): a random token mailed to the
// account's address, stored as SHA-256 only (the token has 256 random bits, so a fast hash is
// enough and a leaked table opens nothing), live for an hour, usable once. AccountStore exposes
// these; the new password's scrypt is the store's.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { hashSecret, newToken } from './secrets.ts';

export const PASSWORD_RESET_TTL_MS = 3600_000;

/** What a token is worth now: live (with its account), or why not. */
export type ResetTokenState = { state: 'live'; accountId: string } | { state: 'unknown' | 'expired' | 'used' };

/** A token longer than this is no token of ours (newToken gives 43 characters); it is not even hashed. */
const MAX_TOKEN_LENGTH = 200;

/**
 * A new link for `accountId`, replacing the account's unused ones (only the newest mail works)
 * and forgetting its expired ones. With no account (an unknown e-mail) the same statements run on
 * an id that matches nothing and nothing is inserted: the answer comes after similar work.
 */
export async function createPasswordReset(db: Db, accountId: string | undefined, now: number): Promise<string> {
  const token = newToken();
  const tokenHash = hashSecret(token);
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('password_resets')
      .where('account_id', '=', accountId ?? randomUUID())
      .where((eb) => eb.or([eb('used_at', 'is', null), eb('expires_at', '<=', now)]))
      .execute();
    if (accountId === undefined) return;
    await trx.insertInto('password_resets').values({ token_hash: tokenHash, account_id: accountId, created_at: now, expires_at: now + PASSWORD_RESET_TTL_MS, used_at: null }).execute();
  });
  return token;
}

function stateOf(row: { account_id: string; expires_at: number; used_at: number | null } | undefined, now: number): ResetTokenState {
  if (!row) return { state: 'unknown' };
  if (row.used_at !== null) return { state: 'used' };
  if (Number(row.expires_at) <= now) return { state: 'expired' };
  return { state: 'live', accountId: row.account_id };
}

/** The token's state, changing nothing (the reset page's GET). */
export async function checkPasswordReset(db: Db, token: string, now: number): Promise<ResetTokenState> {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) return { state: 'unknown' };
  const row = await db.selectFrom('password_resets').select(['account_id', 'expires_at', 'used_at']).where('token_hash', '=', hashSecret(token)).executeTakeFirst();
  return stateOf(row, now);
}

/**
 * Uses the token up and sets the account's password (already hashed by the caller) in one
 * transaction. The token is taken by a conditional update, so of two posts of one link only one
 * changes the password; the other gets the token's state ('used'). Opening the link proved the
 * mailbox is the person's, as a verification link does, so an unverified address is verified.
 */
export async function redeemPasswordReset(db: Db, token: string, passwordHash: string, now: number): Promise<ResetTokenState> {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) return { state: 'unknown' };
  const tokenHash = hashSecret(token);
  return db.transaction().execute(async (trx) => {
    const taken = await trx
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('account_id')
      .executeTakeFirst();
    if (!taken) return stateOf(await trx.selectFrom('password_resets').select(['account_id', 'expires_at', 'used_at']).where('token_hash', '=', tokenHash).executeTakeFirst(), now);
    await trx.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', taken.account_id).execute();
    await trx.updateTable('accounts').set({ email_verified_at: new Date(now).toISOString() }).where('id', '=', taken.account_id).where('email_verified_at', 'is', null).execute();
    return { state: 'live', accountId: taken.account_id };
  });
}
