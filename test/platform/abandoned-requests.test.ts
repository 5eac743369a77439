// Requests whose client leaves before the answer, over raw sockets against a real server process:
// each still gets exactly one access line and is counted in http_requests_total (as 499 when it
// was abandoned), whatever the route, while requests answered on a connection that closes later
// (keep-alive, pipelined) keep their one ordinary line each, and an SSE stream its client closes
// ends as an ordinary request. The server logs abandoned requests when their connection closes
// (src/rest/request-observer.ts); a reply written to a closed socket never 'finish'es, so
// Fastify's own end-of-request call never comes for them.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHttpSite, type TestSite } from '../analysis/support/test-sites.ts';
import { getPage, signIn } from '../dashboard/support/dashboard-client.ts';
import { EMI, EMI_BODY, countsAdded, requestLines, routeCounts, seedAccount, startServer, usageOf, type LogLine, type Server } from '../support/server-process.ts';

const PASSWORD = 'correct horse battery staple';
const META_TAGS = '/api/v1/seo-apis/meta-tags-analyzer';
const PLAYGROUND_UPLOAD = '/dashboard/playground/:operationId/upload';
const BOUNDARY = 'abandoned-boundary';

describe('a request whose client leaves before its answer is logged and counted once (a real server process)', () => {
  let dataDir: string;
  let server: Server;
  let port: number;
  let site: TestSite;
  let apiKey: string;
  let keyId: string;
  let email: string;
  /** The page fetches held open at the site (a URL tool call in flight), ended in `after`. */
  const held: ServerResponse[] = [];
  const sockets: Socket[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'abandoned-requests-'));
    ({ email, apiKey, keyId } = await seedAccount(dataDir, 'abandoned', { password: PASSWORD, canManageKeys: true }));
    site = await startHttpSite((req, res) => {
      if (req.url?.startsWith('/held')) held.push(res);
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><head><title>A page</title></head><body>Hi</body></html>');
    });
    server = await startServer(dataDir, { LOG_LEVEL: 'info', EGRESS_ALLOW: '127.0.0.1' });
    port = Number(new URL(server.base).port);
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    for (const res of held) res.end();
    await server?.kill('SIGKILL');
    await site?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A raw connection; `received()` is everything the server sent on it. */
  async function open(): Promise<{ socket: Socket; received(): string }> {
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    socket.on('error', () => undefined);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    await once(socket, 'connect');
    return { socket, received: () => received };
  }

  /** Waits until `count` answers have arrived on the connection. */
  async function answers(connection: { socket: Socket; received(): string }, count: number): Promise<void> {
    while ((connection.received().match(/HTTP\/1\.1 \d{3} /g) ?? []).length < count) await once(connection.socket, 'data');
  }

  /** Ends the connection from the client's side and waits for the server to end its side. */
  async function hangUp(socket: Socket): Promise<void> {
    const ended = once(socket, 'close');
    socket.end();
    await ended;
  }

  function post(path: string, reqId: string, body: unknown): string {
    const text = JSON.stringify(body);
    return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\nX-Request-Id: ${reqId}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
  }

  /** The meta tags analyzer (a URL tool, GET) on the site's page that is held open. */
  function heldCall(reqId: string): string {
    const url = encodeURIComponent(`http://127.0.0.1:${site.port}/held`);
    return `GET ${META_TAGS}?url=${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\nX-Request-Id: ${reqId}\r\n\r\n`;
  }

  function healthz(reqId: string): string {
    return `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${reqId}\r\n\r\n`;
  }

  const counted = (method: string, route: string) => routeCounts(server, method, route);
  const added = countsAdded;

  /** The calls of `operationId` the account's usage shows (the server records a call as it answers it). */
  async function callsOf(operationId: string): Promise<number> {
    return (await usageOf(server.base, apiKey)).byTool.find((tool) => tool.operationId === operationId)?.calls ?? 0;
  }

  /**
   * Until the usage shows `calls` calls of `operationId`: the handler has answered, to nobody (the
   * invoke path records a call just before it returns, and the handler sends in that same turn).
   */
  async function answered(operationId: string, calls: number): Promise<void> {
    while ((await callsOf(operationId)) < calls) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Resolves when the site's side of a fetch closes (the server ended it: its 'aborted' error is expected). */
  function closeOf(request: IncomingMessage): Promise<void> {
    request.on('error', () => undefined);
    return new Promise((resolve) => request.once('close', () => resolve()));
  }

  const brief = (lines: LogLine[]) => lines.map((line) => [line.level, line.msg, line['statusCode']]);

  it('a URL tool call whose client leaves while the call runs: one warn line, counted as 499', { timeout: 60_000 }, async () => {
    const before = await counted('GET', META_TAGS);
    const calls = await callsOf('seo_apis_meta_tags_analyzer');
    const reached = site.nextRequest('/held');
    const connection = await open();
    connection.socket.write(heldCall('url-call-left'));
    const fetched = await reached; // the call is at the site, waiting for the page
    const fetchClosed = closeOf(fetched);
    connection.socket.destroy();
    await fetchClosed; // the server heard the client go and ended the call's fetch
    await answered('seo_apis_meta_tags_analyzer', calls + 1);
    const lines = await requestLines(server, 'url-call-left');
    assert.deepEqual(brief(lines), [[40, 'request abandoned by the client', 499]]);
    assert.equal(lines[0]!['method'], 'GET');
    // The query's values are not shown (the access log's redaction).
    assert.equal(lines[0]!['url'], `${META_TAGS}?url=[redacted]`);
    assert.equal(typeof lines[0]!['ms'], 'number');
    assert.equal('answerStatusCode' in lines[0]!, false, 'no answer had been written');
    assert.equal(connection.received(), '');
    assert.deepEqual(added(before, await counted('GET', META_TAGS)), { 499: 1 });
  });

  it('a JSON tool call whose client closes right after sending: one line and one count, answered or not', { timeout: 60_000 }, async () => {
    const before = await counted('POST', EMI);
    const calls = await callsOf('calculators_emi_calculator');
    const rounds = 5;
    for (let round = 1; round <= rounds; round++) {
      const connection = await open();
      connection.socket.write(post(EMI, `emi-left-${round}`, EMI_BODY));
      connection.socket.destroy();
      await answered('calculators_emi_calculator', calls + round);
      // The client left as the call ran: the answer reached the socket first (an ordinary line)
      // or did not (the abandoned one); never both, never none.
      const lines = brief(await requestLines(server, `emi-left-${round}`));
      assert.ok(
        JSON.stringify(lines) === JSON.stringify([[30, 'request', 200]]) || JSON.stringify(lines) === JSON.stringify([[40, 'request abandoned by the client', 499]]),
        `round ${round}: ${JSON.stringify(lines)}`,
      );
    }
    const diff = added(before, await counted('POST', EMI));
    assert.equal((diff[200] ?? 0) + (diff[499] ?? 0), rounds, JSON.stringify(diff));
  });

  it('three requests on one keep-alive connection, then a close: three lines, nothing more', { timeout: 60_000 }, async () => {
    const before = await counted('GET', '/healthz');
    const beforeEmi = await counted('POST', EMI);
    const connection = await open();
    connection.socket.write(healthz('keep-alive-1'));
    await answers(connection, 1);
    connection.socket.write(post(EMI, 'keep-alive-2', EMI_BODY));
    await answers(connection, 2);
    connection.socket.write(healthz('keep-alive-3'));
    await answers(connection, 3);
    await hangUp(connection.socket);
    assert.deepEqual(brief(await requestLines(server, 'keep-alive-1')), [[30, 'request', 200]]);
    assert.deepEqual(brief(await requestLines(server, 'keep-alive-2')), [[30, 'request', 200]]);
    assert.deepEqual(brief(await requestLines(server, 'keep-alive-3')), [[30, 'request', 200]]);
    // Two of ours and the markers' (one per requestLines call).
    assert.deepEqual(added(before, await counted('GET', '/healthz')), { 200: 2 + 3 });
    assert.deepEqual(added(beforeEmi, await counted('POST', EMI)), { 200: 1 });
  });

  it('three pipelined requests answered, then a close: three lines', { timeout: 60_000 }, async () => {
    const connection = await open();
    connection.socket.write(healthz('pipelined-1') + post(EMI, 'pipelined-2', EMI_BODY) + healthz('pipelined-3'));
    await answers(connection, 3);
    await hangUp(connection.socket);
    for (const id of ['pipelined-1', 'pipelined-2', 'pipelined-3']) assert.deepEqual(brief(await requestLines(server, id)), [[30, 'request', 200]], id);
  });

  it('pipelined behind a call in flight, then the client leaves: each request its own abandoned line', { timeout: 60_000 }, async () => {
    const before = await counted('GET', '/healthz');
    const calls = await callsOf('seo_apis_meta_tags_analyzer');
    const reached = site.nextRequest('/held');
    const connection = await open();
    connection.socket.write(heldCall('behind-call') + healthz('behind-next'));
    const fetched = await reached;
    const fetchClosed = closeOf(fetched);
    connection.socket.destroy();
    await fetchClosed;
    await answered('seo_apis_meta_tags_analyzer', calls + 1);
    assert.deepEqual(brief(await requestLines(server, 'behind-call')), [[40, 'request abandoned by the client', 499]]);
    // The second was answered at once, but its answer waited behind the first's and never left.
    const next = await requestLines(server, 'behind-next');
    assert.deepEqual(brief(next), [[40, 'request abandoned by the client', 499]]);
    assert.equal(next[0]!['answerStatusCode'], 200);
    // The markers' 200s, and the abandoned one's 499.
    assert.deepEqual(added(before, await counted('GET', '/healthz')), { 200: 2, 499: 1 });
  });

  it('an SSE stream its client closes ends as an ordinary request: an info line with its 200, no warning', { timeout: 60_000 }, async () => {
    const before = await counted('GET', '/mcp');
    const controller = new AbortController();
    const res = await fetch(`${server.base}/mcp`, { headers: { 'x-api-key': apiKey, accept: 'text/event-stream', 'x-request-id': 'sse-left' }, signal: controller.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /event: endpoint/);
    controller.abort();
    await server.logged('"reqId":"sse-left"');
    const lines = await requestLines(server, 'sse-left');
    assert.deepEqual(brief(lines), [[30, 'request', 200]]);
    assert.deepEqual(added(before, await counted('GET', '/mcp')), { 200: 1 });
  });

  /** POST /mcp: a tools/call of the meta tags analyzer on the held page, with a progress token when `progress`. */
  async function mcpCall(reqId: string, progress: boolean, signal: AbortSignal): Promise<Response> {
    const input = { url: `http://127.0.0.1:${site.port}/held` };
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'invoke_tool', arguments: { operationId: 'seo_apis_meta_tags_analyzer', input }, ...(progress ? { _meta: { progressToken: 7 } } : {}) } };
    return fetch(`${server.base}/mcp`, {
      method: 'POST',
      signal,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', 'x-request-id': reqId },
      body: JSON.stringify(message),
    });
  }

  it('an MCP call answered as an event stream, closed by its client mid-call: the ordinary line with its 200', { timeout: 60_000 }, async () => {
    const before = await counted('POST', '/mcp');
    const calls = await callsOf('seo_apis_meta_tags_analyzer');
    const controller = new AbortController();
    const reached = site.nextRequest('/held');
    const res = await mcpCall('mcp-stream-left', true, controller.signal);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.match(new TextDecoder().decode((await res.body!.getReader().read()).value), /notifications\/progress/);
    const fetchClosed = closeOf(await reached);
    controller.abort();
    await fetchClosed;
    await answered('seo_apis_meta_tags_analyzer', calls + 1);
    assert.deepEqual(brief(await requestLines(server, 'mcp-stream-left')), [[30, 'request', 200]]);
    assert.deepEqual(added(before, await counted('POST', '/mcp')), { 200: 1 });
  });

  it('an MCP call answered as JSON whose client leaves mid-call: one abandoned line, counted as 499', { timeout: 60_000 }, async () => {
    const before = await counted('POST', '/mcp');
    const calls = await callsOf('seo_apis_meta_tags_analyzer');
    const controller = new AbortController();
    const reached = site.nextRequest('/held');
    const answer = mcpCall('mcp-json-left', false, controller.signal).catch(() => undefined);
    const fetchClosed = closeOf(await reached);
    controller.abort();
    assert.equal(await answer, undefined);
    await fetchClosed;
    await answered('seo_apis_meta_tags_analyzer', calls + 1);
    assert.deepEqual(brief(await requestLines(server, 'mcp-json-left')), [[40, 'request abandoned by the client', 499]]);
    assert.deepEqual(added(before, await counted('POST', '/mcp')), { 499: 1 });
  });

  describe('the Playground upload (a signed-in session, no browser)', () => {
    let cookie: string;
    let token: string;

    before(async () => {
      ({ cookie } = await signIn(server.base, email, PASSWORD));
      const page = await getPage(server.base, '/dashboard/playground/documents_txt_to_md', cookie);
      assert.equal(page.status, 200);
      token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
      assert.ok(token, 'the form carries a CSRF token');
    });

    /** The form as the browser sends it, up to the file's first bytes: the token and the key, then the file part. */
    function formHead(reqId: string): string {
      const field = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      const body = `${field('_csrf', token)}${field('keyId', keyId)}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n`;
      return (
        `POST /dashboard/playground/documents_txt_to_md/upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${server.base}\r\nCookie: ${cookie}\r\nAccept: text/html\r\n` +
        `X-Request-Id: ${reqId}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length + 100_000}\r\n\r\n${body}`
      );
    }

    it('a person who leaves mid-file: one abandoned-upload line, counted as 499', { timeout: 60_000 }, async () => {
      const before = await counted('POST', PLAYGROUND_UPLOAD);
      const work = join(dataDir, 'work');
      mkdirSync(work, { recursive: true });
      const known = new Set(readdirSync(work));
      const watcher = watch(work);
      try {
        const connection = await open();
        connection.socket.write(`${formHead('playground-left')}${'z'.repeat(20_000)}`);
        // The call was admitted and its work folder made: the file is being read when the client goes.
        let folder: string | undefined;
        while ((folder = readdirSync(work).find((name) => !known.has(name))) === undefined) await once(watcher, 'change');
        connection.socket.destroy();
        // The folder goes when the request has ended.
        while (readdirSync(work).includes(folder)) await once(watcher, 'change');
      } finally {
        watcher.close();
      }
      const lines = await requestLines(server, 'playground-left');
      assert.deepEqual(brief(lines), [[40, 'upload abandoned: the connection closed mid-body', 499]]);
      assert.equal(typeof lines[0]!['receivedBytes'], 'number');
      assert.deepEqual(added(before, await counted('POST', PLAYGROUND_UPLOAD)), { 499: 1 });
    });

    it('a person who leaves right after the head: one abandoned-upload line', { timeout: 60_000 }, async () => {
      const before = await counted('POST', PLAYGROUND_UPLOAD);
      for (let round = 1; round <= 3; round++) {
        const connection = await open();
        connection.socket.write(formHead(`playground-gone-${round}`).split('\r\n\r\n')[0] + '\r\n\r\n');
        connection.socket.destroy();
        await server.logged(`"reqId":"playground-gone-${round}"`);
        assert.deepEqual(brief(await requestLines(server, `playground-gone-${round}`)), [[40, 'upload abandoned: the connection closed mid-body', 499]]);
      }
      assert.deepEqual(added(before, await counted('POST', PLAYGROUND_UPLOAD)), { 499: 3 });
    });
  });

  it('no line of any of these is an error', () => {
    const errors = server.output().split('\n').filter((line) => line.startsWith('{') && (JSON.parse(line) as LogLine).level >= 50);
    assert.deepEqual(errors, []);
  });
});
