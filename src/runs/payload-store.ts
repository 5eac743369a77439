// Results kept for fetch_payload: a result sent by reference (responseMode dataRef) or too large
// to send whole is stored here as JSON text, scoped to its account, until it expires (the
// MCP_PAYLOAD_TTL_MS setting). Large payloads are read back in pages of characters, so no single
// answer carries more than the size bound either. Expired rows are deleted by sweep().
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';

/** A payload larger than this is not kept: the answer says so and carries only its preview. */
export const MAX_PAYLOAD_CHARS = 16 * 1024 * 1024;
/**
 * Characters of stored JSON one fetch_payload answer carries at most. The page travels as a string
 * inside the answer's own JSON, where each quote and backslash is escaped, so 12,000 keeps a page's
 * answer within 24 KB of text whatever it holds: a page an agent reads fits its context window.
 */
export const MAX_PAGE_CHARS = 12_000;

export interface StoredPayload {
  dataRefId: string;
  chars: number;
  expiresAt: string;
}

export type PayloadRead =
  | { kind: 'found'; text: string; offset: number; totalChars: number; nextOffset: number | null; expiresAt: string }
  | { kind: 'not_found' }
  | { kind: 'expired'; expiredAt: string };

/**
 * JSON with every non-ASCII character as a \u escape: still the same JSON value, and one
 * character is one unit for JavaScript and for SQLite's substr alike, so pages cut by offset
 * in the database join back into exactly the stored text.
 */
export function asciiJson(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export class PayloadStore {
  readonly #db: Db;
  readonly #ttlMs: number;

  constructor(db: Db, options: { ttlMs: number }) {
    this.#db = db;
    this.#ttlMs = options.ttlMs;
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** Stores the JSON text of a value; undefined when it is over MAX_PAYLOAD_CHARS. */
  async put(accountId: string, text: string, now: Date = new Date()): Promise<StoredPayload | undefined> {
    const json = asciiJson(text);
    if (json.length > MAX_PAYLOAD_CHARS) return undefined;
    const dataRefId = `ref_${randomUUID().replace(/-/g, '')}`;
    const expiresAt = new Date(now.getTime() + this.#ttlMs).toISOString();
    await this.#db
      .insertInto('payloads')
      .values({ id: dataRefId, account_id: accountId, body: json, chars: json.length, created_at: now.toISOString(), expires_at: expiresAt })
      .execute();
    return { dataRefId, chars: json.length, expiresAt };
  }

  /** One page of the account's payload; another account's is as unknown as a missing one. */
  async read(accountId: string, dataRefId: string, page: { offset?: number | undefined; limit?: number | undefined } = {}, now: Date = new Date()): Promise<PayloadRead> {
    const meta = await this.#db.selectFrom('payloads').select(['chars', 'expires_at']).where('id', '=', dataRefId).where('account_id', '=', accountId).executeTakeFirst();
    if (!meta) return { kind: 'not_found' };
    if (Date.parse(meta.expires_at) <= now.getTime()) return { kind: 'expired', expiredAt: meta.expires_at };
    const offset = Math.min(Math.max(0, page.offset ?? 0), meta.chars);
    const limit = Math.min(Math.max(1, page.limit ?? MAX_PAGE_CHARS), MAX_PAGE_CHARS);
    // substr in SQL: only the page leaves the database, not a 16 MB body per page.
    const row = await this.#db
      .selectFrom('payloads')
      .select((eb) => eb.fn<string>('substr', ['body', eb.val(offset + 1), eb.val(limit)]).as('text'))
      .where('id', '=', dataRefId)
      .executeTakeFirstOrThrow();
    const end = offset + row.text.length;
    return { kind: 'found', text: row.text, offset, totalChars: meta.chars, nextOffset: end < meta.chars ? end : null, expiresAt: meta.expires_at };
  }

  /** Deletes expired payloads; answers how many. */
  async sweep(now: Date = new Date()): Promise<number> {
    const result = await this.#db.deleteFrom('payloads').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
