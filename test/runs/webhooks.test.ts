// Webhooks end to end: registration over REST (auth, limits, URL rules, another account), and delivery to
// real HTTP receivers on 127.0.0.1 (named hooks.test through EGRESS_ALLOW/EGRESS_RESOLVE) through
// the real egress-safe fetcher: retries after a 500, a permanent failure, a refusal at delivery,
// a receiver that never answers, and the bounded queue. Tests wait for the receiver's requests and
// the dispatcher's 'delivery' events, never for a guessed delay.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { WebhookDispatcher, type DeliveryReport } from '../../src/runs/webhook-delivery.ts';
import { verifyWebhookSignature } from '../../src/runs/webhook-signature.ts';
import { startHttpSite, type TestSite } from '../analysis/support/test-sites.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { runInIsolatedNetwork } from '../support/isolated-network.ts';

// It tries refused addresses: in a network namespace with only loopback, a regression could reach nothing.
await runInIsolatedNetwork(import.meta.filename);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  respond(status: number): void;
}

/** A receiver on 127.0.0.1: every request's headers and body, answered by `answer` (or held when it returns null). */
async function startReceiver(answer: (index: number) => number | null): Promise<{ site: TestSite; received: Received[]; nth(n: number): Promise<Received> }> {
  const received: Received[] = [];
  const events = new EventEmitter();
  const site = await startHttpSite((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), respond: (status) => res.writeHead(status).end() };
      const index = received.push(entry) - 1;
      const status = answer(index);
      if (status !== null) entry.respond(status);
      events.emit('received', received.length);
    });
  });
  return {
    site,
    received,
    async nth(n) {
      while (received.length < n) await once(events, 'received');
      return received[n - 1] as Received;
    },
  };
}

/** Resolves with the first 'delivery' report that matches. */
function nextReport(dispatcher: WebhookDispatcher, match: (r: DeliveryReport) => boolean): Promise<DeliveryReport> {
  return new Promise((resolve) => {
    const listener = (report: DeliveryReport): void => {
      if (!match(report)) return;
      dispatcher.events.off('delivery', listener);
      resolve(report);
    };
    dispatcher.events.on('delivery', listener);
  });
}

const EGRESS = { EGRESS_ALLOW: 'hooks.test', EGRESS_RESOLVE: 'hooks.test:127.0.0.1' };
const JOB = { runId: 'run_1', kind: 'invoke_tool', operationId: 'calculators_add', status: 'completed' as const, resultStatus: 'ok', startedAt: '2025-01-01T00:00:00.000Z', finishedAt: '2025-01-01T00:00:02.000Z', credits: 1 };

