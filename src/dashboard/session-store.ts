import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { hashSecret } from '../accounts/secrets.ts';

/** How long a dashboard session lives (config: DASHBOARD_SESSION_IDLE_MINUTES, DASHBOARD_SESSION_MAX_HOURS). */
export interface SessionLimits {
  /** ended when no request came for this long */
  idleMs: number;
  /** ended this long after sign-in, however busy */
  maxMs: number;
}

export interface DashboardSession {
  accountId: string;
  /** the token every state-changing request of this session carries (csrf.ts) */
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

/**
 * last_seen_at is written at most this often per session: a write per page view would make every
 * read a write (and on SQLite take the one writer's lock), while a minute is nothing next to an
 * idle limit counted in tens of minutes.
 */
export const LAST_SEEN_WRITE_MS = 60_000;

/** A fresh session id: 32 random bytes, base64url (the cookie's value). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Dashboard sessions, server-side in the database (so any node serves them). Only SHA-256 of the
 * cookie's id is stored: the id has 256 random bits, so a fast hash is enough, and a leaked table
 * gives no cookie that works. Every method takes `now` (ms) so expiry is testable without waiting.
 */
export class SessionStore {
  readonly #db: Db;
  readonly #limits: SessionLimits;

  constructor(db: Db, limits: SessionLimits) {
    this.#db = db;
    this.#limits = limits;
  }

  get limits(): SessionLimits {
    return this.#limits;
  }

  /**
   * Starts a session for `accountId` with a new id (every sign-in gets one: an id planted in the
   * browser before sign-in is never promoted). `replacing`, the id the browser sent, is ended.
   */
  async create(accountId: string, options: { replacing?: string | undefined } = {}, now = Date.now()): Promise<{ id: string; session: DashboardSession }> {
    if (options.replacing) await this.delete(options.replacing);
    const id = newSessionId();
    const session: DashboardSession = { accountId, csrfToken: randomBytes(32).toString('base64url'), createdAt: now, lastSeenAt: now };
    await this.#db
      .insertInto('dashboard_sessions')
      .values({ id_hash: hashSecret(id), account_id: accountId, csrf_token: session.csrfToken, created_at: now, last_seen_at: now })
      .execute();
    return { id, session };
  }

  /**
   * The live session for a cookie's id, or undefined when there is none or it expired (an
   * expired row is deleted on the spot). Marks the session seen, at most once a minute.
   */
  async find(id: string, now = Date.now()): Promise<DashboardSession | undefined> {
    if (id.length === 0 || id.length > 100) return undefined;
    const idHash = hashSecret(id);
    const row = await this.#db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    if (!row) return undefined;
    if (this.#expired(row.created_at, row.last_seen_at, now)) {
      await this.#db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
      return undefined;
    }
    let lastSeenAt = row.last_seen_at;
    if (now - lastSeenAt >= LAST_SEEN_WRITE_MS) {
      lastSeenAt = now;
      await this.#db.updateTable('dashboard_sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
    }
    return { accountId: row.account_id, csrfToken: row.csrf_token, createdAt: row.created_at, lastSeenAt };
  }

  /** Ends a session (sign-out, or the id a new sign-in replaces). */
  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom('dashboard_sessions').where('id_hash', '=', hashSecret(id)).execute();
  }

  /** Ends every session of an account (a password reset: a session opened with the old password must not outlive it). Returns how many went. */
  async deleteForAccount(accountId: string): Promise<number> {
    const result = await this.#db.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Deletes the expired rows; find() already refuses them, this keeps the table small. Returns how many went. */
  async sweep(now = Date.now()): Promise<number> {
    const result = await this.#db
      .deleteFrom('dashboard_sessions')
      .where((eb) => eb.or([eb('last_seen_at', '<=', now - this.#limits.idleMs), eb('created_at', '<=', now - this.#limits.maxMs)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  #expired(createdAt: number, lastSeenAt: number, now: number): boolean {
    return now - lastSeenAt >= this.#limits.idleMs || now - createdAt >= this.#limits.maxMs;
  }
}
