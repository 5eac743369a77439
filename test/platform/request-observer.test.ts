// The request observer on its own Fastify app (a loopback port, raw sockets): a reply recorded
// as abandoned when its connection closed is not recorded again when Fastify's 'error' path
// completes it afterwards, and a reply that finished is recorded once by requestCompleted even
// when its connection closes before its onResponse hooks have run. The same wiring as the
// service's (src/server.ts): opened() from an onRequest hook, watch() on the HTTP server.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { Metrics } from '../../src/core/metrics.ts';
import { RequestObserver } from '../../src/rest/request-observer.ts';

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
