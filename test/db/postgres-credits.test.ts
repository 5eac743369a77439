// Credits on PostgreSQL with two "nodes": two Kysely instances, each over its own pg pool, on
// one database, so charges race on real parallel connections under READ COMMITTED (SQLite's one
// writer at a time hid such races). Needs the PostgreSQL binaries (setup installs them).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AccountStore } from '../../src/accounts/account-store.ts';
import { CreditLedger } from '../../src/accounts/credit-ledger.ts';
import { retireLeaseHolder } from '../../src/accounts/lease-holder.ts';
import { periodOf } from '../../src/accounts/periods.ts';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/database.ts';
import { dialectOf } from '../../src/db/dialect.ts';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';

describe('credits on PostgreSQL across two nodes', () => {
  let cluster: PostgresCluster;
  let nodeA: Db;
  let nodeB: Db;
  let accountsA: AccountStore;
  let accountsB: AccountStore;
  const ledgers: CreditLedger[] = [];

  before(async () => {
    cluster = await startPostgresCluster();
    const url = await cluster.createDatabase();
    nodeA = openDatabase(url);
    nodeB = openDatabase(url);
    // Both nodes migrate at once, as two servers starting together do: the migrator's lock lets one run them.
    await Promise.all([migrateToLatest(nodeA), migrateToLatest(nodeB)]);
    accountsA = new AccountStore(nodeA);
    accountsB = new AccountStore(nodeB);
  });
  after(async () => {
    for (const ledger of ledgers) await ledger.close();
    await nodeA?.destroy();
    await nodeB?.destroy();
    await cluster?.stop();
  });

  function ledger(accounts: AccountStore, db: Db): CreditLedger {
    const created = new CreditLedger(accounts, db);
    ledgers.push(created);
    return created;
  }

  async function account(quota: number): Promise<string> {
    const created = await accountsA.createAccount({ email: `race-${quota}-${Math.random()}@example.com`, verified: true, quota });
    return created.id;
  }

  async function ledgerState(accountId: string) {
    const used = await nodeA.selectFrom('credit_periods').select('used').where('account_id', '=', accountId).where('period', '=', periodOf(new Date())).executeTakeFirst();
    const leases = await nodeA.selectFrom('credit_leases').select(['granted', 'spent']).where('account_id', '=', accountId).execute();
    return { used: used?.used ?? 0, leases };
  }

  it('runs on PostgreSQL, with int8 read back as numbers', async () => {
    assert.equal(dialectOf(nodeA), 'postgres');
    const row = await nodeA.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(typeof row.n, 'number');
  });

  it('200 charges on two ledgers racing 7 credits spend exactly 7', async () => {
    const accountId = await account(7);
    const a = ledger(accountsA, nodeA);
    const b = ledger(accountsB, nodeB);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).charge(accountId, 1, 7)));
    assert.equal(answers.filter((r) => r.charged).length, 7);
    for (const [i, answer] of answers.entries()) if (answer.charged) (i % 2 === 0 ? a : b).settle(accountId, 1);
    await Promise.all([a.flush(), b.flush()]);
    assert.deepEqual(await ledgerState(accountId), { used: 7, leases: [] });
  });

  it('200 direct charges on two stores racing 7 credits spend exactly 7', async () => {
    const accountId = await account(7);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? accountsA : accountsB).charge(accountId, 1, 7)));
    assert.equal(answers.filter((r) => r.charged).length, 7);
    assert.equal((await ledgerState(accountId)).used, 7);
  });

  it("a dead holder's lease is returned once, by whichever node reclaims first", async () => {
    const accountId = await account(10_000);
    const dying = ledger(accountsA, nodeA);
    for (let i = 0; i < 5; i++) assert.equal((await dying.charge(accountId, 1, 10_000)).charged, true);
    // Three calls finished and were flushed with the lease; two were still running at the crash.
    for (let i = 0; i < 3; i++) dying.settle(accountId, 1);
    await dying.checkpoint();
    const before = await ledgerState(accountId);
    assert.equal(before.leases.length, 1);
    assert.equal(before.leases[0]!.spent, 3);
    assert.ok(before.leases[0]!.granted > 5, `a block was leased: ${before.leases[0]!.granted}`);
    assert.equal(before.used, before.leases[0]!.granted);

    // The node dies without a goodbye: its ledger is never closed, and its holder is no longer alive.
    ledgers.splice(ledgers.indexOf(dying), 1);
    retireLeaseHolder(dying.holder);
    const [byA, byB] = await Promise.all([ledger(accountsA, nodeA).reclaimDead(Date.now(), true), ledger(accountsB, nodeB).reclaimDead(Date.now(), true)]);
    assert.equal(byA + byB, before.leases[0]!.granted - 3, `reclaimed ${byA} + ${byB}`);
    assert.deepEqual(await ledgerState(accountId), { used: 3, leases: [] });
  });
});
