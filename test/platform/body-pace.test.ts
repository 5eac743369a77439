// The body-pace watch (src/rest/body-pace.ts) on a node:http server in this process: it holds a
// connection's latest request at most, never the requests it has finished with. It used to keep
// every request with a body in a list until its next judging, a pace window (20 s by default)
// later: under load that was 20 s of finished requests held in memory (85 MB more heap in 5 s at
// 13,000 calls a second), and every young-generation collection copying them.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { watchBodyPace } from '../../src/rest/body-pace.ts';

// A full collection on demand: what is still reachable after it is what the watch (or anything) holds.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const CALLS = 40;

describe('the body-pace watch holds no finished request', () => {
  let server: Server;
  let port: number;
  const seen: WeakRef<IncomingMessage>[] = [];
  const sockets: Socket[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  before(async () => {
    server = createServer((request, response) => {
      seen.push(new WeakRef(request));
      request.resume();
      request.on('end', () => response.end('{"ok":true}'));
    });
    // A window far longer than the test: nothing may be let go by a judging.
    watchBodyPace(server, { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, bodyMinBytesPerSecond: 1024, bodyPaceWindowMs: 600_000 }, () => undefined);
    server.on('connection', (socket: Socket) => sockets.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });

  /** One JSON POST over the keep-alive agent, answered whole. */
  const post = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ principal: 1000, rate: 5, timeYears: 2 });
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text)).on('error', reject);
      });
      req.on('error', reject).end(body);
    });

  it(`lets go of ${CALLS - 1} of ${CALLS} answered calls on one connection, and of the last when it closes`, async () => {
    for (let i = 0; i < CALLS; i++) assert.equal(await post(), '{"ok":true}');
    assert.equal(seen.length, CALLS);
    // WeakRefs made in this turn stay alive to its end: collect on a later one.
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    const held = seen.filter((ref) => ref.deref() !== undefined).length;
    // The connection's latest request may stay (its parser and the watch's state keep it until the next one).
    assert.ok(held <= 1, `${held} of ${CALLS} finished requests still held`);
    // The server's side of the connection closes: the watch hears it and forgets the connection.
    const closed = sockets.map((socket) => (socket.closed ? Promise.resolve() : once(socket, 'close')));
    agent.destroy();
    server.closeAllConnections();
    await Promise.all(closed);
    sockets.length = 0;
    collect();
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    assert.equal(seen.filter((ref) => ref.deref() !== undefined).length, 0, 'a request is held after its connection closed');
  });
});
