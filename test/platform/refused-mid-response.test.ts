// A request Node's HTTP parser refuses on a connection where a response is already on its way
// (headers sent, body still streaming: the legacy MCP SSE stream, a download, a long answer) gets
// no answer of its own: a status line written there would land inside that response's body and
// corrupt it for the client. The connection is closed instead, and the refusal still has its one
// access line and count (CLIENT_CLOSED_STATUS: it got no answer). Where no response is under way
// (a fresh connection, or a keep-alive one whose last response finished) the refusal is answered
// with the JSON 400 envelope as before.
//
// On a real server process (SQLite, or PostgreSQL with TEST_DATABASE=postgres) with raw sockets,
// and, for a bad chunk in the body of a request whose own answer has begun (no route of the
// service answers before its body is read), on a Fastify app wired as the service's is.
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
import { clientErrorHandler } from '../../src/rest/http-errors.ts';
import { CLIENT_CLOSED_STATUS, RequestObserver } from '../../src/rest/request-observer.ts';
import { countsAdded, requestLines, routeCounts, seedAccount, startServer, type LogLine, type Server } from '../support/server-process.ts';

/** A raw client connection: all it received (latin1), a wait for a text in it, and its close. */
interface Connection {
  socket: Socket;
  received(): string;
  /** Resolves once the received bytes contain `text` (rejects if the connection closes first). */
  until(text: string): Promise<void>;
  closed: Promise<unknown>;
}

const sockets: Socket[] = [];

