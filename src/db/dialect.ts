// Everything that differs between the embedded SQLite and PostgreSQL, in one place: column types
// for the migrations, the few SQL functions whose names differ, row locks, and retrying a
// transaction PostgreSQL aborted to break a deadlock. Stores call these instead of testing the
// dialect themselves.
import { PostgresAdapter, sql, type ColumnDataType, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** The dialect a Kysely instance (or a transaction of one) speaks. */
export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Column types for the migrations. SQLite gets exactly the types it always had, so databases
 * created before PostgreSQL was supported migrate on unchanged.
 */
export interface ColumnTypes {
  /** An integer primary key the database numbers: SQLite's `integer ... autoincrement`, PostgreSQL's serial. */
  autoId: { type: ColumnDataType; autoIncrement: boolean };
  /** Milliseconds since the epoch: 2^31 ms is under 25 days, so PostgreSQL needs bigint (read back as numbers, see database.ts). */
  epochMs: ColumnDataType;
  /** A flag stored as 0 or 1 on both (the stores compare with 1), not PostgreSQL's boolean. */
  flag: ColumnDataType;
  /** Raw bytes. */
  bytes: ColumnDataType;
}

export function columnTypes(db: Kysely<any>): ColumnTypes {
  return dialectOf(db) === 'postgres'
    ? { autoId: { type: 'serial', autoIncrement: false }, epochMs: 'bigint', flag: 'integer', bytes: 'bytea' }
    : { autoId: { type: 'integer', autoIncrement: true }, epochMs: 'integer', flag: 'integer', bytes: 'blob' };
}

/**
 * Whether `needle` occurs in `haystack`, matched as written (no LIKE wildcards to escape):
 * SQLite's instr, PostgreSQL's strpos.
 */
export function containsText<DB, TB extends keyof DB>(db: Kysely<any>, eb: ExpressionBuilder<DB, TB>, haystack: Expression<string>, needle: string): Expression<boolean> {
  const position = dialectOf(db) === 'postgres' ? 'strpos' : 'instr';
  return eb(eb.fn<number>(position, [haystack, eb.val(needle)]), '>', 0) as Expression<boolean>;
}

/** `value - credits`, never below 0 (SQLite's two-argument max and PostgreSQL's greatest differ; a case is both). */
export function minusFloorZero(column: string, amount: number): RawBuilder<number> {
  return sql<number>`case when ${sql.ref(column)} > ${amount} then ${sql.ref(column)} - ${amount} else 0 end`;
}

/**
 * Locks the selected rows until the transaction ends (PostgreSQL's FOR UPDATE). SQLite has no
 * row locks and needs none: its one writer at a time already serialises the read-then-write
 * (the stores' transactions begin with a write, or run on the single connection).
 */
export function forUpdate<DB, TB extends keyof DB, O>(db: Kysely<any>, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate() : query;
}

/**
 * Runs `work` holding the account's row locked (PostgreSQL: a transaction and SELECT ... FOR
 * UPDATE), so that read-then-write checks per account (a count before an insert) do not pass
 * together on two connections. SQLite runs `work` as it is: a single statement there already
 * runs alone, and a read opening a deferred transaction would only risk SQLITE_BUSY_SNAPSHOT
 * against another process.
 */
export async function withAccountLocked<DB extends { accounts: { id: string } }, T>(db: Kysely<DB>, accountId: string, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'postgres') return work(db);
  return db.transaction().execute(async (trx) => {
    await sql`select id from accounts where id = ${accountId} for update`.execute(trx);
    return work(trx);
  });
}

/** Runs `work` in a transaction, or in the one `db` already is (as withAccountLocked's work gets on PostgreSQL). */
export function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

// deadlock_detected and serialization_failure: PostgreSQL rolled the transaction back whole, so
// running it again is safe for a callback that only talks to the database.
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Runs `work` in a transaction, again (up to `attempts` times) when PostgreSQL aborted it to
 * break a deadlock. The stores take their locks in one order (credit_periods, then usage
 * counters, then leases) so a deadlock should not happen; this is the safety net. `work` must
 * not change memory before it commits, since it may run twice.
 */
export async function transactionWithRetry<DB, T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= attempts || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
    }
  }
}
