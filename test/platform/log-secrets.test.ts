// No secret in the logs. A real server process at LOG_LEVEL=debug, first start (the bootstrap
// banner), and a whole session a customer could have: a sign-up with a password, the e-mail
// verified by its link, keys made with the password (Basic and fields) and rotated, failed logins,
// tools called with the key in the header and, by mistake, in the query string (and with headers
// over the parser's limit), a conversion
// whose signed downloadUrl is fetched (and a forged one), an MCP SSE session (GET /mcp, then POST
// /mcp/messages?sessionId=…), a webhook with its signing secret. Then every secret the session
// made is looked for in everything the process wrote: none may appear, but the bootstrap key,
// printed exactly once in the banner.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { json, upload } from '../support/http.ts';
import { EMI, EMI_BODY, startServer, type Server } from '../support/server-process.ts';
import { startHttpSite, type TestSite } from '../analysis/support/test-sites.ts';
import { redactLine, redactUrl } from '../../src/core/log-redaction.ts';

const API_KEY = /uts_live_[A-Za-z0-9_-]{32}/g;

function basic(email: string, password: string): string {
  return `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
}

async function postJson(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Opens GET /mcp (SSE) and answers the session id of its `endpoint` event, with the stream's abort. */
async function openSseSession(base: string, apiKey: string): Promise<{ sessionId: string; endpoint: string; close: () => void }> {
  const controller = new AbortController();
  const res = await fetch(`${base}/mcp`, { headers: { accept: 'text/event-stream', 'x-api-key': apiKey }, signal: controller.signal });
  assert.equal(res.status, 200, 'GET /mcp opens an SSE stream');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the SSE stream ended before its endpoint event: ${text}`);
    text += decoder.decode(value, { stream: true });
    const match = /event: endpoint\r?\ndata: (\S+)/.exec(text);
    if (match !== null) {
      const endpoint = match[1]!;
      const sessionId = new URL(endpoint, base).searchParams.get('sessionId');
      assert.ok(sessionId, endpoint);
      return { sessionId, endpoint, close: () => controller.abort() };
    }
  }
}

