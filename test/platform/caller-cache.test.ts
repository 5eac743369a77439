// The cached callers of the account store (src/accounts/account-store.ts, freshness from
// changeCounter in src/db/database.ts): every call is authorised with the account's state of that
// moment, whoever changed it: another connection (the CLI, another process) or this process,
// and whatever the app's own connection was doing at the time.
// SQLite only (listed in scripts/test.sh's SQLITE_ONLY, left out of the PostgreSQL pass): this is
// the cache kept fresh by SQLite's PRAGMA data_version and the order of queries on its one
// connection. On PostgreSQL the cache is bypassed and every call reads the database; a key revoked
// or an account changed through another connection is refused on the very next call on both
// databases in accounts.test.ts, mcp-account-state.test.ts and sse-sessions.test.ts.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { sqlitePath } from '../../src/config.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const EMI = '/api/v1/calculators/emi-calculator';
const EMI_BODY = { principal: 100000, rate: 10, tenure: 12 };

describe('cached callers follow every committed change at once', () => {
  let t: TestApp;
  // Another connection, kept open, as the CLI or another process would change the account.
  let other: DatabaseSync;
  const sql = (statement: string, ...params: string[]) => other.prepare(statement).run(...params);
  before(async () => {
    t = await startTestApp();
    other = new DatabaseSync(sqlitePath(t.config.databaseUrl));
  });
  after(async () => {
    other.close();
    await t.close();
  });

  it("another connection's commit is seen by the very next call, every time, however soon after the last", async () => {
    const { apiKey, accountId } = await t.account({ quota: 1000 });
    assert.equal((await t.call(EMI, EMI_BODY, apiKey)).statusCode, 200, 'the caller is cached');
    // Back to back, each call microseconds after the commit before it and the call before that.
    for (let round = 0; round < 40; round++) {
      sql("update accounts set status = 'suspended' where id = ?", accountId);
      const refused = await t.call(EMI, EMI_BODY, apiKey);
      assert.equal(refused.json().error, 'account_inactive', `round ${round}: the suspension`);
      sql("update accounts set status = 'active' where id = ?", accountId);
      const served = await t.call(EMI, EMI_BODY, apiKey);
      assert.equal(served.statusCode, 200, `round ${round}: the reactivation: ${served.body}`);
      sql('update accounts set email_verified_at = null where id = ?', accountId);
      assert.equal((await t.call(EMI, EMI_BODY, apiKey)).json().error, 'email_not_verified', `round ${round}: the un-verification`);
      sql("update accounts set email_verified_at = '2026-01-01T00:00:00.000Z' where id = ?", accountId);
    }
  });

  it("a commit made while the app's connection is inside a transaction is not hidden by that transaction's snapshot", async () => {
    const { apiKey, accountId } = await t.account({ quota: 1000 });
    assert.equal((await t.call(EMI, EMI_BODY, apiKey)).statusCode, 200, 'the caller is cached');
    await t.services.db.transaction().execute(async (trx) => {
      // A read fixes the transaction's snapshot (as the usage writer's transactions do between their awaits).
      await trx.selectFrom('accounts').select('id').where('id', '=', accountId).execute();
      sql("update accounts set status = 'suspended' where id = ?", accountId);
      const cached = t.services.accounts.cachedCaller(apiKey);
      assert.notEqual(cached?.account.status, 'active', 'the active caller of before the commit is not answered');
    });
    assert.equal((await t.call(EMI, EMI_BODY, apiKey)).json().error, 'account_inactive');
  });

  it("a lookup that read the row just before this process's own change is not cached past it", async () => {
    const account = await t.services.accounts.createAccount({ email: `cache-${Date.now()}@example.com`, verified: true, plan: 'pro' });
    const { secret } = await t.services.accounts.createKey({ accountId: account.id });
    let lookup: ReturnType<typeof t.services.accounts.findCaller> | undefined;
    let change: ReturnType<typeof t.services.accounts.setPlan> | undefined;
    // The connection is held (as by any query or transaction in flight): the lookup's query, then
    // the plan's update, queue behind it in that order.
    await t.services.db.connection().execute(async (held) => {
      lookup = t.services.accounts.findCaller(secret);
      await new Promise(setImmediate);
      change = t.services.accounts.setPlan(account.id, 'free');
      await new Promise(setImmediate);
      await held.selectFrom('accounts').select('id').where('id', '=', account.id).execute();
    });
    assert.equal((await lookup)?.account.plan, 'pro', 'the lookup ran before the change');
    assert.equal((await change)?.plan, 'free');
    assert.equal((await t.services.accounts.findCaller(secret))?.account.plan, 'free', 'the next lookup sees the change');
    assert.notEqual(t.services.accounts.cachedCaller(secret)?.account.plan, 'pro');
  });
});