function inject(t: TestApp, method: 'GET' | 'POST' | 'DELETE', url: string, apiKey?: string, body?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

describe('webhooks over REST', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let hookUrl: string;

  before(async () => {
    t = await startTestApp({ env: EGRESS });
    receiver = await startReceiver(() => 204);
    hookUrl = `http://hooks.test:${receiver.site.port}/hook`;
  });
  after(async () => {
    await receiver.site.close();
    await t.close();
  });

  it('creates (secret once), lists without secrets, tests with a signed event, and deletes', async () => {
    const { apiKey } = await t.account();
    const created = await inject(t, 'POST', '/api/v1/webhooks', apiKey, { url: hookUrl, description: 'CI' });
    assert.equal(created.statusCode, 201, created.body);
    const hook = created.json().result;
    assert.match(hook.id, /^[0-9a-f-]{36}$/);
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual({ url: hook.url, events: hook.events, description: hook.description, lastDelivery: hook.lastDelivery }, { url: hookUrl, events: ['mcp.job.finished'], description: 'CI', lastDelivery: null });

    const listed = await inject(t, 'GET', '/api/v1/webhooks', apiKey);
    assert.equal(listed.statusCode, 200);
    assert.ok(!listed.body.includes(hook.secret), 'the list never carries the secret');
    assert.deepEqual(listed.json().result.webhooks.map((w: { id: string }) => w.id), [hook.id]);
    assert.equal('secret' in listed.json().result.webhooks[0], false);
    const row = await t.services.db.selectFrom('webhooks').select('secret_sealed').where('id', '=', hook.id).executeTakeFirstOrThrow();
    assert.ok(!row.secret_sealed.includes(hook.secret.slice(6)), 'the stored secret is sealed');

    const tested = await inject(t, 'POST', `/api/v1/webhooks/${hook.id}/test`, apiKey);
    assert.equal(tested.statusCode, 200, tested.body);
    const outcome = tested.json().result;
    assert.deepEqual({ delivered: outcome.delivered, statusCode: outcome.statusCode, error: outcome.error }, { delivered: true, statusCode: 204, error: null });
    const got = await receiver.nth(1);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['webhook-id'], outcome.eventId);
    assert.equal(verifyWebhookSignature({ secret: hook.secret, headers: got.headers, body: got.body }), true);
    assert.equal(verifyWebhookSignature({ secret: hook.secret, headers: got.headers, body: got.body.replace('webhook.test', 'webhook.tesT') }), false);
    const event = JSON.parse(got.body);
    assert.deepEqual({ id: event.id, type: event.type, webhookId: event.data.webhookId }, { id: outcome.eventId, type: 'webhook.test', webhookId: hook.id });

    const after = (await inject(t, 'GET', '/api/v1/webhooks', apiKey)).json().result.webhooks[0];
    assert.deepEqual({ ...after.lastDelivery, at: undefined }, { eventId: outcome.eventId, type: 'webhook.test', outcome: 'delivered', attempts: 1, statusCode: 204, error: null, at: undefined });

    const deleted = await inject(t, 'DELETE', `/api/v1/webhooks/${hook.id}`, apiKey);
    assert.equal(deleted.statusCode, 200);
    assert.equal(deleted.json().result.id, hook.id);
    assert.deepEqual((await inject(t, 'GET', '/api/v1/webhooks', apiKey)).json().result.webhooks, []);
    const again = await inject(t, 'DELETE', `/api/v1/webhooks/${hook.id}`, apiKey);
    assert.equal(again.statusCode, 404);
    assert.equal(again.json().error, 'webhook_not_found');
    assert.equal((await inject(t, 'POST', `/api/v1/webhooks/${hook.id}/test`, apiKey)).statusCode, 404);
  });

  it('answers a test delivery that fails with its status', async () => {
    const failing = await startReceiver(() => 500);
    try {
      const { apiKey } = await t.account();
      const hook = (await inject(t, 'POST', '/api/v1/webhooks', apiKey, { url: `http://hooks.test:${failing.site.port}/x` })).json().result;
      const outcome = (await inject(t, 'POST', `/api/v1/webhooks/${hook.id}/test`, apiKey)).json().result;
      assert.deepEqual({ delivered: outcome.delivered, statusCode: outcome.statusCode, error: outcome.error }, { delivered: false, statusCode: 500, error: 'the receiver answered HTTP 500' });
      assert.equal(failing.received.length, 1, 'a test is sent once, never retried');
    } finally {
      await failing.site.close();
    }
  });

  it('needs a key, and refuses bad input with the field named', async () => {
    const { apiKey } = await t.account();
    const noKey = await inject(t, 'POST', '/api/v1/webhooks', undefined, { url: hookUrl });
    assert.equal(noKey.statusCode, 401);
    assert.equal((await inject(t, 'GET', '/api/v1/webhooks', 'uts_live_' + 'x'.repeat(32))).statusCode, 401);
    const cases: [unknown, number, string][] = [
      [{}, 400, 'validation_error'],
      [{ url: hookUrl, events: ['job.started'] }, 400, 'validation_error'],
      [{ url: hookUrl, events: [] }, 400, 'validation_error'],
      [{ url: 'not a url' }, 400, 'invalid_url'],
      [{ url: 'ftp://hooks.test/x' }, 400, 'url_not_allowed'],
      [{ url: `${hookUrl}#frag` }, 400, 'invalid_url'],
      [{ url: 'https://user:pw@hooks.test/x' }, 400, 'url_not_allowed'],
      [{ url: 'https://10.1.2.3/x' }, 400, 'url_not_allowed'],
    ];
    for (const [body, status, error] of cases) {
      const res = await inject(t, 'POST', '/api/v1/webhooks', apiKey, body);
      assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      assert.equal(res.json().error, error, JSON.stringify(body));
    }
    const bad = (await inject(t, 'POST', '/api/v1/webhooks', apiKey, { url: hookUrl, events: ['job.started'] })).json();
    assert.match(bad.detail, /events/);
    assert.equal((await inject(t, 'DELETE', '/api/v1/webhooks/not-a-uuid', apiKey)).statusCode, 400);
  });

  it('allows 5 webhooks per account; the 6th is 409 webhook_limit_reached', async () => {
    const { apiKey } = await t.account();
    for (let i = 0; i < 5; i++) assert.equal((await inject(t, 'POST', '/api/v1/webhooks', apiKey, { url: `${hookUrl}/${i}` })).statusCode, 201);
    const sixth = await inject(t, 'POST', '/api/v1/webhooks', apiKey, { url: `${hookUrl}/6` });
    assert.equal(sixth.statusCode, 409);
    assert.deepEqual({ error: sixth.json().error, limit: sixth.json().limit }, { error: 'webhook_limit_reached', limit: 5 });
    assert.match(sixth.json().message, /at most 5 webhooks/);
    assert.equal((await inject(t, 'GET', '/api/v1/webhooks', apiKey)).json().result.webhooks.length, 5);
  });

  it("keeps another account's webhooks out of sight: list, delete and test answer as if they did not exist", async () => {
    const owner = await t.account();
    const other = await t.account();
    const hook = (await inject(t, 'POST', '/api/v1/webhooks', owner.apiKey, { url: hookUrl })).json().result;
    assert.deepEqual((await inject(t, 'GET', '/api/v1/webhooks', other.apiKey)).json().result.webhooks, []);
    const del = await inject(t, 'DELETE', `/api/v1/webhooks/${hook.id}`, other.apiKey);
    assert.equal(del.statusCode, 404);
    assert.equal(del.json().error, 'webhook_not_found');
    assert.equal((await inject(t, 'POST', `/api/v1/webhooks/${hook.id}/test`, other.apiKey)).statusCode, 404);
    assert.equal((await inject(t, 'GET', '/api/v1/webhooks', owner.apiKey)).json().result.webhooks.length, 1);
  });
});

