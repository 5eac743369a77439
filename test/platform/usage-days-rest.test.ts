// Per-day usage and keys' last use over REST: calls made over the API (the real invoke path) with
// the recorder's clock on two days of this month, then GET /api/v1/usage's `days` and
// GET /api/v1/api-keys's `lastUsedAt` read back with exact figures, with no flush by the test: the
// routes write this process's counts first (USAGE_FLUSH_MS is its maximum, 10 minutes, here, so no timer does it).
// Another account's figures stay its own. In test/platform, so the PostgreSQL pass runs it too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { periodOf } from '../../src/accounts/periods.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const CONVERT = '/api/v1/unit-conversions/mass-converter';
const PASSWORD = 'a long passphrase for tests';

interface KeyView {
  keyId: string;
  name: string;
  lastUsedAt: string | null;
}

describe('GET /api/v1/usage days and GET /api/v1/api-keys lastUsedAt', () => {
  let t: TestApp;
  let each: number;
  before(async () => {
    t = await startTestApp({ env: { USAGE_FLUSH_MS: '600000' } });
    each = t.services.catalog.get('unit_conversions_mass_converter')?.credits ?? 0;
    assert.ok(each > 0, 'the conversion costs credits');
  });
  after(() => t.close());

  /** `n` conversions counted at `at` (200 each, or 400 for `refused`), the clock put back after. */
  async function callsAt(at: Date, apiKey: string, n: number, refused = false): Promise<void> {
    t.services.usage.clock = () => at;
    try {
      for (let i = 0; i < n; i++) {
        const res = await t.call(CONVERT, { value: i + 1, from: 'kg', to: refused ? 'parsec' : 'lb' }, apiKey);
        assert.equal(res.statusCode, refused ? 400 : 200, res.body);
      }
    } finally {
      t.services.usage.clock = () => new Date();
    }
  }

  async function get(url: string, apiKey: string) {
    const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().result;
  }

  const lastUse = async (apiKey: string): Promise<Record<string, string | null>> =>
    Object.fromEntries(((await get('/api/v1/api-keys', apiKey)).keys as KeyView[]).map((k) => [k.name, k.lastUsedAt]));

  it('lists the days with calls and each key’s last call, this process’s calls included without a flush', async () => {
    const { apiKey, keyId } = await t.account();
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { 'x-api-key': apiKey }, payload: { name: 'second' } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().result.lastUsedAt, null, 'a new key was never used');
    const second = created.json().result as { keyId: string; apiKey: string };
    const otherEmail = `other-${Date.now()}@example.com`;
    const other = { ...(await t.account({ email: otherEmail, password: PASSWORD })), email: otherEmail };

    assert.deepEqual(await lastUse(apiKey), { default: null, second: null });
    assert.deepEqual((await get('/api/v1/usage', apiKey)).days, []);

    const period = periodOf(new Date());
    const first = `${period}-01`;
    const next = `${period}-02`;
    await callsAt(new Date(`${first}T08:00:00.000Z`), apiKey, 2);
    await callsAt(new Date(`${first}T08:30:00.000Z`), apiKey, 1, true);
    await callsAt(new Date(`${next}T10:15:00.000Z`), apiKey, 1);
    await callsAt(new Date(`${next}T23:59:59.000Z`), second.apiKey, 3);
    await callsAt(new Date(`${next}T12:00:00.000Z`), other.apiKey, 1);

    const usage = await get('/api/v1/usage', apiKey);
    assert.equal(usage.period, period);
    assert.deepEqual(usage.days, [
      { day: first, calls: 3, failures: 1, credits: 2 * each },
      { day: next, calls: 4, failures: 0, credits: 4 * each },
    ]);
    // The days add up to the month's figures per key (and to what was charged).
    assert.equal(usage.used, 6 * each);
    const byKey = Object.fromEntries((usage.byKey as { keyId: string; calls: number; failures: number; credits: number }[]).map((k) => [k.keyId, [k.calls, k.failures, k.credits]]));
    assert.deepEqual(byKey, { [keyId]: [4, 1, 3 * each], [second.keyId]: [3, 0, 3 * each] });

    assert.deepEqual(await lastUse(apiKey), { default: `${next}T10:15:00.000Z`, second: `${next}T23:59:59.000Z` });

    // Another account: only its own call, on its own day; its keys listed with the password too.
    assert.deepEqual((await get('/api/v1/usage', other.apiKey)).days, [{ day: next, calls: 1, failures: 0, credits: each }]);
    assert.deepEqual(await lastUse(other.apiKey), { default: `${next}T12:00:00.000Z` });
    const basic = `Basic ${Buffer.from(`${other.email}:${PASSWORD}`).toString('base64')}`;
    const byPassword = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: { authorization: basic } });
    assert.equal(byPassword.statusCode, 200, byPassword.body);
    assert.deepEqual(
      (byPassword.json().result.keys as KeyView[]).map((k) => [k.name, k.lastUsedAt]),
      [['default', `${next}T12:00:00.000Z`]],
    );
  });

  it('keeps a later last use when an earlier call is counted after it, and adds to a day already written', async () => {
    const { apiKey } = await t.account();
    const period = periodOf(new Date());
    const late = `${period}-02T12:00:00.000Z`;
    await callsAt(new Date(late), apiKey, 1);
    assert.deepEqual(await lastUse(apiKey), { default: late });
    await callsAt(new Date(`${period}-02T09:00:00.000Z`), apiKey, 2);
    assert.deepEqual(await lastUse(apiKey), { default: late }, 'an earlier call leaves the later time');
    assert.deepEqual((await get('/api/v1/usage', apiKey)).days, [{ day: `${period}-02`, calls: 3, failures: 0, credits: 3 * each }]);
  });

  it('describes both fields in /openapi.json', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const result = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema.properties.result;
    const day = result('/api/v1/usage').properties.days;
    assert.equal(day.type, 'array');
    assert.equal(day.maxItems, 31);
    assert.deepEqual(day.items.required, ['day', 'calls', 'failures', 'credits']);
    const key = result('/api/v1/api-keys').properties.keys.items;
    assert.ok(key.required.includes('lastUsedAt'));
    assert.deepEqual(key.properties.lastUsedAt.type, ['string', 'null']);
  });
});
