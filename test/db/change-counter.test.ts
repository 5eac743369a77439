// changeCounter (src/db/database.ts, src/db/change-counter.ts) over SQLite: it moves exactly when
// another connection (the CLI, another process) commits, on the very next call, whether or not this
// connection wrote in between, and across WAL resets and checkpoints; and the wal-index header it
// reads to skip the pragma while nothing was committed.
// SQLite only: listed in scripts/test.sh's SQLITE_ONLY (PostgreSQL has no data_version; there the counter is never equal twice).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { WalIndexHeader } from '../../src/db/change-counter.ts';
import { changeCounter, migrateToLatest, openDatabase, type Db } from '../../src/db/database.ts';

const openFds = () => readdirSync('/proc/self/fd').length;

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

  it('sees a commit by another process (as the CLI makes one) on the very next call', () => {
    for (let i = 0; i < 3; i++) {
      const before = counter();
      assert.equal(counter(), before);
      const script = `const { DatabaseSync } = require('node:sqlite'); const d = new DatabaseSync(process.argv[1]); d.exec('PRAGMA busy_timeout = 5000'); d.prepare('insert into probe values (?)').run(${i}); d.close();`;
      execFileSync(process.execPath, ['-e', script, path], { stdio: 'inherit' });
      assert.notEqual(counter(), before, `the child's commit ${i} is seen`);
    }
  });
});

describe('WalIndexHeader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wal-index-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers unchanged only for the header it remembered, whoever commits', () => {
    const path = join(dir, 'real.sqlite');
    const mine = new DatabaseSync(path);
    mine.exec('PRAGMA journal_mode = WAL; create table t (n integer)');
    const other = new DatabaseSync(path);
    const header = WalIndexHeader.open(path);
    assert.ok(header, 'a WAL database has its -shm file');
    try {
      assert.equal(header.changedSince(), true, 'nothing remembered yet');
      header.remember();
      for (let i = 0; i < 50; i++) {
        assert.equal(header.changedSince(), false, `no commit (${i})`);
        (i % 2 === 0 ? other : mine).prepare('insert into t values (?)').run(i);
        assert.equal(header.changedSince(), true, `commit ${i} rewrote the header`);
        header.remember();
      }
      other.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      header.remember();
      other.prepare('insert into t values (?)').run(-1);
      assert.equal(header.changedSince(), true, 'the first commit after the WAL restarted');
    } finally {
      header.close();
      other.close();
      mine.close();
    }
  });

  it('never trusts a header whose two copies differ or that is not initialised', () => {
    const path = join(dir, 'crafted.sqlite');
    const copy = Buffer.alloc(48, 7);
    copy[12] = 1;
    const torn = Buffer.from(copy);
    torn[8] = 9;
    writeFileSync(`${path}-shm`, Buffer.concat([copy, torn]));
    const header = WalIndexHeader.open(path);
    assert.ok(header);
    try {
      assert.equal(header.changedSince(), true, 'nothing remembered yet');
      header.remember();
      assert.equal(header.changedSince(), true, 'a torn header is not remembered');
      writeFileSync(`${path}-shm`, Buffer.concat([copy, copy]));
      assert.equal(header.changedSince(), true, 'not the one remembered');
      header.remember();
      assert.equal(header.changedSince(), false, 'a whole one is');
      const uninitialised = Buffer.from(copy);
      uninitialised[12] = 0;
      writeFileSync(`${path}-shm`, Buffer.concat([uninitialised, uninitialised]));
      assert.equal(header.changedSince(), true, 'isInit 0: ask SQLite');
      writeFileSync(`${path}-shm`, Buffer.alloc(10));
      assert.equal(header.changedSince(), true, 'a short file: ask SQLite');
      header.close();
      assert.equal(header.changedSince(), true, 'closed: never read again, ask SQLite');
    } finally {
      header.close();
    }
    assert.equal(WalIndexHeader.open(join(dir, 'none.sqlite')), undefined, 'no -shm file: no header');
  });

  it('lets its descriptor go when the database closes', async () => {
    const before = openFds();
    const db = openDatabase(`sqlite:${join(dir, 'closing.sqlite')}`);
    await migrateToLatest(db);
    const count = changeCounter(db);
    count();
    assert.ok(openFds() > before);
    await db.destroy();
    assert.equal(openFds(), before, 'the database file, its WAL, its -shm and the header descriptor all closed');
  });
});