describe('webhook URLs without EGRESS_ALLOW', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  it('refuses private, loopback and local URLs, and plain http, at registration', async () => {
    const { apiKey } = await t.account();
    const cases: [string, string][] = [
      ['https://127.0.0.1/hook', 'loopback'],
      ['https://10.0.0.7/hook', 'private'],
      ['https://[::1]/hook', 'loopback'],
      ['https://169.254.169.254/latest', 'metadata'],
      ['https://localhost/hook', 'local-name'],
      ['https://hooks.internal/hook', 'local-name'],
      ['http://8.8.8.8/hook', 'scheme'],
      ['http://hooks.test/hook', 'scheme'],
    ];
    for (const [url, rule] of cases) {
      const res = await inject(t, 'POST', '/api/v1/webhooks', apiKey, { url });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      const body = res.json();
      assert.equal(body.error, 'url_not_allowed', url);
      assert.equal(body.rule, rule, `${url}: ${res.body}`);
    }
    assert.deepEqual((await inject(t, 'GET', '/api/v1/webhooks', apiKey)).json().result.webhooks, []);
  });
});

describe('webhook delivery', () => {
  let t: TestApp;
  const logs: { obj: Record<string, unknown>; msg: string }[] = [];
  const logEvents = new EventEmitter();
  const log = {
    warn(obj: Record<string, unknown>, msg: string) {
      logs.push({ obj, msg });
      logEvents.emit('warn', msg);
    },
  };
  /** A dispatcher over the app's own store and fetcher, with retries a millisecond apart. */
  const dispatcher = (options: { maxAttempts?: number; timeoutMs?: number; maxInFlight?: number; maxQueued?: number } = {}) =>
    new WebhookDispatcher({ store: t.services.webhooks.store, fetcher: t.services.fetcher, log, baseDelayMs: 1, ...options });

  before(async () => {
    t = await startTestApp({ env: EGRESS });
  });
  after(async () => t.close());

  async function register(apiKey: string, url: string): Promise<{ id: string; secret: string }> {
    const res = await inject(t, 'POST', '/api/v1/webhooks', apiKey, { url });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().result;
  }

  it('retries after a 500 and succeeds on the second attempt, with the same event id, each attempt signed', async () => {
    const receiver = await startReceiver((i) => (i === 0 ? 500 : 204));
    const d = dispatcher();
    try {
      const { accountId, apiKey } = await t.account();
      const hook = await register(apiKey, `http://hooks.test:${receiver.site.port}/jobs`);
      const delivered = nextReport(d, (r) => r.outcome === 'delivered');
      const eventId = d.emit(accountId, { type: 'mcp.job.finished', data: { ...JOB, accountId: 'leak' } as typeof JOB });
      const first = await receiver.nth(1);
      const second = await receiver.nth(2);
      const report = await delivered;
      assert.deepEqual({ attempt: report.attempt, statusCode: report.statusCode, eventId: report.eventId, webhookId: report.webhookId }, { attempt: 2, statusCode: 204, eventId, webhookId: hook.id });
      for (const got of [first, second]) {
        assert.equal(got.headers['webhook-id'], eventId);
        assert.equal(verifyWebhookSignature({ secret: hook.secret, headers: got.headers, body: got.body }), true);
      }
      const payload = JSON.parse(second.body);
      assert.deepEqual(payload, { id: eventId, type: 'mcp.job.finished', createdAt: payload.createdAt, data: JOB });
      assert.equal(first.body, second.body, 'a retry sends the same event');
      const listed = (await inject(t, 'GET', '/api/v1/webhooks', apiKey)).json().result.webhooks[0];
      assert.deepEqual({ ...listed.lastDelivery, at: undefined }, { eventId, type: 'mcp.job.finished', outcome: 'delivered', attempts: 2, statusCode: 204, error: null, at: undefined });
    } finally {
      d.close();
      await receiver.site.close();
    }
  });

  it('gives up after maxAttempts and records the failure; only subscribed webhooks of the account receive', async () => {
    const receiver = await startReceiver(() => 503);
    const d = dispatcher({ maxAttempts: 3 });
    try {
      const { accountId, apiKey } = await t.account();
      const other = await t.account();
      await register(other.apiKey, `http://hooks.test:${receiver.site.port}/other`);
      const hook = await register(apiKey, `http://hooks.test:${receiver.site.port}/mine`);
      const failed = nextReport(d, (r) => r.outcome === 'failed');
      const eventId = d.emit(accountId, { type: 'mcp.job.finished', data: JOB });
      const report = await failed;
      assert.deepEqual({ attempt: report.attempt, statusCode: report.statusCode, error: report.error, webhookId: report.webhookId, eventId: report.eventId }, { attempt: 3, statusCode: 503, error: 'the receiver answered HTTP 503', webhookId: hook.id, eventId });
      assert.equal(receiver.received.length, 3);
      assert.deepEqual(receiver.site.paths, ['/mine', '/mine', '/mine']);
      const listed = (await inject(t, 'GET', '/api/v1/webhooks', apiKey)).json().result.webhooks[0];
      assert.deepEqual({ outcome: listed.lastDelivery.outcome, attempts: listed.lastDelivery.attempts, statusCode: listed.lastDelivery.statusCode }, { outcome: 'failed', attempts: 3, statusCode: 503 });
    } finally {
      d.close();
      await receiver.site.close();
    }
  });

  it('refuses a private address again at delivery, without opening a connection', async () => {
    const receiver = await startReceiver(() => 204);
    const d = dispatcher({ maxAttempts: 2 });
    try {
      const { accountId } = await t.account();
      // Registered before the address became private: written to the store directly, past the REST check.
      const { webhook } = await t.services.webhooks.store.create(accountId, { url: `http://127.0.0.1:${receiver.site.port}/hook`, events: ['mcp.job.finished'] });
      const failed = nextReport(d, (r) => r.outcome === 'failed');
      d.emit(accountId, { type: 'mcp.job.finished', data: JOB });
      const report = await failed;
      assert.equal(report.webhookId, webhook.id);
      assert.equal(report.statusCode, null);
      assert.match(report.error ?? '', /^url_not_allowed: URL not allowed: the address 127\.0\.0\.1 is loopback/);
      assert.equal(receiver.site.connections, 0);
    } finally {
      d.close();
      await receiver.site.close();
    }
  });

  it('answers emit at once, and a receiver that never answers fails by the timeout', async () => {
    const receiver = await startReceiver(() => null);
    const d = dispatcher({ maxAttempts: 1, timeoutMs: 300 });
    try {
      const { accountId, apiKey } = await t.account();
      await register(apiKey, `http://hooks.test:${receiver.site.port}/slow`);
      const failed = nextReport(d, (r) => r.outcome === 'failed');
      const eventId = d.emit(accountId, { type: 'mcp.job.finished', data: JOB });
      assert.match(eventId, /^[0-9a-f-]{36}$/);
      assert.equal(receiver.received.length, 0, 'emit returned before anything was sent');
      const report = await failed;
      assert.match(report.error ?? '', /^fetch_failed: .*300 ms/);
    } finally {
      d.close();
      await receiver.site.close();
    }
  });

  it('bounds the queue: when full, the oldest waiting delivery is dropped with a log line', async () => {
    const receiver = await startReceiver((i) => (i === 0 ? null : 204));
    const d = dispatcher({ maxInFlight: 1, maxQueued: 2 });
    try {
      const { accountId, apiKey } = await t.account();
      await register(apiKey, `http://hooks.test:${receiver.site.port}/q`);
      const first = d.emit(accountId, { type: 'mcp.job.finished', data: { ...JOB, runId: 'run_a' } });
      const held = await receiver.nth(1);
      const dropped = once(logEvents, 'warn');
      const ids = ['run_b', 'run_c', 'run_d'].map((runId) => d.emit(accountId, { type: 'mcp.job.finished', data: { ...JOB, runId } }));
      assert.deepEqual(await dropped, ['webhook queue full: dropped the oldest waiting delivery']);
      assert.equal(logs.at(-1)?.obj['eventId'], ids[0]);
      assert.deepEqual(d.pending(), { queued: 2, scheduled: 0, inFlight: 1 });
      const delivered: string[] = [];
      const allDone = new Promise<void>((resolve) => {
        d.events.on('delivery', (r) => {
          if (r.outcome === 'delivered') delivered.push(r.eventId);
          if (delivered.length === 3) resolve();
        });
      });
      held.respond(204);
      await allDone;
      // The held one first; the two queued behind it may finish in either order (seen on PostgreSQL).
      assert.equal(delivered[0], first);
      assert.deepEqual(delivered.slice(1).sort(), [ids[1], ids[2]].sort());
      const runs = receiver.received.map((r) => JSON.parse(r.body).data.runId as string);
      assert.deepEqual([runs[0], ...runs.slice(1).sort()], ['run_a', 'run_c', 'run_d']);
    } finally {
      d.close();
      await receiver.site.close();
    }
  });

  it('abandons what is queued at shutdown', async () => {
    const receiver = await startReceiver(() => null);
    const d = dispatcher({ maxInFlight: 1 });
    try {
      const { accountId, apiKey } = await t.account();
      await register(apiKey, `http://hooks.test:${receiver.site.port}/s`);
      d.emit(accountId, { type: 'mcp.job.finished', data: JOB });
      await receiver.nth(1);
      d.close();
      assert.deepEqual(d.pending().queued + d.pending().scheduled, 0);
      // After close, emit still answers (an id) and sends nothing.
      assert.match(d.emit(accountId, { type: 'mcp.job.finished', data: JOB }), /^[0-9a-f-]{36}$/);
    } finally {
      await receiver.site.close();
    }
  });
});