async function openConnection(port: number): Promise<Connection> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  // The server may close with bytes of ours unread (a reset): the close is what the tests wait for.
  socket.on('error', () => undefined);
  let received = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  socket.setEncoding('latin1').on('data', (chunk: string) => {
    received += chunk;
    for (const waiter of waiters.filter((w) => received.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const closed = once(socket, 'close');
  await once(socket, 'connect');
  return {
    socket,
    received: () => received,
    until(text) {
      if (received.includes(text)) return Promise.resolve();
      const seen = new Promise<void>((resolve) => waiters.push({ text, resolve }));
      const gone = closed.then(() => {
        throw new Error(`the connection closed before "${text}" came; received:\n${received}`);
      });
      return Promise.race([seen, gone]);
    },
    closed,
  };
}

/** The status lines the client read, in order. */
function statusLines(received: string): string[] {
  return received.match(/HTTP\/1\.[01] \d{3}[^\r\n]*/g) ?? [];
}

/** A log line's fields but those every line has (time, pid, hostname, its id) and ms, asserted to be a time. */
function fieldsOf(line: LogLine): Record<string, unknown> {
  const { ms, time: _time, pid: _pid, hostname: _host, reqId: _reqId, ...rest } = line;
  assert.equal(typeof ms, 'number');
  assert.ok((ms as number) >= 0);
  return rest;
}

after(() => {
  for (const socket of sockets) socket.destroy();
});

describe('a refusal on a connection with a response under way: no status line into it (a real server process)', () => {
  let dataDir: string;
  let server: Server;
  let port: number;
  let apiKey: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'refused-mid-response-'));
    ({ apiKey } = await seedAccount(dataDir, 'refused-mid-response'));
    server = await startServer(dataDir, { LOG_LEVEL: 'info' });
    port = Number(new URL(server.base).port);
  });
  after(async () => {
    await server?.kill('SIGKILL');
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The refused lines logged for `text` in the raw request line (one is awaited first). */
  async function refusedLines(text: string): Promise<LogLine[]> {
    await server.logged(text);
    return server
      .output()
      .split('\n')
      .filter((line) => line.includes(text) && line.includes('request refused by the HTTP parser'))
      .map((line) => JSON.parse(line) as LogLine);
  }

  /**
   * Opens the legacy SSE stream with its X-Request-Id, waits for its endpoint event (its head and
   * first bytes are out), then writes `junk` on the same connection and waits for the close.
   */
  async function junkAfterStream(requestId: string, junk: string): Promise<{ received: string; headEnd: number }> {
    const connection = await openConnection(port);
    connection.socket.write(`GET /mcp HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${apiKey}\r\nAccept: text/event-stream\r\nX-Request-Id: ${requestId}\r\n\r\n`);
    await connection.until('event: endpoint');
    const headEnd = connection.received().indexOf('\r\n\r\n');
    assert.ok(headEnd > 0);
    connection.socket.write(junk);
    await connection.closed;
    return { received: connection.received(), headEnd };
  }

  /** The stream was one response, uncorrupted: its head, then event-stream bytes only. */
  function assertOneResponse(received: string, headEnd: number): void {
    assert.deepEqual(statusLines(received), ['HTTP/1.1 200 OK'], received);
    assert.match(received.slice(0, headEnd), /\r\ncontent-type: text\/event-stream/i);
    const body = received.slice(headEnd + 4);
    assert.ok(!body.includes('HTTP/1.'), body);
    assert.ok(!body.includes('malformed_request'), body);
    // One whole chunk (the stream is chunked) holding the endpoint event, and nothing after it.
    assert.match(body, /^54\r\nevent: endpoint\ndata: \/mcp\/messages\?sessionId=[0-9a-f-]{36}\n\n\r\n$/);
  }

  it('a malformed request pipelined after the SSE stream: the stream is closed, unanswered; one 499 line and count for the refusal, and the stream its own 200', { timeout: 60_000 }, async () => {
    const refusedBefore = await routeCounts(server, 'POST', 'unmatched');
    const streamBefore = await routeCounts(server, 'GET', '/mcp');
    const { received, headEnd } = await junkAfterStream('stream-then-bad-header', 'POST /after-the-stream HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n');
    assertOneResponse(received, headEnd);

    const refused = await refusedLines('"url":"/after-the-stream"');
    assert.equal(refused.length, 1, JSON.stringify(refused));
    assert.match(String(refused[0]!['reqId']), /^[0-9a-f-]{36}$/, 'a new id: the request was never read');
    assert.deepEqual(fieldsOf(refused[0]!), { level: 30, msg: 'request refused by the HTTP parser', method: 'POST', url: '/after-the-stream', statusCode: CLIENT_CLOSED_STATUS, code: 'HPE_INVALID_HEADER_TOKEN' });
    // The stream ended with its connection: its one line, as a stream the server ended is logged.
    const streamLines = await requestLines(server, 'stream-then-bad-header');
    assert.deepEqual(streamLines.map(fieldsOf), [{ level: 30, msg: 'request', method: 'GET', url: '/mcp', statusCode: 200 }]);
    assert.deepEqual(countsAdded(refusedBefore, await routeCounts(server, 'POST', 'unmatched')), { [CLIENT_CLOSED_STATUS]: 1 });
    assert.deepEqual(countsAdded(streamBefore, await routeCounts(server, 'GET', '/mcp')), { 200: 1 });
  });

  it('bytes that are no HTTP at all after the SSE stream: likewise, counted under the unknown method', { timeout: 60_000 }, async () => {
    const refusedBefore = await routeCounts(server, 'unknown', 'unmatched');
    const { received, headEnd } = await junkAfterStream('stream-then-garbage', '\x16\x03\x01 not http at all \x00\xff\r\n\r\n');
    assertOneResponse(received, headEnd);
    await requestLines(server, 'stream-then-garbage');
    // No request line to name: the refused line has neither method nor URL (this test's alone has this code).
    const refused = server.output().split('\n').filter((line) => line.includes('"code":"HPE_INVALID_METHOD"')).map((line) => JSON.parse(line) as LogLine);
    assert.deepEqual(refused.map(fieldsOf), [{ level: 30, msg: 'request refused by the HTTP parser', statusCode: CLIENT_CLOSED_STATUS, code: 'HPE_INVALID_METHOD' }]);
    assert.deepEqual(countsAdded(refusedBefore, await routeCounts(server, 'unknown', 'unmatched')), { [CLIENT_CLOSED_STATUS]: 1 });
  });

  it('a keep-alive connection whose response has finished: the refusal is answered, the JSON 400 after the 200', { timeout: 60_000 }, async () => {
    const refusedBefore = await routeCounts(server, 'POST', 'unmatched');
    const connection = await openConnection(port);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: healthz-then-bad-header\r\n\r\n');
    await connection.until('{"status":"ok"}');
    connection.socket.write('POST /after-a-finished-answer HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n');
    await connection.closed;
    const received = connection.received();
    assert.deepEqual(statusLines(received), ['HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request'], received);
    const second = received.slice(received.indexOf('HTTP/1.1 400'));
    const requestId = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(second)?.[1] ?? '';
    const body = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    assert.equal(body['error'], 'malformed_request');
    assert.equal(body['requestId'], requestId);
    const refused = await refusedLines('"url":"/after-a-finished-answer"');
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!['reqId'], requestId);
    assert.deepEqual(fieldsOf(refused[0]!), { level: 30, msg: 'request refused by the HTTP parser', method: 'POST', url: '/after-a-finished-answer', statusCode: 400, code: 'HPE_INVALID_HEADER_TOKEN' });
    assert.deepEqual(countsAdded(refusedBefore, await routeCounts(server, 'POST', 'unmatched')), { 400: 1 });
  });

  it('a junk request on a fresh connection: the JSON 400 envelope, one line and one 400', { timeout: 60_000 }, async () => {
    const refusedBefore = await routeCounts(server, 'POST', 'unmatched');
    const connection = await openConnection(port);
    connection.socket.write('POST /fresh-junk HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n');
    await connection.closed;
    const received = connection.received();
    assert.deepEqual(statusLines(received), ['HTTP/1.1 400 Bad Request'], received);
    assert.match(received, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    const requestId = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(received)?.[1] ?? '';
    const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    assert.equal(body['error'], 'malformed_request');
    assert.equal(body['code'], 400);
    assert.equal(body['requestId'], requestId);
    assert.match(String(body['detail']), /HPE_INVALID_HEADER_TOKEN/);
    const lines = await requestLines(server, requestId);
    assert.deepEqual(lines.map(fieldsOf), [{ level: 30, msg: 'request refused by the HTTP parser', method: 'POST', url: '/fresh-junk', statusCode: 400, code: 'HPE_INVALID_HEADER_TOKEN' }]);
    assert.deepEqual(countsAdded(refusedBefore, await routeCounts(server, 'POST', 'unmatched')), { 400: 1 });
  });

  it('no line of any of these is an error', () => {
    const errors = server.output().split('\n').filter((line) => line.startsWith('{') && (JSON.parse(line) as LogLine).level >= 50);
    assert.deepEqual(errors, []);
  });
});

describe('a bad chunk in the body of a request whose own answer is streaming: closed, unanswered, one line (the service\'s wiring)', () => {
  const lines: LogLine[] = [];
  const metrics = new Metrics();
  let app: FastifyInstance;
  let port: number;

  before(async () => {
    const observer = new RequestObserver(metrics);
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
    // As src/server.ts wires it: the parser's refusals to clientErrorHandler, the observer's hooks.
    app = Fastify({ loggerInstance: log as FastifyBaseLogger, logController: observer, clientErrorHandler: clientErrorHandler(observer), genReqId: (req) => String(req.headers['x-request-id']) });
    app.addHook('onRequest', (_request, reply, done) => {
      observer.opened(reply);
      done();
    });
    observer.watch(app.server);
    // Its body is left unread (the parser still reads the bytes): the answer begins at once.
    app.addContentTypeParser('application/octet-stream', (_request, _payload, done) => done(null, undefined));
    app.post('/answers-early', async (_request, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/plain' });
      reply.raw.write('answer begun\n');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  after(() => app?.close());

  it('no second status line; the refusal is the request\'s one line, 499 with the answer\'s 200, and one count', async () => {
    const accepted = once(app.server, 'connection');
    const connection = await openConnection(port);
    const [serverSide] = (await accepted) as [Socket];
    const serverClosed = once(serverSide, 'close');
    const head = 'POST /answers-early HTTP/1.1\r\nHost: x\r\nX-Request-Id: chunk-after-answer\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n';
    connection.socket.write(head);
    await connection.until('answer begun\n');
    connection.socket.write('zz\r\n');
    await connection.closed;
    // The observer's close listener came first: whatever it records at the close is in by then.
    await serverClosed;
    const received = connection.received();
    assert.deepEqual(statusLines(received), ['HTTP/1.1 200 OK'], received);
    assert.ok(!received.includes('malformed_request'), received);
    const ours = lines.filter((line) => line['reqId'] === 'chunk-after-answer');
    assert.equal(ours.length, 1, JSON.stringify(ours));
    assert.deepEqual(fieldsOf(ours[0]!), {
      level: 30,
      msg: 'request refused by the HTTP parser',
      method: 'POST',
      url: '/answers-early',
      statusCode: CLIENT_CLOSED_STATUS,
      answerStatusCode: 200,
      code: 'HPE_INVALID_CHUNK_SIZE',
      receivedBytes: Buffer.byteLength(head) + 'zz\r\n'.length,
    });
    const text = await metrics.registry.metrics();
    const counted = text.split('\n').filter((line) => line.startsWith('http_requests_total{method="POST",route="/answers-early"'));
    assert.deepEqual(counted, [`http_requests_total{method="POST",route="/answers-early",status="${CLIENT_CLOSED_STATUS}"} 1`]);
  });
});
