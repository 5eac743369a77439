// Every error class from a real response of the app (a loopback stand-in only for a 5xx and a
// closed port for a refused connection), to-jpg's short error body read into the same classes,
// and errorFromBody's reading of MCP isError bodies that carry a code but no status.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  APIConnectionError,
  AuthenticationError,
  ConflictError,
  GoneError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  QuotaExceededError,
  RateLimitError,
  ToolServiceClient,
  ToolServiceError,
  ValidationError,
  errorFromBody,
} from '../src/index.ts';
import { freePort, startSdkTestApp, type SdkTestApp } from './support/rest-app.ts';

/** Resolves to the error a call rejected with (fails the test if it resolved). */
async function failure(call: Promise<unknown>): Promise<ToolServiceError> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ToolServiceError, `expected a ToolServiceError, got ${String(err)}`);
    return err;
  }
  assert.fail('the call succeeded');
}

describe('errors from real responses', () => {
  let app: SdkTestApp;
  let apiKey: string;
  let stub: Server | undefined;
  const clients: ToolServiceClient[] = [];
  const clientFor = (key: string, options: { baseUrl?: string; maxRetries?: number } = {}): ToolServiceClient => {
    const client = new ToolServiceClient({ apiKey: key, baseUrl: options.baseUrl ?? app.baseUrl, maxRetries: options.maxRetries ?? 0 });
    clients.push(client);
    return client;
  };

  before(async () => {
    app = await startSdkTestApp();
    ({ apiKey } = await app.t.account());
  });

  after(async () => {
    for (const client of clients) await client.mcp.close();
    if (stub) await new Promise((resolve) => stub?.close(resolve));
    await app?.t.close();
  });

  it('401: a key the service does not know is an AuthenticationError with the envelope fields', async () => {
    const err = await failure(clientFor('uts_live_not_a_real_key').calculators_emi_calculator({ principal: 1, rate: 1, tenure: 1 }));
    assert.ok(err instanceof AuthenticationError);
    assert.equal(err.status, 401);
    assert.equal(err.code, 'invalid_api_key');
    assert.ok(err.message.length > 0);
    assert.equal(typeof err.detail, 'string');
    assert.match(err.requestId ?? '', /\S/);
    assert.equal(err.requestId, err.headers?.get('x-request-id'));
  });

  it('403: a key limited to another tool is a PermissionDeniedError', async () => {
    const limited = await app.t.account({ tools: ['calculators_gst_calculator'] });
    const err = await failure(clientFor(limited.apiKey).calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 }));
    assert.ok(err instanceof PermissionDeniedError);
    assert.equal(err.status, 403);
    assert.equal(err.code, 'tool_not_allowed');
  });

  it('404: an unknown route or tool is a NotFoundError', async () => {
    const err = await failure(clientFor(apiKey).request({ method: 'GET', path: '/api/v1/no-such-family/no-such-tool' }));
    assert.ok(err instanceof NotFoundError);
    assert.equal(err.status, 404);
    // A tool path that names no tool says so, with the nearest tools (none near here).
    assert.equal(err.code, 'unknown_tool');
    const route = await failure(clientFor(apiKey).request({ method: 'GET', path: '/no/such/route' }));
    assert.ok(route instanceof NotFoundError);
    assert.equal(route.code, 'not_found');
  });

  it('400: input the tool refuses is a ValidationError naming the field', async () => {
    const err = await failure(clientFor(apiKey).calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 0.5 }));
    assert.ok(err instanceof ValidationError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'validation_error');
    assert.ok(err.issues.some((issue) => JSON.stringify(issue).includes('tenure')), JSON.stringify(err.issues));
  });

  it('409: an Idempotency-Key reused with another body is a ConflictError', async () => {
    const client = clientFor(apiKey);
    await client.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 }, { idempotencyKey: 'errors-test-409' });
    const err = await failure(client.calculators_emi_calculator({ principal: 2000, rate: 5, tenure: 3 }, { idempotencyKey: 'errors-test-409' }));
    assert.ok(err instanceof ConflictError);
    assert.equal(err.status, 409);
    assert.equal(err.code, 'idempotency_key_reused');
  });

  it('429 rate_limited: a RateLimitError with retryAfterSeconds from the answer', async () => {
    const slow = await app.t.account({ rateLimit: 1 });
    const client = clientFor(slow.apiKey);
    await client.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 });
    const err = await failure(client.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 }));
    assert.ok(err instanceof RateLimitError);
    assert.equal(err.status, 429);
    assert.equal(err.code, 'rate_limited');
    assert.ok((err.retryAfterSeconds ?? 0) > 0, String(err.retryAfterSeconds));
  });

  it('429 quota_exhausted: a QuotaExceededError with resetAt', async () => {
    const poor = await app.t.account({ quota: 1 });
    const client = clientFor(poor.apiKey);
    await client.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 });
    const err = await failure(client.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 }));
    assert.ok(err instanceof QuotaExceededError);
    assert.equal(err.status, 429);
    assert.equal(err.code, 'quota_exhausted');
    assert.ok(err.resetAt && !Number.isNaN(Date.parse(err.resetAt)), String(err.resetAt));
  });

  it("to-jpg's short error body ({ status, message }) maps to the same classes", async () => {
    const image = { file: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), fileName: 'x.png' };
    const unauthenticated = await failure(clientFor('uts_live_not_a_real_key').convertors_to_jpg(image));
    assert.ok(unauthenticated instanceof AuthenticationError);
    assert.equal(unauthenticated.status, 401);
    assert.deepEqual(Object.keys(unauthenticated.body as object).sort(), ['message', 'status']);
    assert.ok(unauthenticated.message.length > 0);

    const refused = await failure(clientFor(apiKey).convertors_to_jpg({ file: new TextEncoder().encode('not an image at all'), fileName: 'notes.txt' }));
    const body = refused.body as { status: number; message: string };
    assert.deepEqual(Object.keys(body).sort(), ['message', 'status']);
    assert.equal(refused.status, body.status);
    assert.ok(body.status >= 400 && body.status < 500, String(body.status));
    assert.equal(refused.message, body.message);
  });

  it('5xx: an answer of 500 is an InternalServerError', async () => {
    stub = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': 'stub-1' });
      res.end(JSON.stringify({ status: false, code: 500, message: 'Internal error', detail: 'stub', error: 'internal_error', requestId: 'stub-1' }));
    });
    await new Promise<void>((resolve) => stub?.listen(0, '127.0.0.1', resolve));
    const { port } = stub.address() as { port: number };
    const err = await failure(clientFor(apiKey, { baseUrl: `http://127.0.0.1:${port}` }).calculators_emi_calculator({ principal: 1, rate: 1, tenure: 1 }));
    assert.ok(err instanceof InternalServerError);
    assert.equal(err.status, 500);
    assert.equal(err.code, 'internal_error');
    assert.equal(err.requestId, 'stub-1');
  });

  it('a refused connection is an APIConnectionError without a status', async () => {
    const port = await freePort();
    const err = await failure(clientFor(apiKey, { baseUrl: `http://127.0.0.1:${port}` }).calculators_emi_calculator({ principal: 1, rate: 1, tenure: 1 }));
    assert.ok(err instanceof APIConnectionError);
    assert.equal(err.status, undefined);
    assert.equal(err.code, 'connection_error');
  });
});

