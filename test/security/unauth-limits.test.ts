// Issue 16 section 5, the routes anyone may call without a key: sign-ups are limited per client
// address, password attempts per address and per account, and both refuse with 429 and
// Retry-After BEFORE the scrypt runs or the mail is written. Floods are sent all at once, so the
// limit must hold for concurrent attempts, not only for sequential ones.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { AttemptLimiter } from '../../src/accounts/attempt-limiter.ts';
import { migrateToLatest, openDatabase } from '../../src/db/database.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const SIGNUPS = 5; // SIGNUP_PER_HOUR's default
const FAILURES = 10; // PASSWORD_FAILURES_LIMIT's default
const WINDOW_SECONDS = 15 * 60; // PASSWORD_FAILURES_WINDOW_MINUTES's default
const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

function assertLimited(res: LightMyRequestResponse, maxSeconds: number, what: string): void {
  assert.equal(res.statusCode, 429, `${what}: ${res.body}`);
  const body = res.json();
  assert.equal(body.error, 'rate_limited', what);
  const header = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(header) && header >= 1 && header <= maxSeconds, `${what}: Retry-After ${res.headers['retry-after']}`);
  assert.equal(body.retryAfterSeconds, header, `${what}: retryAfterSeconds matches Retry-After`);
  assert.match(body.message, /at most \d+/, `${what}: the message names the limit`);
}

