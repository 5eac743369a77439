// The change counter behind the callers cache on SQLite: a number that moves whenever another
// connection (another process, the CLI) commits, read on every metered call. Its own file because
// how it is read cheaply, and why that is safe, is a concern of its own.
import { closeSync, openSync, readSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import type { NodeSqliteDatabase } from './node-sqlite-adapter.ts';

/**
 * SQLite's wal-index header (https://www.sqlite.org/walformat.html, "the WAL-index header"): the
 * first 96 bytes of the `-shm` file are two copies of a 48-byte header that every committing
 * connection rewrites (its iChange counter, mxFrame, salts and checksums all move), the second
 * copy first. SQLite's own readers compare the two copies the same way to see a header that is
 * not being written.
 */
const HEADER_BYTES = 48;
/** isInit: 1 once the wal-index has been built. */
const IS_INIT_OFFSET = 12;

/**
 * A reader of the wal-index header with one pread of a kept-open descriptor. `changedSince`
 * answers false only when both copies are whole, initialised and byte-identical to what the last
 * `remember` saw, which is to say no connection has committed since; anything else (a header being
 * written, a first read, a file that cannot be read) answers true, so the caller asks SQLite.
 */
export class WalIndexHeader {
  readonly #fd: number;
  readonly #read = Buffer.alloc(HEADER_BYTES * 2);
  readonly #seen = Buffer.alloc(HEADER_BYTES);
  #known = false;
  // After close the descriptor's number may belong to another file: never read it again.
  #closed = false;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /** Opens `<database>-shm` read-only; undefined when there is none (not WAL, in memory, exclusive locking). */
  static open(databasePath: string): WalIndexHeader | undefined {
    try {
      return new WalIndexHeader(openSync(`${databasePath}-shm`, 'r'));
    } catch {
      return undefined;
    }
  }

  /** Reads the header; true unless it is whole and the same as the one last remembered. */
  changedSince(): boolean {
    if (this.#closed) return true;
    let bytes: number;
    try {
      bytes = readSync(this.#fd, this.#read, 0, HEADER_BYTES * 2, 0);
    } catch {
      return true;
    }
    const read = this.#read;
    if (bytes < HEADER_BYTES * 2 || read[IS_INIT_OFFSET] !== 1) return true;
    // Torn (a writer between its two copies): not a header to trust, nor to remember.
    if (read.compare(read, 0, HEADER_BYTES, HEADER_BYTES, HEADER_BYTES * 2) !== 0) return true;
    return !this.#known || read.compare(this.#seen, 0, HEADER_BYTES, 0, HEADER_BYTES) !== 0;
  }

  /** Remembers the header just read, when it was whole: call after asking SQLite for the version that goes with it. */
  remember(): void {
    const read = this.#read;
    this.#known = read[IS_INIT_OFFSET] === 1 && read.compare(read, 0, HEADER_BYTES, HEADER_BYTES, HEADER_BYTES * 2) === 0;
    if (this.#known) read.copy(this.#seen, 0, 0, HEADER_BYTES);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}

/**
 * SQLite's data_version for `raw`, read on every call, so a commit by another connection is seen
 * by the very next call: an account suspended or a key revoked elsewhere must not be served a
 * moment longer (an earlier at-most-every-25-ms throttle let a call right after a commit be
 * authorised with the state from before it).
 *
 * The pragma itself opens and closes a WAL read transaction: two fcntl locks, a microsecond on an
 * idle machine but 10 µs and more per call under load on a VM, a sixth of the metered call's CPU
 * (bench/invoke-throughput.bench.ts, profile of 2026-11-28). So the wal-index header is read first
 * (one pread): while it is byte-identical to the one read when the pragma last answered, no
 * connection has committed since, and the pragma's answer cannot have moved. The header is read
 * before the pragma, so a commit landing between the two is seen by the next call (its header
 * differs from the one remembered). Every commit rewrites the header before it returns to its
 * caller, so once the CLI says "revoked", the very next call here asks SQLite.
 *
 * While this connection is inside a transaction the pragma would answer from that transaction's
 * snapshot, blind to later commits, and in a deferred transaction that has not read yet it would
 * start the snapshot itself, so the transaction's first write could fail with SQLITE_BUSY_SNAPSHOT:
 * then it is not read, and a value never answered before is returned instead, which a cache takes
 * for a change.
 */
export function sqliteChangeCounter(database: NodeSqliteDatabase): () => number {
  const { raw, path } = database;
  const statement = raw.prepare('PRAGMA data_version');
  const pragma = () => Number((statement.get() as { data_version: number }).data_version);
  // data_version is positive: these never repeat and never equal it.
  let unknown = 0;
  // Opened on the first call: the -shm file exists once the connection has used the WAL.
  let header: WalIndexHeader | undefined | null = null;
  let version = 0;
  return () => {
    if (raw.isTransaction) return --unknown;
    if (header === null) {
      header = path === ':memory:' || !walMode(raw) ? undefined : WalIndexHeader.open(path);
      const opened = header;
      if (opened) database.whenClosed(() => opened.close());
    }
    if (header === undefined) return pragma();
    if (!header.changedSince()) return version;
    version = pragma();
    header.remember();
    return version;
  };
}

function walMode(raw: DatabaseSync): boolean {
  const row = raw.prepare('PRAGMA journal_mode').get() as { journal_mode?: string } | undefined;
  return row?.journal_mode === 'wal';
}
