// The callers cache of the metered call's hot path (a secret to its key and account without a
// query while nothing changed) and the one query that fills it. AccountStore owns one and calls it;
// it lives here (the 400-line rule) because its validity rules are a concern of their own.
import type { Db } from '../db/database.ts';
import { rowToAccount, rowToKey, type Caller } from './account-records.ts';
import { constantTimeEqual, hashSecret } from './secrets.ts';

export class CallerCache {
  readonly #changeCounter: () => number;
  /**
   * Callers by secret hash. Valid while no other connection has committed (SQLite's
   * data_version) and this store has not changed a key or account itself, so a revoke from the
   * CLI or another process is seen on the very next call.
   */
  readonly #callers = new Map<string, Caller>();
  // NaN equals nothing: the first call reads the database.
  #version = Number.NaN;
  /** Bumped whenever this store changes a key or account: a lookup in flight across a bump is not cached. */
  #generation = 0;
  // The same few keys call again and again; their hashes are remembered (bounded) rather than recomputed.
  readonly #hashes = new Map<string, string>();

  constructor(changeCounter: () => number) {
    this.#changeCounter = changeCounter;
  }

  /** Drops every cached caller: the store changed a key or account. */
  forget(): void {
    this.#callers.clear();
    this.#generation++;
  }

  hashOf(secret: string): string {
    let hash = this.#hashes.get(secret);
    if (hash === undefined) {
      if (this.#hashes.size >= 10_000) this.#hashes.clear();
      hash = hashSecret(secret);
      this.#hashes.set(secret, hash);
    }
    return hash;
  }

  /**
   * The caller for `secret` when it is cached and nothing in the database changed since, without
   * a query or a promise: the hot path of every metered call. Otherwise undefined (use findCaller).
   */
  cached(secret: string): Caller | undefined {
    const version = this.#changeCounter();
    if (version !== this.#version || this.#callers.size > 10_000) {
      this.#callers.clear();
      this.#version = version;
      return undefined;
    }
    return this.#callers.get(this.hashOf(secret));
  }

  /** The cached caller, else `read`'s answer for the secret's hash, cached when nothing moved meanwhile. */
  async find(secret: string, read: (hash: string) => Promise<Caller | undefined>): Promise<Caller | undefined> {
    const cached = this.cached(secret);
    if (cached) return cached;
    // What the cache was valid for when the lookup began: data_version (just read by cached) and this store's generation.
    const version = this.#version;
    const generation = this.#generation;
    const hash = this.hashOf(secret);
    const caller = await read(hash);
    if (caller === undefined) return undefined;
    // Cached only if nothing moved while the query waited its turn: a newer data_version seen by
    // another call, or a write of this store, may have come after the row was read.
    if (this.#version === version && this.#generation === generation) this.#callers.set(hash, caller);
    return caller;
  }
}

/** The key whose secret hashes to `hash`, with its account. Revoked keys resolve too, so the caller can say why they fail. */
export async function readCaller(db: Db, hash: string): Promise<Caller | undefined> {
  const row = await db
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
  return {
    account: rowToAccount(row),
    key: rowToKey({ ...row, id: row.key_id, account_id: row.id, created_at: row.key_created_at }),
  };
}
