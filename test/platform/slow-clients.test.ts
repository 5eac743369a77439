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
import { AccountStore } from '../../src/accounts/account-store.ts';
import { migrateToLatest, openDatabase } from '../../src/db/database.ts';
import { startServer, type Server, testDatabaseUrl } from '../support/server-process.ts';

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
    const db = openDatabase(await testDatabaseUrl(dataDir));
    await migrateToLatest(db);
    const accounts = new AccountStore(db);
    const account = await accounts.createAccount({ email: `slow-${Date.now()}@example.com`, verified: true, plan: 'business', quota: 1000, rateLimit: 1_000_000 });
    apiKey = (await accounts.createKey({ accountId: account.id })).secret;
    await db.destroy();
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

  it('a client that walks away mid-upload: a warn or info line, never an error, and the service answers', { timeout: 60_000 }, async () => {
    const head =
      `POST /api/v1/documents/txt-to-md HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\nX-Request-Id: walked-away-upload\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${MULTIPART_HEAD.length + 100_000}\r\n\r\n${MULTIPART_HEAD}${'z'.repeat(20_000)}`;
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    const work = join(dataDir, 'work');
    mkdirSync(work, { recursive: true });
    const before = new Set(readdirSync(work));
    const watcher = watch(work);
    socket.write(head);
    // The upload is being written to its own new work folder: the server is mid-read when the client goes.
    let folder: string | undefined;
    while ((folder = readdirSync(work).find((name) => !before.has(name))) === undefined) await once(watcher, 'change');
    // And the upload file in it: the folder is made before the caller is authorised (database
    // queries, which on PostgreSQL take a few ms), the file only once the body is being read.
    const inFolder = watch(join(work, folder));
    try {
      while (!readdirSync(join(work, folder)).includes('upload')) await once(inFolder, 'change');
    } finally {
      inFolder.close();
    }
    socket.destroy();
    await server.logged('"reqId":"walked-away-upload"');
    await server.logged('upload abandoned: the connection closed mid-body');
    // And that work folder goes with it.
    while (readdirSync(work).includes(folder)) await once(watcher, 'change');
    watcher.close();
    const lines = server.output().split('\n').filter((line) => line.includes('walked-away-upload'));
    for (const line of lines) assert.ok((JSON.parse(line) as { level: number }).level < 50, line);
    assert.deepEqual(errorLines(), []);
    assert.equal((await fetch(`${server.base}/healthz`)).status, 200);
  });

  it('a normal upload and call still work under these limits', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello\nworld']), 'notes.txt');
    const res = await fetch(`${server.base}/api/v1/documents/txt-to-md`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
    assert.equal(res.status, 200, await res.text());
  });
});
