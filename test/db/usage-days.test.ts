// Usage per day and keys' last use, at the store: calls made over the API (the real invoke path)
// with the recorder's clock set to two days of this month land in usage_days per key and day,
// usage_counters still holds one row per key, tool and month, and api_keys.last_used_at is the
// latest call's time and never moves back. The prune keeps 400 days. In test/db so that the
// PostgreSQL pass runs it too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dayOf, pruneUsageDays, USAGE_DAYS_KEPT } from '../../src/accounts/activity-store.ts';
import { periodOf } from '../../src/accounts/periods.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const CONVERT = '/api/v1/unit-conversions/mass-converter';

/** By day, then key id as code points (not the database's collation). */
const byDayAndKey = (x: { day: string; key: string }, y: { day: string; key: string }): number =>
  x.day < y.day ? -1 : x.day > y.day ? 1 : x.key < y.key ? -1 : x.key > y.key ? 1 : 0;

describe('usage per day and last use', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** Makes `n` calls with the recorder's clock at `at` (answers: 200 each, or 400 for `bad`), then puts the clock back. */
  async function callsAt(at: Date, apiKey: string, n: number, bad = false): Promise<void> {
    t.services.usage.clock = () => at;
    try {
      for (let i = 0; i < n; i++) {
        const res = await t.call(CONVERT, { value: i + 1, from: 'kg', to: bad ? 'parsec' : 'lb' }, apiKey);
        assert.equal(res.statusCode, bad ? 400 : 200, res.body);
      }
    } finally {
      t.services.usage.clock = () => new Date();
    }
  }

  async function dayRows(accountId: string) {
    const rows = await t.services.db.selectFrom('usage_days').selectAll().where('account_id', '=', accountId).execute();
    return rows.map((r) => ({ key: r.key_id, day: r.day, calls: Number(r.calls), failures: Number(r.failures), credits: Number(r.credits) })).sort(byDayAndKey);
  }

  async function lastUsed(keyId: string): Promise<string | null> {
    const row = await t.services.db.selectFrom('api_keys').select('last_used_at').where('id', '=', keyId).executeTakeFirstOrThrow();
    return row.last_used_at;
  }

  it('counts calls per key and UTC day in one flush, keeps usage_counters monthly, and stamps each key with its latest call', async () => {
    const { accountId, apiKey, keyId } = await t.account();
    const second = await t.services.accounts.createKey({ accountId, name: 'second' });
    const period = periodOf(new Date());
    const first = new Date(`${period}-01T08:00:00.000Z`);
    const next = new Date(`${period}-02T23:59:59.000Z`);
    await callsAt(first, apiKey, 2);
    await callsAt(first, apiKey, 1, true);
    await callsAt(next, apiKey, 1);
    await callsAt(next, second.secret, 3);
    await t.services.usage.flush();

    const credits = (await t.services.accounts.usageSummary((await t.services.accounts.getAccount(accountId))!, 0)).byTool.find((r) => r.operationId === 'unit_conversions_mass_converter');
    assert.ok(credits && credits.credits > 0, 'the tool costs credits');
    const each = credits.credits / 6; // six successful calls; the refused one costs nothing
    const expected = [
      { key: keyId, day: `${period}-01`, calls: 3, failures: 1, credits: 2 * each },
      { key: keyId, day: `${period}-02`, calls: 1, failures: 0, credits: each },
      { key: second.key.id, day: `${period}-02`, calls: 3, failures: 0, credits: 3 * each },
    ].sort(byDayAndKey);
    assert.deepEqual(await dayRows(accountId), expected);

    const counters = await t.services.db.selectFrom('usage_counters').selectAll().where('account_id', '=', accountId).execute();
    assert.deepEqual(
      counters.map((c) => [c.key_id, c.period, Number(c.calls)]).sort(),
      [
        [keyId, period, 4],
        [second.key.id, period, 3],
      ].sort(),
      'one counter per key, tool and month, as before',
    );
    assert.equal(await lastUsed(keyId), next.toISOString());
    assert.equal(await lastUsed(second.key.id), next.toISOString());
  });

  it('never moves a last use back, and adds to an existing day row', async () => {
    const { accountId, apiKey, keyId } = await t.account();
    const period = periodOf(new Date());
    const late = new Date(`${period}-02T12:00:00.000Z`);
    await callsAt(late, apiKey, 1);
    await t.services.usage.flush();
    await callsAt(new Date(`${period}-02T09:00:00.000Z`), apiKey, 2);
    await t.services.usage.flush();
    assert.equal(await lastUsed(keyId), late.toISOString(), 'an earlier call leaves the later time');
    const rows = await dayRows(accountId);
    assert.deepEqual(
      rows.map((r) => [r.day, r.calls]),
      [[`${period}-02`, 3]],
    );
    assert.equal((await t.services.accounts.getKey(keyId))?.lastUsedAt, late.toISOString(), 'the key as listed carries it');
    const summed = await t.services.accounts.usageDays(accountId, `${period}-01`, `${period}-31`);
    assert.deepEqual(
      summed.map((d) => [d.day, d.calls, d.failures]),
      [[`${period}-02`, 3, 0]],
    );
  });

  it(`prunes days older than ${USAGE_DAYS_KEPT} days and keeps the rest`, async () => {
    const { accountId, keyId } = await t.account();
    const now = new Date('2026-06-15T10:00:00.000Z');
    const day = (daysAgo: number) => dayOf(new Date(now.getTime() - daysAgo * 86_400_000));
    const ages = [0, 1, USAGE_DAYS_KEPT, USAGE_DAYS_KEPT + 1, 900];
    await t.services.db
      .insertInto('usage_days')
      .values(ages.map((age) => ({ account_id: accountId, key_id: keyId, day: day(age), calls: 1, failures: 0, credits: 1 })))
      .execute();
    await pruneUsageDays(t.services.db, now);
    assert.deepEqual(
      (await dayRows(accountId)).map((r) => r.day),
      [day(USAGE_DAYS_KEPT), day(1), day(0)],
    );
  });
});
