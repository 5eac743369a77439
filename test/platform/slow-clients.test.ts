// Slow clients over raw sockets against a real server process with small limits: a header
// trickle, an upload trickle, a JSON body trickle and a steady body that never ends are each cut
// off (the test waits for the socket's 'close'), and a client that walks away mid-upload is not an
// error in the log. The limits here are a fraction of a second; the defaults (10 s for headers, a
// 1 KB/s pace, 30 min for a request) are what keeps a real trickle from holding a connection for
// the 75 s (headers) or 95 s and more (uploads) it used to.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { requestLines, seedAccount, startServer, type Server } from '../support/server-process.ts';

const BOUNDARY = 'slow-client-boundary';
const MULTIPART_HEAD = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n`;

interface Trickle {
  socket: Socket;
  /** everything the server sent back */
  received(): string;
  /** resolves when the server closed the connection, with the ms it stayed open */
  closed: Promise<number>;
  /** bytes written so far */
  sent(): number;
}

/**
 * Opens a connection, writes `head` at once, then `drip` every `everyMs` until the server closes
 * the connection (or `stopAfter` drips). Nothing here waits on a timer for the verdict: `closed`
 * is the socket's own 'close' event.
 */
async function trickle(port: number, head: string, drip: string, everyMs: number, stopAfter = Number.POSITIVE_INFINITY): Promise<Trickle> {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  const opened = Date.now();
  let received = '';
  let sent = 0;
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
  let drips = 0;
  const write = (text: string): void => {
    if (socket.destroyed || !socket.writable) return;
    socket.write(text);
    sent += Buffer.byteLength(text);
  };
  write(head);
  const timer = setInterval(() => {
    if (socket.destroyed || ++drips > stopAfter) return clearInterval(timer);
    write(drip);
  }, everyMs);
  void closed.then(() => clearInterval(timer));
  return { socket, received: () => received, closed, sent: () => sent };
}

describe('slow clients are cut off (raw sockets, a real server process)', () => {
  let dataDir: string;
  let server: Server;
  let port: number;
  let apiKey: string;
  const sockets: Socket[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'slow-clients-'));
    ({ apiKey } = await seedAccount(dataDir, 'slow'));
    server = await startServer(dataDir, {
      LOG_LEVEL: 'info',
      HEADERS_TIMEOUT_MS: '500',
      REQUEST_TIMEOUT_MS: '3000',
      BODY_MIN_BYTES_PER_SECOND: '2000',
      BODY_PACE_WINDOW_MS: '400',
    });
    port = Number(new URL(server.base).port);
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await server?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  function errorLines(): string[] {
    return server.output().split('\n').filter((line) => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50);
  }

  /** The log lines of request `reqId` (see requestLines), once its work folder is gone. */
  const linesOf = (reqId: string) => requestLines(server, reqId);

  /**
   * A client walks away from an upload to a file tool: at once (`ready` undefined: the head is
   * written and the socket closed in the same tick), or once `ready` (given the work folder the
   * server made for the request) resolves. The request must end logged as one abandoned upload, at
   * warn level, with its work folder removed and no error anywhere.
   */
  async function walkAway(reqId: string, body: string, ready?: (folder: string) => Promise<void>): Promise<void> {
    const head =
      `POST /api/v1/documents/txt-to-md HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\nX-Request-Id: ${reqId}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${MULTIPART_HEAD.length + 100_000}\r\n\r\n${body}`;
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    const work = join(dataDir, 'work');
    mkdirSync(work, { recursive: true });
    const before = new Set(readdirSync(work));
    // Every name the work root gained, heard as it happens: the folder may come and go before
    // this test next looks (it does when the client is gone at once).
    const made = new Set<string>();
    const watcher = watch(work, (_event, name) => {
      if (name !== null && !before.has(name)) made.add(name);
    });
    const newFolder = (): string | undefined => [...made, ...readdirSync(work)].find((name) => !before.has(name));
    try {
      socket.write(head);
      if (ready === undefined) socket.destroy();
      let folder: string | undefined;
      while ((folder = newFolder()) === undefined) await once(watcher, 'change');
      if (ready !== undefined) {
        await ready(join(work, folder));
        socket.destroy();
      }
      // The folder goes when the request has ended (its warning is written before).
      while (readdirSync(work).includes(folder)) await once(watcher, 'change');
    } finally {
      watcher.close();
    }
    const lines = await linesOf(reqId);
    // One line, the abandoned upload's: not none (the request answered to nobody in silence), not
    // two (another line for the same client going away).
    assert.deepEqual(lines.map((line) => [line.level, line.msg]), [[40, 'upload abandoned: the connection closed mid-body']]);
    assert.deepEqual(errorLines(), []);
    assert.equal((await fetch(`${server.base}/healthz`)).status, 200);
  }

  it('headers trickled a byte at a time: 408 and the connection closes', { timeout: 60_000 }, async () => {
    const t = await trickle(port, 'POST /api/v1/calculators/emi-calculator HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X', 50);
    sockets.push(t.socket);
    const openMs = await t.closed;
    assert.match(t.received(), /^HTTP\/1\.1 408 /, t.received());
    assert.match(t.received(), /"error":"request_timeout"/);
    // Far below the 75 s a header trickle used to last (the limit here is 0.5 s).
    assert.ok(openMs < 30_000, `closed after ${openMs} ms`);
  });

  it('an upload trickled a byte at a time is cut off by the pace check, logged as a warning, not an error', { timeout: 60_000 }, async () => {
    const head =
      `POST /api/v1/documents/txt-to-md HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${MULTIPART_HEAD.length + 100_000}\r\n\r\n${MULTIPART_HEAD}`;
    const t = await trickle(port, head, 'x', 50);
    sockets.push(t.socket);
    const openMs = await t.closed;
    assert.ok(t.sent() < MULTIPART_HEAD.length + 100_000 + head.length, 'the body never finished');
    assert.ok(openMs < 30_000, `closed after ${openMs} ms, where an upload trickle used to last 95 s and more`);
    await server.logged('request body too slow; connection closed');
    await server.logged('upload abandoned: the connection closed mid-body');
    assert.deepEqual(errorLines(), [], 'no error-level line');
  });

  it('a JSON body trickled a byte at a time is cut off too', { timeout: 60_000 }, async () => {
    const head = `POST /api/v1/calculators/emi-calculator HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"principal":`;
    const t = await trickle(port, head, '1', 50);
    sockets.push(t.socket);
    const openMs = await t.closed;
    assert.ok(openMs < 30_000, `closed after ${openMs} ms`);
    assert.deepEqual(errorLines(), []);
  });

  it('a keep-alive connection that answered a call is cut off when its next body trickles', { timeout: 60_000 }, async () => {
    // The pace is watched per connection: a second request replaces the first one's state, so a
    // connection that has been honest once is still judged on the body it sends next.
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    await once(socket, 'connect');
    socket.on('error', () => undefined);
    const closed = once(socket, 'close');
    let received = '';
    socket.setEncoding('utf8');
    const answered = new Promise<void>((resolve) => {
      socket.on('data', (chunk: string) => {
        received += chunk;
        if (received.includes('"status":true')) resolve();
      });
    });
    const body = JSON.stringify({ principal: 100000, rate: 10, tenure: 12 });
    socket.write(
      `POST /api/v1/calculators/emi-calculator HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await answered;
    assert.match(received, /^HTTP\/1\.1 200 /);
    socket.write(`POST /api/v1/calculators/emi-calculator HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"principal":`);
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write('1');
    }, 50);
    try {
      await closed;
    } finally {
      clearInterval(timer);
    }
    assert.equal(received.match(/HTTP\/1\.1 /g)?.length, 1, 'the trickled request got no answer of its own');
    assert.deepEqual(errorLines(), []);
  });

  it('a body sent at a good pace that never ends is cut off by the request timeout (408)', { timeout: 60_000 }, async () => {
    const head =
      `POST /api/v1/documents/txt-to-md HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 500000000\r\n\r\n${MULTIPART_HEAD}`;
    // 4 KB every 50 ms is 80 KB/s, well over the pace; only the 3 s request limit stops it.
    const t = await trickle(port, head, 'y'.repeat(4096), 50);
    sockets.push(t.socket);
    const openMs = await t.closed;
    assert.ok(t.sent() > 3 * 4096, 'the body kept coming');
    assert.match(t.received(), /^HTTP\/1\.1 408 /, t.received());
    assert.ok(openMs < 30_000, `closed after ${openMs} ms`);
    assert.deepEqual(errorLines(), []);
  });

  it('a client that walks away mid-upload: one warn line, never an error, and the service answers', { timeout: 60_000 }, async () => {
    // Gone once the upload file is being written: the server is mid-read when the client goes.
    await walkAway('walked-away-upload', `${MULTIPART_HEAD}${'z'.repeat(20_000)}`, async (folder) => {
      const inFolder = watch(folder);
      try {
        while (!readdirSync(folder).includes('upload')) await once(inFolder, 'change');
      } finally {
        inFolder.close();
      }
    });
  });

  // Gone right after its head, before its body is read: the close reaches the server while it
  // checks the key or makes the work folder (on PostgreSQL the key check is a query). The call's own
  // 'closed before the call started' 499 then answered nobody and logged nothing.
  it('a client that hangs up right after its head is logged as one abandoned upload', { timeout: 60_000 }, async () => {
    for (let round = 1; round <= 5; round++) await walkAway(`walked-away-at-once-${round}`, MULTIPART_HEAD);
  });

  // Gone the moment its work folder exists: the server may be between the folder's mkdir and the
  // call, or already in the reader; either way one abandoned upload.
  it('a client that walks away as its work folder is made is logged as one abandoned upload', { timeout: 60_000 }, async () => {
    for (let round = 1; round <= 5; round++) await walkAway(`walked-away-early-${round}`, '', async () => undefined);
  });

  it('a normal upload and call still work under these limits', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello\nworld']), 'notes.txt');
    const res = await fetch(`${server.base}/api/v1/documents/txt-to-md`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
    assert.equal(res.status, 200, await res.text());
  });
});