describe('errorFromBody (MCP isError bodies)', () => {
  it('maps a code without a status by the table, and a numeric status or code as given', () => {
    const cases: [unknown, new (...args: never[]) => ToolServiceError, number][] = [
      [{ status: 'error', error: 'unknown_tool', message: 'No tool x' }, NotFoundError, 404],
      [{ status: 'error', error: 'tool_not_allowed', message: 'no' }, PermissionDeniedError, 403],
      [{ status: 'error', error: 'invalid_api_key', message: 'no' }, AuthenticationError, 401],
      [{ status: 'error', error: 'validation_error', message: 'bad' }, ValidationError, 400],
      [{ status: 'error', error: 'rate_limited', message: 'slow down', retryAfterSeconds: 7 }, RateLimitError, 429],
      [{ status: 'error', error: 'quota_exhausted', message: 'used up', resetAt: '2026-12-01T00:00:00.000Z' }, QuotaExceededError, 429],
      [{ status: 'error', error: 'something_new', message: '?' }, InternalServerError, 500],
      [{ status: 422, message: 'short body' }, ValidationError, 422],
      [{ status: false, code: 410, error: 'link_expired', message: 'expired' }, GoneError, 410],
    ];
    for (const [body, type, status] of cases) {
      const err = errorFromBody(0, body, new Headers());
      assert.ok(err instanceof type, `${JSON.stringify(body)} -> ${err.name}`);
      assert.equal(err.status, status, JSON.stringify(body));
    }
    const limited = errorFromBody(0, { status: 'error', error: 'rate_limited', message: 'slow', retryAfterSeconds: 7 }, new Headers());
    assert.equal(limited.retryAfterSeconds, 7);
    const quota = errorFromBody(0, { error: 'quota_exhausted', message: 'used up', resetAt: '2026-12-01T00:00:00.000Z' }, new Headers());
    assert.ok(quota instanceof QuotaExceededError && quota.resetAt === '2026-12-01T00:00:00.000Z');
    // The status given wins over the body's.
    assert.ok(errorFromBody(403, { error: 'unknown_tool' }, new Headers()) instanceof PermissionDeniedError);
  });
});
