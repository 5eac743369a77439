// The MCP endpoints check the key before they read a body (src/mcp/mcp-routes.ts, onRequest): a
// request that announces a body of MCP_BODY_LIMIT_BYTES but sends only a few bytes of it is
// answered 401 (or 403 for a session of another key) at once, which can only happen if the
// server never waited for the body, and the connection is closed rather than kept to drain it.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';
import { isRawSession, openRawSession, type RawSession } from './sse-stream.ts';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  /** resolves when the server closes the connection */
  closed: Promise<void>;
}

/** Sends a request's headers and the first bytes of its body, never the rest, and reads the answer. */
function announceBody(port: number, path: string, headers: Record<string, string>, contentLength: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let closedResolve: () => void = () => undefined;
    const closed = new Promise<void>((done) => (closedResolve = done));
    socket.on('close', () => closedResolve());
    socket.on('error', () => closedResolve());
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = received.slice(0, end);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? -1);
      const body = received.slice(end + 4);
      if (length >= 0 && Buffer.byteLength(body, 'latin1') >= length) {
        resolve({ status: Number(head.split(' ')[1]), headers: head, body, closed });
        socket.end();
      }
    });
    socket.on('connect', () => {
      const lines = [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Content-Type: application/json', `Content-Length: ${contentLength}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${lines.join('\r\n')}\r\n\r\n{"jsonrpc":"2.0","id":1,`);
    });
    socket.on('error', reject);
  });
}

describe('MCP checks the key before reading the body', () => {
  let t: TestApp;
  let base: string;
  let port: number;
  let stream: RawSession | undefined;
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    port = Number(new URL(base).port);
  });
  after(async () => {
    stream?.abort();
    await t.close();
  });

  for (const path of ['/mcp', '/mcp/http', '/mcp/messages?sessionId=00000000-0000-4000-8000-000000000000']) {
    for (const [label, headers, error] of [
      ['no key', {}, 'missing_api_key'],
      ['a bad key', { 'X-Api-Key': `uts_live_${'A'.repeat(32)}` }, 'invalid_api_key'],
    ] as const) {
      it(`POST ${path.split('?')[0]} with ${label} and a 16 MB body still on its way: 401 at once, connection closed`, { timeout: 30_000 }, async () => {
        const answer = await announceBody(port, path, headers, t.config.mcpBodyLimitBytes);
        assert.equal(answer.status, 401);
        assert.equal((JSON.parse(answer.body) as { error: string }).error, error);
        assert.match(answer.headers, /\r\nconnection: close/i);
        await answer.closed;
      });
    }
  }

  it("a message for another key's session is refused 403 before its body is read", { timeout: 30_000 }, async () => {
    const { apiKey: owner } = await t.account();
    const { apiKey: other } = await t.account();
    const opened = await openRawSession(base, owner);
    assert.ok(isRawSession(opened));
    stream = opened;
    const answer = await announceBody(port, opened.endpoint, { 'X-Api-Key': other }, t.config.mcpBodyLimitBytes);
    assert.equal(answer.status, 403);
    assert.equal((JSON.parse(answer.body) as { error: string }).error, 'session_key_mismatch');
    await answer.closed;
  });
});
