import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Adapts Node's built-in `node:sqlite` to the interface Kysely's SqliteDialect expects (the
 * better-sqlite3 shape), so the embedded database needs no native addon.
 */
export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync;
  /** The database file's path (or ':memory:'), for what reads SQLite's files beside it (change-counter.ts). */
  readonly path: string;
  // Prepared statements are reused: the hot path runs the same few queries on every call.
  readonly #statements = new Map<string, NodeSqliteStatement>();
  readonly #onClose: (() => void)[] = [];

  constructor(path: string) {
    this.path = path;
    this.raw = new DatabaseSync(path);
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      if (this.#statements.size > 500) this.#statements.clear();
      statement = new NodeSqliteStatement(this.raw.prepare(sql));
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `callback` when the database closes: what keeps a descriptor beside it (change-counter.ts) lets it go. */
  whenClosed(callback: () => void): void {
    this.#onClose.push(callback);
  }

  close(): void {
    for (const callback of this.#onClose.splice(0)) callback();
    this.#statements.clear();
    if (this.raw.isOpen) this.raw.close();
  }
}

function toSqlValue(value: unknown): SQLInputValue {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value as SQLInputValue;
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;

  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    this.reader = stmt.columns().length > 0;
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#stmt.all(...parameters.map(toSqlValue));
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#stmt.run(...parameters.map(toSqlValue));
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#stmt.iterate(...parameters.map(toSqlValue)) as IterableIterator<unknown>;
  }
}
