// changeCounter (src/db/database.ts) over SQLite: it moves exactly when another connection (the
// CLI, another process) commits, on the very next call, whether or not this connection wrote in
// between, and across WAL resets and checkpoints.
// SQLite only: listed in scripts/test.sh's SQLITE_ONLY (PostgreSQL has no data_version; there the counter is never equal twice).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { changeCounter, migrateToLatest, openDatabase, type Db } from '../../src/db/database.ts';

describe('changeCounter on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'change-counter-'));
  const path = join(dir, 'db.sqlite');
  let db: Db;
  let other: DatabaseSync;
  let counter: () => number;
  before(async () => {
    db = openDatabase(`sqlite:${path}`);
    await migrateToLatest(db);
    await sql`create table probe (n integer)`.execute(db);
    other = new DatabaseSync(path);
    counter = changeCounter(db);
  });
  after(async () => {
    other.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stays put without commits and after this connection\'s own, moves at once after another connection\'s', async () => {
    const v0 = counter();
    assert.equal(counter(), v0, 'nothing committed');
    await sql`insert into probe values (1)`.execute(db);
    assert.equal(counter(), v0, 'this connection\'s own commit is not another\'s change');
    for (let i = 0; i < 200; i++) {
      const before = counter();
      other.prepare('insert into probe values (?)').run(i);
      const after = counter();
      assert.notEqual(after, before, `commit ${i} by another connection seen by the next call`);
      assert.equal(counter(), after, `and nothing after it (${i})`);
      if (i % 3 === 0) await sql`insert into probe values (-1)`.execute(db);
      assert.equal(counter(), after, `this connection's write between (${i})`);
    }
  });

  it('sees a commit after a checkpoint restarted the WAL', () => {
    const before = counter();
    other.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    other.prepare('insert into probe values (?)').run(7);
    assert.notEqual(counter(), before);
  });
});
