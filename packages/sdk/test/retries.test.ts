// The request loop against a loopback proxy in front of the real app: a failed first attempt is
// retried with the same Idempotency-Key and charged once (read from GET /api/v1/usage), Retry-After
// is honoured, a used-up quota and `x-should-retry: false` are never retried, maxRetries bounds
// the attempts, and a timeout and an abort end the call with their own errors.
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { APIConnectionError, APITimeoutError, APIUserAbortError, ConflictError, InternalServerError, QuotaExceededError, ToolServiceClient, ValidationError, type RouteAnswer } from '../src/index.ts';
import { retryDelayMs } from '../src/http.ts';
import { startSdkTestApp, type SdkTestApp } from './support/rest-app.ts';

/** What the proxy does with one request: pass it on, answer for the app, drop the socket, or never answer. */
type Step =
  | { do: 'forward' }
  | { do: 'forward-then-drop' }
  | { do: 'answer'; status: number; headers?: Record<string, string>; body?: unknown }
  | { do: 'drop' }
  | { do: 'hang' };

interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  atMs: number;
}

const EMI = { principal: 100000, rate: 10, tenure: 12 };

describe('retries, idempotency, timeout and abort', () => {
  let app: SdkTestApp;
  let proxy: Server;
  let proxyUrl: string;
  let script: Step[] = [];
  let seen: Seen[] = [];
  const waiters: (() => void)[] = [];
  const hanging = new Set<ServerResponse>();
  const clients: ToolServiceClient[] = [];

  const clientFor = (apiKey: string, options: { maxRetries?: number; timeoutMs?: number } = {}): ToolServiceClient => {
    const client = new ToolServiceClient({ apiKey, baseUrl: proxyUrl, ...options });
    clients.push(client);
    return client;
  };
  /** Resolves once the proxy has received `count` requests in all. */
  const received = (count: number): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (seen.length >= count) resolve();
        else waiters.push(check);
      };
      check();
    });
  const creditsUsed = async (apiKey: string): Promise<number> => {
    const usage = await new ToolServiceClient({ apiKey, baseUrl: app.baseUrl }).request<RouteAnswer<'usage_get'>>({ method: 'GET', path: '/api/v1/usage' });
    return usage.result.used;
  };

  before(async () => {
    app = await startSdkTestApp();
    const target = new URL(app.baseUrl);
    proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const key = req.headers['idempotency-key'];
        seen.push({ method: req.method ?? '', url: req.url ?? '', idempotencyKey: Array.isArray(key) ? key[0] : key, atMs: performance.now() });
        for (const wake of waiters.splice(0)) wake();
        const step = script.shift() ?? { do: 'forward' };
        if (step.do === 'hang') {
          hanging.add(res);
          return;
        }
        if (step.do === 'drop') return void req.socket.destroy();
        if (step.do === 'answer') {
          res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
          return void res.end(JSON.stringify(step.body ?? {}));
        }
        const upstream = httpRequest(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
          (answer) => {
            const body: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => body.push(chunk));
            answer.on('end', () => {
              // The app has answered (and charged); the client never hears of it.
              if (step.do === 'forward-then-drop') return void req.socket.destroy();
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(body));
            });
          },
        );
        upstream.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  });

  beforeEach(() => {
    script = [];
    seen = [];
  });

  after(async () => {
    for (const client of clients) await client.mcp.close();
    for (const res of hanging) res.socket?.destroy();
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await app?.t.close();
  });

  it('retries a 500 with the same Idempotency-Key and charges the call once', async () => {
    const { apiKey } = await app.t.account();
    script = [{ do: 'answer', status: 500, body: { status: false, code: 500, message: 'boom', detail: '', error: 'internal_error' } }];
    const answer = await clientFor(apiKey).calculators_emi_calculator(EMI);
    assert.equal(answer.result.emi, 8791.59);
    assert.equal(answer.meta.attempts, 2);
    assert.equal(seen.length, 2);
    assert.match(seen[0]?.idempotencyKey ?? '', /^sdk_[0-9a-f]{32}$/);
    assert.equal(seen[1]?.idempotencyKey, seen[0]?.idempotencyKey);
    assert.equal(await creditsUsed(apiKey), 1);
  });

  it('retries a call whose answer was lost after the app ran it: the retry is replayed, not charged again', async () => {
    const { apiKey } = await app.t.account();
    script = [{ do: 'forward-then-drop' }];
    const answer = await clientFor(apiKey).calculators_emi_calculator(EMI);
    assert.equal(answer.result.emi, 8791.59);
    assert.equal(seen.length, 2);
    assert.equal(seen[1]?.idempotencyKey, seen[0]?.idempotencyKey);
    assert.equal(answer.meta.replayed, true);
    assert.equal(await creditsUsed(apiKey), 1);
  });

  it('retries a dropped connection, a 408 and a 409 idempotency_in_progress, not a 400', async () => {
    const { apiKey } = await app.t.account();
    const client = clientFor(apiKey, { maxRetries: 3 });
    script = [
      { do: 'drop' },
      { do: 'answer', status: 408, body: { status: false, code: 408, message: 'slow', detail: '', error: 'request_timeout' } },
      { do: 'answer', status: 409, headers: { 'retry-after': '0' }, body: { status: false, code: 409, message: 'running', detail: '', error: 'idempotency_in_progress' } },
    ];
    const answer = await client.calculators_emi_calculator(EMI);
    assert.equal(answer.meta.attempts, 4);
    assert.equal(new Set(seen.map((s) => s.idempotencyKey)).size, 1);

    seen = [];
    script = [{ do: 'answer', status: 409, body: { status: false, code: 409, message: 'reused', detail: '', error: 'idempotency_key_reused' } }];
    await assert.rejects(client.calculators_emi_calculator(EMI), ConflictError);
    assert.equal(seen.length, 1);

    seen = [];
    await assert.rejects(client.calculators_emi_calculator({ ...EMI, tenure: 0.5 }), ValidationError);
    assert.equal(seen.length, 1);
  });

  it('waits what Retry-After says before retrying a 429 rate_limited', async () => {
    const { apiKey } = await app.t.account();
    script = [{ do: 'answer', status: 429, headers: { 'retry-after': '1' }, body: { status: false, code: 429, message: 'slow down', detail: '', error: 'rate_limited', retryAfterSeconds: 1 } }];
    await clientFor(apiKey).calculators_emi_calculator(EMI);
    assert.equal(seen.length, 2);
    const gap = (seen[1]?.atMs ?? 0) - (seen[0]?.atMs ?? 0);
    // The default first backoff is at most 500 ms: a gap of about a second is the header's.
    assert.ok(gap >= 950, `retried after ${gap.toFixed(0)} ms`);
  });

  it('never retries a used-up quota (a real quota_exhausted answer)', async () => {
    const { apiKey } = await app.t.account({ quota: 1 });
    const client = clientFor(apiKey, { maxRetries: 2 });
    await client.calculators_emi_calculator(EMI);
    seen = [];
    await assert.rejects(client.calculators_emi_calculator(EMI), QuotaExceededError);
    assert.equal(seen.length, 1);
  });

  it('honours x-should-retry: false on a 500, and stops after maxRetries (the client\'s or the call\'s)', async () => {
    const { apiKey } = await app.t.account();
    const boom = { status: 500, body: { status: false, code: 500, message: 'boom', detail: '', error: 'internal_error' } } as const;
    script = [{ do: 'answer', ...boom, headers: { 'x-should-retry': 'false' } }];
    await assert.rejects(clientFor(apiKey).calculators_emi_calculator(EMI), InternalServerError);
    assert.equal(seen.length, 1);

    seen = [];
    script = [1, 2, 3, 4].map(() => ({ do: 'answer', ...boom, headers: { 'retry-after': '0' } }));
    await assert.rejects(clientFor(apiKey, { maxRetries: 2 }).calculators_emi_calculator(EMI), InternalServerError);
    assert.equal(seen.length, 3);

    seen = [];
    script = [{ do: 'answer', ...boom }];
    await assert.rejects(clientFor(apiKey, { maxRetries: 2 }).calculators_emi_calculator(EMI, { maxRetries: 0 }), InternalServerError);
    assert.equal(seen.length, 1);
    assert.equal(await creditsUsed(apiKey), 0);
  });

  it('ends an attempt that gets no answer with APITimeoutError, and retries it like a lost connection', async () => {
    const { apiKey } = await app.t.account();
    script = [{ do: 'hang' }];
    const err = await clientFor(apiKey, { maxRetries: 0 }).calculators_emi_calculator(EMI, { timeoutMs: 200 }).then(() => assert.fail('answered'), (error: unknown) => error);
    assert.ok(err instanceof APITimeoutError, String(err));
    assert.ok(err instanceof APIConnectionError);
    assert.equal(err.code, 'timeout');

    seen = [];
    script = [{ do: 'hang' }];
    const answer = await clientFor(apiKey, { maxRetries: 1, timeoutMs: 2000 }).calculators_emi_calculator(EMI);
    assert.equal(answer.result.emi, 8791.59);
    assert.equal(seen.length, 2);
    assert.equal(seen[1]?.idempotencyKey, seen[0]?.idempotencyKey);
  });

  it('an abort while waiting for the answer, or between attempts, rejects with APIUserAbortError carrying the reason', { timeout: 20_000 }, async () => {
    const { apiKey } = await app.t.account();
    const client = clientFor(apiKey);
    script = [{ do: 'hang' }];
    const controller = new AbortController();
    const call = client.calculators_emi_calculator(EMI, { signal: controller.signal });
    await received(1);
    const reason = new Error('user navigated away');
    controller.abort(reason);
    const err = await call.then(() => assert.fail('answered'), (error: unknown) => error);
    assert.ok(err instanceof APIUserAbortError, String(err));
    assert.equal(err.cause, reason);

    // Aborted during a 30 s Retry-After: no second attempt, and no 30 s wait (the test's timeout).
    seen = [];
    script = [{ do: 'answer', status: 503, headers: { 'retry-after': '30' }, body: { status: false, code: 503, message: 'busy', detail: '', error: 'engine_unavailable' } }];
    let answered!: () => void;
    const gotAnswer = new Promise<void>((resolve) => (answered = resolve));
    const watched = new ToolServiceClient({
      apiKey,
      baseUrl: proxyUrl,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        await response.clone().arrayBuffer();
        answered();
        return response;
      },
    });
    clients.push(watched);
    const second = new AbortController();
    const waiting = watched.calculators_emi_calculator(EMI, { signal: second.signal });
    await gotAnswer;
    // The body is in memory: what is left before the wait are promise callbacks, done before a timer.
    await new Promise((resolve) => setTimeout(resolve, 20));
    second.abort('stop');
    const stopped = await waiting.then(() => assert.fail('answered'), (error: unknown) => error);
    assert.ok(stopped instanceof APIUserAbortError, String(stopped));
    assert.equal(stopped.cause, 'stop');
    assert.equal(seen.length, 1);

    // A signal aborted before the call sends nothing.
    seen = [];
    await assert.rejects(client.calculators_emi_calculator(EMI, { signal: AbortSignal.abort('early') }), APIUserAbortError);
    assert.equal(seen.length, 0);
  });

  it('backs off exponentially with jitter from 0.5 s to 8 s, or as Retry-After says (seconds or a date, up to 60 s)', () => {
    const none = new Headers();
    assert.equal(retryDelayMs(0, none, () => 0), 500);
    assert.equal(retryDelayMs(0, none, () => 1), 375);
    assert.equal(retryDelayMs(1, none, () => 0), 1000);
    assert.equal(retryDelayMs(3, none, () => 0), 4000);
    assert.equal(retryDelayMs(10, none, () => 0), 8000);
    assert.equal(retryDelayMs(10, none, () => 1), 6000);
    assert.equal(retryDelayMs(0, new Headers({ 'retry-after': '3' })), 3000);
    const inTwoSeconds = new Date(Date.now() + 2000).toUTCString();
    const fromDate = retryDelayMs(0, new Headers({ 'retry-after': inTwoSeconds }));
    assert.ok(fromDate > 0 && fromDate <= 2000, String(fromDate));
    assert.equal(retryDelayMs(0, new Headers({ 'retry-after': '120' })), Infinity);
  });
});