describe('limits on what anyone may try without a key', () => {
  let t: TestApp;
  let checks = 0;
  before(async () => {
    t = await startTestApp();
    // Counts the password checks (each one an scrypt) the routes ask for.
    const accounts = t.services.accounts;
    const check = accounts.authenticatePassword.bind(accounts);
    accounts.authenticatePassword = (email, password) => {
      checks += 1;
      return check(email, password);
    };
  });
  after(() => t.close());

  const outboxCount = () => (existsSync(join(t.dataDir, 'outbox')) ? readdirSync(join(t.dataDir, 'outbox')).length : 0);
  const signup = (remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/v1/accounts', remoteAddress, headers, payload: { email: `flood-${randomUUID()}@example.com`, password: 'a long passphrase' } });
  const createKey = (remoteAddress: string, email: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/v1/api-keys', remoteAddress, headers: { authorization: basic(email, password) }, payload: {} });

  it('a sign-up flood from one address gets 429 after the limit and no more mail; another address still signs up', async () => {
    const mailsBefore = outboxCount();
    const accountsBefore = await t.services.accounts.countAccounts();
    const flood = await Promise.all(Array.from({ length: 60 }, () => signup('203.0.113.7')));
    const created = flood.filter((r) => r.statusCode === 201);
    assert.equal(created.length, SIGNUPS, 'exactly the limit passes, all at once');
    for (const res of flood.filter((r) => r.statusCode !== 201)) assertLimited(res, 3600, 'a sign-up past the limit');
    assert.equal(outboxCount() - mailsBefore, SIGNUPS, 'no mail after the limit');
    assert.equal((await t.services.accounts.countAccounts()) - accountsBefore, SIGNUPS, 'no account after the limit');

    // Without TRUST_PROXY a forged X-Forwarded-For changes nothing.
    assertLimited(await signup('203.0.113.7', { 'x-forwarded-for': '192.0.2.99' }), 3600, 'a forged X-Forwarded-For');
    const other = await signup('198.51.100.9');
    assert.equal(other.statusCode, 201, other.body);
    assert.equal(outboxCount() - mailsBefore, SIGNUPS + 1);
  });

  it('an IPv6 client is counted by its /64: cycling addresses inside it gains nothing', async () => {
    const inside = await Promise.all(Array.from({ length: SIGNUPS + 10 }, (_, i) => signup(`2001:db8:a:b::${(i + 1).toString(16)}`)));
    assert.equal(inside.filter((r) => r.statusCode === 201).length, SIGNUPS);
    assertLimited(await signup('2001:0db8:000a:000b:ffff:ffff:ffff:fffe'), 3600, 'the same /64 written out in full');
    assertLimited(await signup('::ffff:203.0.113.7'), 3600, 'an IPv4-mapped address is its IPv4 address');
    assert.equal((await signup('2001:db8:a:c::1')).statusCode, 201, 'the next /64 is another client');
  });

  it('a wrong-password flood gets 429 before any scrypt, the right password too; another account elsewhere is unaffected', async () => {
    const password = 'the right passphrase';
    const victim = `victim-${randomUUID()}@example.com`;
    await t.account({ email: victim, password });
    const bystander = `bystander-${randomUUID()}@example.com`;
    await t.account({ email: bystander, password });

    const checksBefore = checks;
    const flood = await Promise.all(Array.from({ length: 60 }, (_, i) => createKey('203.0.113.50', victim, `wrong guess ${i}`)));
    assert.equal(flood.filter((r) => r.statusCode === 401).length, FAILURES, 'exactly the limit is checked');
    for (const res of flood.filter((r) => r.statusCode !== 401)) assertLimited(res, WINDOW_SECONDS, 'a guess past the limit');
    assert.equal(checks - checksBefore, FAILURES, 'no scrypt ran for a refused attempt');

    assertLimited(await createKey('203.0.113.50', victim, password), WINDOW_SECONDS, 'the right password while the address is limited');
    assertLimited(await createKey('198.51.100.50', victim, password), WINDOW_SECONDS, 'the right password for the limited account from elsewhere');
    assertLimited(await createKey('203.0.113.50', bystander, password), WINDOW_SECONDS, 'another account from the limited address');
    // JSON-body credentials are the same password check, so the same limit.
    const viaBody = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', remoteAddress: '198.51.100.50', payload: { email: victim, password } });
    assertLimited(viaBody, WINDOW_SECONDS, 'e-mail and password in the body');
    assert.equal(checks - checksBefore, FAILURES, 'still no scrypt');

    const fine = await createKey('198.51.100.51', bystander, password);
    assert.equal(fine.statusCode, 201, fine.body);
    assert.match(fine.json().result.apiKey, /^uts_live_/);
  });

  it('failures spread over many addresses still lock the account, not its keys; unknown e-mails are counted alike', async () => {
    const password = 'owner passphrase';
    const owner = `spread-${randomUUID()}@example.com`;
    const { apiKey } = await t.account({ email: owner, password });
    const guesses = await Promise.all(Array.from({ length: FAILURES }, (_, i) => createKey(`192.0.2.${i + 1}`, owner, `guess ${i}`)));
    assert.deepEqual(guesses.map((r) => r.statusCode), Array<number>(FAILURES).fill(401));
    assertLimited(await createKey('192.0.2.200', owner, password), WINDOW_SECONDS, 'a fresh address, the account limited');
    // The owner's key-managing key is not a password attempt and keeps working.
    const withKey = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', remoteAddress: '192.0.2.200', headers: { 'x-api-key': apiKey }, payload: {} });
    assert.equal(withKey.statusCode, 201, withKey.body);

    const nobody = `nobody-${randomUUID()}@example.com`;
    const unknown = await Promise.all(Array.from({ length: FAILURES + 1 }, (_, i) => createKey(`192.0.2.${100 + i}`, nobody, `guess ${i}`)));
    assert.equal(unknown.filter((r) => r.statusCode === 401).length, FAILURES);
    assertLimited(unknown.find((r) => r.statusCode !== 401)!, WINDOW_SECONDS, 'an e-mail without an account');
  });

  it('a success frees only its own attempt: another address keeps its count', async () => {
    const password = 'success passphrase';
    const [first, second] = [`first-${randomUUID()}@example.com`, `second-${randomUUID()}@example.com`];
    await t.account({ email: first, password });
    await t.account({ email: second, password });
    for (let i = 0; i < FAILURES - 1; i++) assert.equal((await createKey('198.51.100.77', first, `nope ${i}`)).statusCode, 401);
    // Successes (from another address, and from this one) are not failures and clear nothing else.
    assert.equal((await createKey('198.51.100.78', first, password)).statusCode, 201);
    for (let i = 0; i < 3; i++) assert.equal((await createKey('198.51.100.77', second, password)).statusCode, 201, 'successes are not counted');
    assert.equal((await createKey('198.51.100.77', second, 'nope again')).statusCode, 401, 'the last failure the address has');
    assertLimited(await createKey('198.51.100.77', second, password), WINDOW_SECONDS, 'the address kept its failures');
    assert.equal((await createKey('198.51.100.78', second, password)).statusCode, 201, 'the account itself has one failure');
  });
});

describe('limits behind a trusted proxy', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true' } });
  });
  after(() => t.close());

  it('counts the client address X-Forwarded-For names (request.ip), not the proxy', async () => {
    const signup = (client: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/accounts',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': client },
        payload: { email: `proxied-${randomUUID()}@example.com`, password: 'a long passphrase' },
      });
    const one = await Promise.all(Array.from({ length: SIGNUPS + 3 }, () => signup('203.0.113.80')));
    assert.equal(one.filter((r) => r.statusCode === 201).length, SIGNUPS);
    assertLimited(one.find((r) => r.statusCode !== 201)!, 3600, 'the client behind the proxy');
    assert.equal((await signup('203.0.113.81')).statusCode, 201, 'another client behind the same proxy');
  });
});

