// The request observer on its own Fastify app (a loopback port, raw sockets): a reply recorded
// as abandoned when its connection closed is not recorded again when Fastify's 'error' path
// completes it afterwards, and a reply that finished is recorded once by requestCompleted even
// when its connection closes before its onResponse hooks have run. The same wiring as the
// service's (src/server.ts): opened() from an onRequest hook, watch() on the HTTP server.
//
// Then, on a real server process (SQLite, or PostgreSQL with TEST_DATABASE=postgres), the
// requests Fastify's own recording never sees: those the router fails (bad percent-encoding, an
// over-long path segment) and those Node's HTTP parser refuses (headers over the limit, a bad
// header, headers or a body not sent in time). Each gets exactly one line by its request id and
// one count in http_requests_total, and none is an error.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { Metrics } from '../../src/core/metrics.ts';
import { RequestObserver } from '../../src/rest/request-observer.ts';
import { EMI, countsAdded, requestLines, routeCounts, seedAccount, startServer, type LogLine, type Server } from '../support/server-process.ts';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  statusCode?: number;
}

describe('RequestObserver records each request once', () => {
  const lines: Line[] = [];
  const metrics = new Metrics();
  let app: FastifyInstance;
  let port: number;
  /** Resolves once the error path has completed the request left by its client. */
  let erred: () => void = () => undefined;
  const errorPathDone = new Promise<void>((resolve) => (erred = resolve));
  /** Lets the slow onResponse hook of /slow-after finish. */
  let releaseHook: () => void = () => undefined;
  const hookReleased = new Promise<void>((resolve) => (releaseHook = resolve));
  let hookStarted: () => void = () => undefined;
  const hookRunning = new Promise<void>((resolve) => (hookStarted = resolve));

  before(async () => {
    const observer = new RequestObserver(metrics);
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
    app = Fastify({ loggerInstance: log as FastifyBaseLogger, logController: observer, genReqId: (req) => String(req.headers['x-request-id']) });
    app.addHook('onRequest', (_request, reply, done) => {
      observer.opened(reply);
      done();
    });
    observer.watch(app.server);
    // Answers only after its client has gone, then ends its response with an error, as Fastify's
    // own paths do (e.g. a stream that fails): requestCompleted(err) comes after the close.
    app.get('/left-then-error', async (_request, reply) => {
      reply.hijack();
      await once(reply.raw, 'close');
      reply.raw.emit('error', new Error('written to a closed connection'));
      erred();
    });
    // Finishes at once; its onResponse hook holds requestCompleted back until released.
    app.get('/slow-after', {
      onResponse: (_request, _reply, done) => {
        hookStarted();
        void hookReleased.then(() => done());
      },
    }, async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  after(() => app.close());

  /**
   * Opens a connection and writes `text`; `serverClosed` is the server's side of it closing, heard
   * after the observer's own listener (registered first), so the observer has acted by then.
   */
  async function send(text: string): Promise<{ socket: Socket; serverClosed: Promise<void> }> {
    const accepted = once(app.server, 'connection');
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    const [server] = (await accepted) as [Socket];
    socket.write(text);
    return { socket, serverClosed: new Promise((resolve) => server.once('close', () => resolve())) };
  }

  const of = (reqId: string) => lines.filter((line) => line.reqId === reqId).map((line) => [line.level, line.msg, line.statusCode]);

  /** http_requests_total of GET `route`, by status. */
  async function requests(route: string): Promise<Record<string, number>> {
    const text = await metrics.registry.metrics();
    const found: Record<string, number> = {};
    const prefix = `http_requests_total{method="GET",route="${route}",status="`;
    for (const line of text.split('\n')) if (line.startsWith(prefix)) found[line.slice(prefix.length).split('"')[0]!] = Number(line.split(' ').pop());
    return found;
  }

  it('abandoned, then completed by the error path: one warn line and one 499', async () => {
    const { socket } = await send('GET /left-then-error HTTP/1.1\r\nHost: x\r\nX-Request-Id: left-then-error\r\n\r\n');
    socket.destroy();
    await errorPathDone;
    assert.deepEqual(of('left-then-error'), [[40, 'request abandoned by the client', 499]]);
    assert.deepEqual(await requests('/left-then-error'), { 499: 1 });
  });

  it('finished, its connection closed before its onResponse hook ran: one ordinary line', async () => {
    const { socket, serverClosed } = await send('GET /slow-after HTTP/1.1\r\nHost: x\r\nX-Request-Id: slow-after\r\n\r\n');
    await hookRunning; // the response has finished; requestCompleted waits for the hook
    socket.end();
    await serverClosed;
    assert.deepEqual(of('slow-after'), [], 'nothing recorded at the close');
    releaseHook();
    while (of('slow-after').length === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(of('slow-after'), [[30, 'request', 200]]);
    assert.deepEqual(await requests('/slow-after'), { 200: 1 });
  });
});

describe('requests the router fails or the HTTP parser refuses: one line and one count each (a real server process)', () => {
  let dataDir: string;
  let server: Server;
  let port: number;
  let apiKey: string;
  const sockets: Socket[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'refused-requests-'));
    ({ apiKey } = await seedAccount(dataDir, 'refused'));
    // Timeouts a fraction of a second (checked every 60 ms), and no body pace check: a body that
    // stops is then cut by the request timeout alone.
    server = await startServer(dataDir, { LOG_LEVEL: 'info', HEADERS_TIMEOUT_MS: '600', REQUEST_TIMEOUT_MS: '1500', BODY_MIN_BYTES_PER_SECOND: '0' });
    port = Number(new URL(server.base).port);
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await server?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Writes `text` on a new connection and resolves with all the server sent once it closed the connection. */
  async function exchange(text: string, endAfter = false): Promise<{ status: number; requestId: string; body: string }> {
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    socket.on('error', () => undefined);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const closed = once(socket, 'close');
    await once(socket, 'connect');
    socket.write(text);
    // Ends the client's side (its FIN) with the request unfinished, still reading the answer.
    if (endAfter) socket.end();
    await closed;
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1]);
    const requestId = /\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(received)?.[1] ?? '';
    return { status, requestId, body: received.slice(received.indexOf('\r\n\r\n') + 4) };
  }

  const counted = (method: string, route: string) => routeCounts(server, method, route);
  const added = countsAdded;

  /** The request's one line, its fields but ms (asserted to be a time). */
  async function onlyLine(requestId: string): Promise<Record<string, unknown>> {
    assert.ok(requestId, 'the answer names its request id');
    const lines = await requestLines(server, requestId);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const { ms, time: _time, pid: _pid, hostname: _host, reqId, ...rest } = lines[0]!;
    assert.equal(typeof ms, 'number');
    assert.ok((ms as number) >= 0);
    assert.equal(reqId, requestId);
    return rest;
  }

  it('a path that is not valid percent-encoding: its 400 and one ordinary line, the query redacted', { timeout: 60_000 }, async () => {
    const before = await counted('GET', 'unmatched');
    const answer = await exchange(`GET /api/v1/%ZZ?api_key=${apiKey}&format=json HTTP/1.1\r\nHost: x\r\nX-Request-Id: router-bad-url\r\nConnection: close\r\n\r\n`);
    assert.equal(answer.status, 400);
    assert.equal(answer.requestId, 'router-bad-url');
    assert.deepEqual(await onlyLine('router-bad-url'), { level: 30, msg: 'request', method: 'GET', url: '/api/v1/%ZZ?api_key=[redacted]&format=json', statusCode: 400 });
    assert.deepEqual(added(before, await counted('GET', 'unmatched')), { 400: 1 });
  });

  it('a path segment over the router limit: its 414 and one line, the URL shortened', { timeout: 60_000 }, async () => {
    const before = await counted('GET', 'unmatched');
    const path = `/files/${'a'.repeat(1100)}/x.md`;
    const answer = await exchange(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Request-Id: router-long-segment\r\nConnection: close\r\n\r\n`);
    assert.equal(answer.status, 414);
    assert.deepEqual(await onlyLine('router-long-segment'), { level: 30, msg: 'request', method: 'GET', url: `${path.slice(0, 1024)}…`, statusCode: 414 });
    assert.deepEqual(added(before, await counted('GET', 'unmatched')), { 414: 1 });
  });

  it('headers over the limit: 431 and one info line with the request line only, none of the headers', { timeout: 60_000 }, async () => {
    const before = await counted('GET', 'unmatched');
    const padding = 'p'.repeat(20_000);
    const answer = await exchange(`GET /api/v1/tools?format=json&q=pdf HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${apiKey}\r\nX-Request-Id: not-read\r\nX-Padding: ${padding}\r\n\r\n`);
    assert.equal(answer.status, 431);
    assert.match(answer.body, /"error":"headers_too_large"/);
    assert.match(answer.requestId, /^[0-9a-f-]{36}$/, 'a new id: the headers were never read');
    assert.equal(JSON.parse(answer.body).requestId, answer.requestId);
    const line = await onlyLine(answer.requestId);
    assert.deepEqual(line, { level: 30, msg: 'request refused by the HTTP parser', method: 'GET', url: '/api/v1/tools?format=json&q=pdf', statusCode: 431, code: 'HPE_HEADER_OVERFLOW' });
    const raw = server.output().split('\n').find((text) => text.includes(answer.requestId) && text.includes('refused')) ?? '';
    assert.ok(!raw.includes('ppppp') && !raw.includes(apiKey), raw.slice(0, 300));
    assert.deepEqual(added(before, await counted('GET', 'unmatched')), { 431: 1 });
  });

  it('a header the parser refuses: 400 and one line', { timeout: 60_000 }, async () => {
    const before = await counted('POST', 'unmatched');
    const answer = await exchange(`POST ${EMI} HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n`);
    assert.equal(answer.status, 400);
    assert.deepEqual(await onlyLine(answer.requestId), { level: 30, msg: 'request refused by the HTTP parser', method: 'POST', url: EMI, statusCode: 400, code: 'HPE_INVALID_HEADER_TOKEN' });
    assert.deepEqual(added(before, await counted('POST', 'unmatched')), { 400: 1 });
  });

  it('headers not sent in time: 408 and one line, with no method or URL (nothing was read whole)', { timeout: 60_000 }, async () => {
    const before = await counted('unknown', 'unmatched');
    const answer = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    assert.equal(answer.status, 408);
    const line = await onlyLine(answer.requestId);
    assert.deepEqual(line, { level: 30, msg: 'request refused by the HTTP parser', statusCode: 408, code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    assert.deepEqual(added(before, await counted('unknown', 'unmatched')), { 408: 1 });
  });

  it('a client that ends its side in the middle of a head: one line, the parser\'s (the head came earlier: no method or URL)', { timeout: 60_000 }, async () => {
    const before = await counted('unknown', 'unmatched');
    const answer = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n', true);
    assert.equal(answer.status, 400);
    assert.deepEqual(await onlyLine(answer.requestId), { level: 30, msg: 'request refused by the HTTP parser', statusCode: 400, code: 'HPE_INVALID_EOF_STATE' });
    assert.deepEqual(added(before, await counted('unknown', 'unmatched')), { 400: 1 });
  });

  it('a body cut by the request timeout: 408 under the request\'s own id, one line, counted on its route (not also as abandoned)', { timeout: 60_000 }, async () => {
    const before = await counted('POST', EMI);
    const head = `POST ${EMI} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${apiKey}\r\nX-Request-Id: body-timeout\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"principal":`;
    const answer = await exchange(head);
    assert.equal(answer.status, 408);
    assert.equal(answer.requestId, 'body-timeout');
    const line = await onlyLine('body-timeout');
    assert.deepEqual(line, { level: 30, msg: 'request refused by the HTTP parser', method: 'POST', url: EMI, statusCode: 408, code: 'ERR_HTTP_REQUEST_TIMEOUT', receivedBytes: Buffer.byteLength(head) });
    assert.deepEqual(added(before, await counted('POST', EMI)), { 408: 1 });
  });

  it('no line of any of these is an error', () => {
    const errors = server.output().split('\n').filter((line) => line.startsWith('{') && (JSON.parse(line) as LogLine).level >= 50);
    assert.deepEqual(errors, []);
  });
});
