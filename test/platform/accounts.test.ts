import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onOtherConnection, updateAccount } from '../support/other-connection.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const EMI = '/api/v1/calculators/emi-calculator';
const EMI_BODY = { principal: 100000, rate: 10, tenure: 12 };
const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

describe('accounts and API keys', () => {
  let t: TestApp;
  before(async () => {
    // Several sign-ups come from the one inject address here; the limit itself is test/security/unauth-limits.test.ts's.
    t = await startTestApp({ env: { SIGNUP_PER_HOUR: '100' } });
  });
  after(() => t.close());

  async function signup(email: string, password: string) {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/accounts', payload: { email, password } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().result as { accountId: string; emailVerified: boolean };
  }

  function verificationLink(email: string): string {
    const outbox = join(t.dataDir, 'outbox');
    const file = readdirSync(outbox).find((f) => f.endsWith(`${email}.eml`));
    assert.ok(file, 'a message in the outbox');
    const match = /http:\/\/localhost:8080(\/api\/v1\/accounts\/verify\?token=[A-Za-z0-9_%-]+)/.exec(readFileSync(join(outbox, file), 'utf8'));
    assert.ok(match?.[1], 'the message holds the verification link');
    return match[1];
  }

  it('signs up, verifies the e-mail by the link, creates a key with the password, and calls a tool', async () => {
    const account = await signup('Alice@Example.com', 'correct horse battery');
    assert.equal(account.emailVerified, false);

    const created = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { authorization: basic('alice@example.com', 'correct horse battery') }, payload: { name: 'laptop' } });
    assert.equal(created.statusCode, 201, created.body);
    const { apiKey, keyId } = created.json().result;
    assert.match(apiKey, /^uts_live_[A-Za-z0-9_-]{32}$/);

    const unverified = await t.call(EMI, EMI_BODY, apiKey);
    assert.equal(unverified.statusCode, 403);
    assert.equal(unverified.json().error, 'email_not_verified');

    const verified = await t.app.inject({ method: 'GET', url: verificationLink('alice@example.com') });
    assert.equal(verified.statusCode, 200, verified.body);
    assert.equal(verified.json().result.emailVerified, true);

    const ok = await t.call(EMI, EMI_BODY, apiKey);
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().result.emi, 8791.59);

    const reuse = await t.app.inject({ method: 'GET', url: verificationLink('alice@example.com') });
    assert.equal(reuse.statusCode, 400);
    assert.equal(reuse.json().error, 'invalid_token');

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: { authorization: basic('alice@example.com', 'correct horse battery') } });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json().result.keys.map((k: { keyId: string }) => k.keyId), [keyId]);
    assert.ok(!list.body.includes(apiKey), 'a listing never shows a secret');
  });

  it('rejects a duplicate e-mail, a short password and a bad e-mail', async () => {
    await signup('bob@example.com', 'long enough password');
    const dup = await t.app.inject({ method: 'POST', url: '/api/v1/accounts', payload: { email: 'BOB@example.com', password: 'another password' } });
    assert.equal(dup.statusCode, 409);
    assert.equal(dup.json().error, 'email_taken');
    const bad = await t.app.inject({ method: 'POST', url: '/api/v1/accounts', payload: { email: 'not-an-email', password: 'short' } });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json().issues.map((i: { field: string }) => i.field).sort(), ['email', 'password']);
  });

  it('refuses key management with a wrong password, no credentials, or a key not allowed to manage keys', async () => {
    await signup('carol@example.com', 'carol password 1');
    const wrong = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { authorization: basic('carol@example.com', 'nope nope nope') }, payload: {} });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error, 'invalid_credentials');
    const none = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', payload: {} });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, 'missing_credentials');
    const plain = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', payload: { email: 'carol@example.com', password: 'carol password 1', canManageKeys: false } });
    assert.equal(plain.statusCode, 201);
    const denied = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { 'x-api-key': plain.json().result.apiKey }, payload: {} });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error, 'key_management_not_allowed');
  });

  it('revokes a key so that it fails at once, and rotates a key so that only the new secret works', async () => {
    const { apiKey: manager } = await t.account();
    const make = async () => (await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { 'x-api-key': manager }, payload: { name: 'worker' } })).json().result;
    const a = await make();
    assert.equal((await t.call(EMI, EMI_BODY, a.apiKey)).statusCode, 200);
    const revoked = await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${a.keyId}`, headers: { 'x-api-key': manager } });
    assert.equal(revoked.statusCode, 200);
    assert.ok(revoked.json().result.revokedAt);
    const after = await t.call(EMI, EMI_BODY, a.apiKey);
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().error, 'api_key_revoked');

    const b = await make();
    const rotated = await t.app.inject({ method: 'POST', url: `/api/v1/api-keys/${b.keyId}/rotate`, headers: { 'x-api-key': manager } });
    assert.equal(rotated.statusCode, 200);
    const fresh = rotated.json().result;
    assert.equal(fresh.keyId, b.keyId);
    assert.notEqual(fresh.apiKey, b.apiKey);
    assert.equal((await t.call(EMI, EMI_BODY, b.apiKey)).json().error, 'invalid_api_key');
    assert.equal((await t.call(EMI, EMI_BODY, fresh.apiKey)).statusCode, 200);

    const other = await t.account();
    const foreign = await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${fresh.keyId}`, headers: { 'x-api-key': other.apiKey } });
    assert.equal(foreign.statusCode, 404, 'a key of another account cannot be revoked');
  });

  it('scopes a key to the tools it names; a key created by a scoped key inherits its list and cannot widen it', async () => {
    const { apiKey: manager } = await t.account();
    const scoped = (await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { 'x-api-key': manager }, payload: { tools: ['calculators_emi_calculator'], canManageKeys: true } })).json().result;
    assert.equal((await t.call(EMI, EMI_BODY, scoped.apiKey)).statusCode, 200);
    const blocked = await t.call('/api/v1/calculators/simple-interest-calculator', { principal: 1, rate: 1, timeYears: 1 }, scoped.apiKey);
    assert.equal(blocked.statusCode, 403);
    assert.equal(blocked.json().error, 'tool_not_allowed');
    const wider = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { 'x-api-key': scoped.apiKey }, payload: { tools: ['calculators_emi_calculator', 'calculators_simple_interest_calculator'] } });
    assert.equal(wider.statusCode, 403, 'a wider list is refused, not silently cut');
    assert.equal(wider.json().error, 'key_scope_exceeded');
    assert.match(wider.json().detail, /calculators_simple_interest_calculator/);
    assert.doesNotMatch(wider.body, /uts_live_/);
    const child = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { 'x-api-key': scoped.apiKey }, payload: { name: 'inherits' } });
    assert.equal(child.statusCode, 201, child.body);
    assert.deepEqual(child.json().result.tools, ['calculators_emi_calculator'], 'no list means the creator\'s own list');
    assert.equal(child.json().result.canManageKeys, false);
    const unknown = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: { 'x-api-key': manager }, payload: { tools: ['calculators_nope'] } });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().detail, /calculators_nope/);
  });

  it('stores key secrets and passwords only as hashes', async () => {
    await signup('dave@example.com', 'dave secret password');
    const { apiKey } = (await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', payload: { email: 'dave@example.com', password: 'dave secret password' } })).json().result;
    // Every row of both tables, read on a connection of its own as anyone with the database would.
    const dump = await onOtherConnection(t.config.databaseUrl, async (db) =>
      JSON.stringify([await db.selectFrom('api_keys').selectAll().execute(), await db.selectFrom('accounts').selectAll().execute()]),
    );
    assert.ok(dump.includes('dave@example.com'), 'the dump holds the account');
    assert.ok(!dump.includes(apiKey), 'the secret is not stored');
    assert.ok(!dump.includes('dave secret password'), 'the password is not stored');
    assert.match(dump, /scrypt\$16384\$8\$1\$/);
  });

  it('answers 403 for an account without an active plan', async () => {
    const { accountId, apiKey } = await t.account();
    await updateAccount(t.config.databaseUrl, accountId, { status: 'suspended' });
    const res = await t.call(EMI, EMI_BODY, apiKey);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error, 'account_inactive');
  });

  // The caller cache (SQLite: data_version; PostgreSQL: bypassed, every call reads) must not serve
  // a key revoked by someone else (the CLI, another node) a moment longer, on either database.
  it('refuses a key revoked through another connection on the very next call', async () => {
    const { apiKey, keyId } = await t.account();
    assert.equal((await t.call(EMI, EMI_BODY, apiKey)).statusCode, 200, 'the caller was looked up and may be cached');
    await onOtherConnection(t.config.databaseUrl, async (db) => {
      const result = await db.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('id', '=', keyId).executeTakeFirst();
      assert.equal(result.numUpdatedRows, 1n);
    });
    const res = await t.call(EMI, EMI_BODY, apiKey);
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.json().error, 'api_key_revoked');
  });
});