describe('the attempt counts', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('are shared by processes on one database and open again when the window ends', async () => {
    let now = Date.UTC(2026, 0, 1);
    const limits = { signupsPerHour: 2, passwordFailures: 3, passwordWindowMinutes: 15 };
    // A second connection to the same file stands for a second process.
    const otherDb = openDatabase(t.config.databaseUrl);
    try {
      await migrateToLatest(otherDb);
      const here = new AttemptLimiter(t.services.db, limits, () => now);
      const there = new AttemptLimiter(otherDb, limits, () => now);
      await here.signup('203.0.113.90');
      await there.signup('203.0.113.90');
      const refused = await here.signup('203.0.113.90').then(
        () => assert.fail('a third sign-up passed'),
        (error: unknown) => error,
      );
      assert.equal((refused as { status: number }).status, 429);
      assert.equal((refused as { extra: { retryAfterSeconds: number } }).extra.retryAfterSeconds, 3600);
      now += 3599_000;
      await assert.rejects(there.signup('203.0.113.90'), (e: { extra: { retryAfterSeconds: number } }) => e.extra.retryAfterSeconds === 1);
      now += 1000;
      await here.signup('203.0.113.90');

      const wrong = async () => undefined;
      for (let i = 0; i < 3; i++) assert.equal(await (i % 2 ? here : there).password('203.0.113.91', 'x@example.com', wrong), undefined);
      await assert.rejects(here.password('203.0.113.92', ' X@Example.com', async () => 'right'), (e: { status: number }) => e.status === 429, 'the e-mail is normalised');
      now += 15 * 60_000;
      assert.equal(await there.password('203.0.113.91', 'x@example.com', async () => 'right'), 'right', 'a new window');
    } finally {
      await otherDb.destroy();
    }
  });
});

describe('the keyless reads (catalog, plans, supported conversions) are limited per address too', () => {
  const LIMIT = 40;
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { KEYLESS_REQUESTS_PER_MINUTE: String(LIMIT) } });
  });
  after(() => t.close());

  const minute = () => Math.floor(Date.now() / 60_000);
  const paths = ['/api/v1/plans', '/api/v1/tools', '/api/v1/archive/supported-conversions'];

  it('past the limit a flood gets 429 rate_limited with Retry-After; another address reads on', async () => {
    // The window is a clock minute: a flood that straddled two would count in both, so it is
    // sent again (from a fresh address) until one lands inside a single minute.
    for (let attempt = 1; ; attempt++) {
      const address = `198.51.100.${attempt}`;
      const start = minute();
      const flood = await Promise.all(Array.from({ length: LIMIT + 20 }, (_, i) => t.app.inject({ method: 'GET', url: paths[i % paths.length]!, remoteAddress: address })));
      if (minute() !== start) continue;
      assert.equal(flood.filter((r) => r.statusCode === 200).length, LIMIT, 'exactly the limit passes');
      for (const res of flood.filter((r) => r.statusCode !== 200)) assertLimited(res, 60, 'a keyless read past the limit');
      break;
    }
    const other = await t.app.inject({ method: 'GET', url: '/api/v1/plans', remoteAddress: '198.51.100.200' });
    assert.equal(other.statusCode, 200, 'another address is not affected');
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, { get: { responses: Record<string, unknown> } }> };
    for (const path of paths) assert.ok('429' in (doc.paths[path]?.get.responses ?? {}), `${path} documents its 429`);
  });
});

describe('a file tool without a valid key', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('is answered 401 before the upload gets a work folder: nothing under DATA_DIR is written for it', async () => {
    // The work root made a plain file: creating a work folder there fails (500), so only a route
    // that checks the key first can answer 401. The old order answered 500 here.
    const workRoot = join(t.dataDir, 'work');
    rmSync(workRoot, { recursive: true, force: true });
    writeFileSync(workRoot, 'not a folder');
    const boundary = 'x-boundary';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\nContent-Type: text/markdown\r\n\r\n# hi\r\n--${boundary}--\r\n`;
    for (const headers of [{}, { 'x-api-key': 'uts_live_not_a_real_key_000000000000000000' }]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/documents/md-to-docx', headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
      assert.equal(res.statusCode, 401, res.body);
      assert.match(res.json().error, /missing_api_key|invalid_api_key/);
    }
    // With a valid key the same request does reach the work folder (and fails there), so the 401s above were not luck.
    const { apiKey } = await t.account();
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/documents/md-to-docx', headers: { 'x-api-key': apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
    assert.equal(res.statusCode, 500, res.body);
  });
});