describe('secrets stay out of the logs (a whole session at debug level)', () => {
  let dataDir: string;
  let server: Server;
  let hooks: TestSite;
  /** every secret the session creates or sends, by what it is */
  const secrets = new Map<string, string>();
  let bootKey = '';

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'log-secrets-'));
    hooks = await startHttpSite((_req, res) => res.end('ok'));
    server = await startServer(dataDir, {
      LOG_LEVEL: 'debug',
      BOOTSTRAP_ACCOUNT: 'true',
      // A webhook receiver on loopback, reachable by name for this test only.
      EGRESS_ALLOW: 'hooks.example',
      EGRESS_RESOLVE: 'hooks.example:127.0.0.1',
    });
  });
  after(async () => {
    await server?.kill('SIGKILL');
    await hooks?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the session, then finds none of its secrets in the output (the bootstrap key once, in the banner)', { timeout: 120_000 }, async () => {
    const base = server.base;
    const banner = server.output().match(API_KEY) ?? [];
    assert.equal(banner.length, 1, `the bootstrap key is printed exactly once:\n${server.output()}`);
    bootKey = banner[0]!;

    // A sign-up with a password, verified by the link of its mail.
    const email = `owner-${Date.now()}@example.com`;
    const password = `Pw-${'s3cr3t'.repeat(4)}-${Math.random().toString(36).slice(2)}`;
    secrets.set('password', password);
    const signup = await postJson(base, '/api/v1/accounts', { email, password });
    assert.equal(signup.status, 201, JSON.stringify(signup.body));
    const outbox = join(dataDir, 'outbox');
    const mail = readdirSync(outbox).map((name) => readFileSync(join(outbox, name), 'utf8')).join('\n');
    const token = /verify\?token=([^\s&"]+)/.exec(mail)?.[1];
    assert.ok(token, `a verification link in the mail:\n${mail}`);
    secrets.set('verification token', decodeURIComponent(token));
    assert.equal((await fetch(`${base}/api/v1/accounts/verify?token=${token}`)).status, 200);

    // Keys made with the password (HTTP Basic, then the fields), one rotated.
    const byBasic = await postJson(base, '/api/v1/api-keys', { name: 'by-basic', canManageKeys: true }, { authorization: basic(email, password) });
    assert.equal(byBasic.status, 201, JSON.stringify(byBasic.body));
    const ownerKey: string = byBasic.body.result.apiKey ?? byBasic.body.result.secret;
    assert.match(ownerKey, API_KEY);
    secrets.set('key made with Basic', ownerKey);
    const byFields = await postJson(base, '/api/v1/api-keys', { name: 'by-fields', email, password });
    assert.equal(byFields.status, 201, JSON.stringify(byFields.body));
    const fieldsKey: string = byFields.body.result.apiKey ?? byFields.body.result.secret;
    secrets.set('key made with fields', fieldsKey);
    const rotated = await postJson(base, `/api/v1/api-keys/${byFields.body.result.keyId ?? byFields.body.result.id}/rotate`, {}, { 'x-api-key': ownerKey });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    secrets.set('rotated key', rotated.body.result.apiKey ?? rotated.body.result.secret);

    // Failed logins: a wrong password by Basic and by fields, a wrong key.
    const wrongPassword = `Wrong-${password}`;
    secrets.set('wrong password', wrongPassword);
    assert.equal((await postJson(base, '/api/v1/api-keys', { name: 'x' }, { authorization: basic(email, wrongPassword) })).status, 401);
    assert.equal((await postJson(base, '/api/v1/api-keys', { name: 'x', email, password: wrongPassword })).status, 401);
    const forgedKey = `uts_live_${'Z'.repeat(32)}`;
    secrets.set('forged key', forgedKey);
    assert.equal((await postJson(base, EMI, EMI_BODY, { 'x-api-key': forgedKey })).status, 401);

    // Tools: the key in the header, and by mistake in the query string under the names people use.
    assert.equal((await postJson(base, EMI, EMI_BODY, { 'x-api-key': ownerKey })).status, 200);
    assert.equal((await postJson(base, EMI, EMI_BODY, { 'x-api-key': bootKey })).status, 200);
    for (const name of ['api_key', 'apiKey', 'key', 'x-api-key', 'token', 'access_token']) {
      const res = await fetch(`${base}${EMI}?${name}=${encodeURIComponent(ownerKey)}&format=json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(EMI_BODY) });
      assert.equal(res.status, 401, name);
      await res.arrayBuffer();
    }
    // Headers over Node's limit: the parser refuses them, and the raw bytes it keeps hold the key.
    const oversized = await fetch(`${base}${EMI}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': ownerKey, 'x-padding': 'p'.repeat(20_000) }, body: JSON.stringify(EMI_BODY) });
    assert.equal(oversized.status, 431);
    await oversized.arrayBuffer();
    const inBoth = await fetch(`${base}${EMI}?api_key=${bootKey}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': bootKey }, body: JSON.stringify(EMI_BODY) });
    await inBoth.arrayBuffer();

    // A conversion, its signed link fetched, and a forged link.
    const converted = await upload(base, '/api/v1/documents/txt-to-md', ownerKey, { name: 'notes.txt', content: 'hello\nworld' });
    const result = (await json(converted)).result;
    assert.equal(converted.status, 200, JSON.stringify(result));
    const link = new URL(result.downloadUrl);
    secrets.set('download signature', link.searchParams.get('signature') ?? '');
    assert.equal((await fetch(`${base}${link.pathname}${link.search}`)).status, 200);
    const forgedSignature = 'F'.repeat(43);
    secrets.set('forged signature', forgedSignature);
    assert.equal((await fetch(`${base}${link.pathname}?expires=${link.searchParams.get('expires')}&signature=${forgedSignature}`)).status, 403);

    // An MCP SSE session: its id travels in the query string of every message.
    const session = await openSseSession(base, ownerKey);
    secrets.set('SSE session id', session.sessionId);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'log-secrets', version: '1' } } };
    const posted = await fetch(`${base}${session.endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': ownerKey }, body: JSON.stringify(initialize) });
    assert.ok(posted.status < 300, `POST ${session.endpoint} answered ${posted.status}`);
    await posted.arrayBuffer();
    const wrongSession = await fetch(`${base}/mcp/messages?sessionId=${session.sessionId}x`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': ownerKey }, body: JSON.stringify(initialize) });
    await wrongSession.arrayBuffer();
    session.close();

    // A webhook: its signing secret is shown once, in the answer.
    const webhook = await postJson(base, '/api/v1/webhooks', { url: `http://hooks.example:${hooks.port}/tools` }, { 'x-api-key': ownerKey });
    assert.equal(webhook.status, 201, JSON.stringify(webhook.body));
    secrets.set('webhook secret', webhook.body.result.secret);
    const fired = await fetch(`${base}/api/v1/webhooks/${webhook.body.result.id}/test`, { method: 'POST', headers: { 'x-api-key': ownerKey } });
    await fired.arrayBuffer();

    // Every request above has finished; the access lines of the last turn are written before the
    // usage call answers (a request that logs after it). SIGTERM writes whatever is still pending.
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    await server.kill('SIGTERM');
    const output = server.output();
    assert.match(output, /"msg":"request"/, 'the access log was captured');
    assert.match(output, /"level":20/, 'debug lines were captured');
    assert.match(output, /\/mcp\/messages\?sessionId=\[redacted\]/, 'the session id was logged, redacted');
    assert.match(output, /api_key=\[redacted\]/, 'the key sent in the query string was logged, redacted');

    for (const [what, secret] of secrets) {
      assert.ok(secret.length >= 8, `${what} is a real secret`);
      assert.ok(!output.includes(secret), `the ${what} appears in the output:\n${output.split('\n').filter((l) => l.includes(secret)).join('\n')}`);
      // Percent-encoded as it would be in a URL, too.
      assert.ok(!output.includes(encodeURIComponent(secret)), `the ${what} appears percent-encoded`);
    }
    assert.equal(output.split(bootKey).length - 1, 1, 'the bootstrap key appears once, in the banner');
  });
});

describe('the redaction of one line (every shape the writer removes)', () => {
  const secret = `S3cr3t${'x'.repeat(24)}`;

  it('removes a secret from each field name, query parameter, key shape and auth scheme, and leaves other lines as they are', () => {
    for (const field of ['sessionId', 'session_id', 'mcp-session-id', 'sig', 'signature', 'token', 'access_token', 'apiKey', 'api_key', 'x-api-key', 'password', 'secret', 'authorization', 'cookie', 'set-cookie']) {
      const line = JSON.stringify({ level: 30, headers: { [field]: secret }, msg: 'x' });
      assert.ok(!redactLine(line).includes(secret), `field ${field}: ${redactLine(line)}`);
    }
    for (const param of ['sessionId', 'sig', 'signature', 'token', 'key', 'api_key', 'apikey', 'password', 'code', 'secret']) {
      for (const line of [{ url: `/x?${param}=${secret}` }, { url: `/x?a=1&${param}=${secret}&format=json` }, { msg: `fetch of https://h/p ${param}=${secret} failed` }].map((o) => JSON.stringify(o))) {
        assert.ok(!redactLine(line).includes(secret), `param ${param}: ${redactLine(line)}`);
      }
    }
    const shapes = [`uts_live_${'a'.repeat(32)}`, `sk-${'b'.repeat(40)}`, `sk_live_${'c'.repeat(24)}`, `ghp_${'d'.repeat(36)}`, `AKIA${'E'.repeat(16)}`, `eyJhbGciOiJIUzI1NiJ9.${'f'.repeat(20)}.${'g'.repeat(20)}`];
    for (const shape of shapes) assert.ok(!redactLine(JSON.stringify({ msg: `failed with ${shape} in it` })).includes(shape), shape);
    assert.ok(!redactLine(JSON.stringify({ msg: `sent Bearer ${secret}` })).includes(secret));
    const plain = JSON.stringify({ level: 30, reqId: 'r-1', method: 'POST', url: '/api/v1/calculators/emi-calculator', statusCode: 200, msg: 'request' });
    assert.equal(redactLine(plain), plain);
  });

  it('the access log keeps only allow-listed query values', () => {
    assert.equal(redactUrl(`/files/a/b.md?expires=1&signature=${secret}`), '/files/a/b.md?expires=[redacted]&signature=[redacted]');
    assert.equal(redactUrl('/api/v1/x?format=json&delivery=binary'), '/api/v1/x?format=json&delivery=binary');
    assert.equal(redactUrl(`/api/v1/x?format=uts_live_${'a'.repeat(32)}&whatever=${secret}`), '/api/v1/x?format=[redacted]&whatever=[redacted]');
    assert.equal(redactUrl('/api/v1/x'), '/api/v1/x');
  });
});
