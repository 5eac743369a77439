// Legacy HTTP+SSE sessions for tests: a raw stream read by hand (to see when the server ends it, and
// to POST messages with any key), and the SDK's own client whose message POSTs can switch keys.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';

export interface RawSession {
  sessionId: string;
  /** the path the endpoint event named, with its sessionId */
  endpoint: string;
  /** resolves when the server ends the stream (or the test aborts it) */
  ended: Promise<void>;
  /** POSTs one JSON-RPC message into the session with `key` */
  post(message: unknown, key: string): Promise<Response>;
  /** The answer to request `id`, once the server writes it on the stream. */
  answer(id: number): Promise<{ id: number; result?: unknown; error?: unknown }>;
  /** Ends the stream from the client's side. */
  abort(): void;
}

/** Opens GET /mcp with `key`; the 200 stream as a RawSession, or the refusal as it came. */
export async function openRawSession(base: string, key: string): Promise<RawSession | Response> {
  const controller = new AbortController();
  const res = await fetch(`${base}/mcp`, { headers: { 'x-api-key': key, accept: 'text/event-stream' }, signal: controller.signal });
  if (res.status !== 200 || res.body === null) return res;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const answers = new Map<number, (message: { id: number }) => void>();
  const early = new Map<number, { id: number }>();
  let endpoint: (path: string) => void = () => undefined;
  const endpointSeen = new Promise<string>((resolve) => (endpoint = resolve));
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += value;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1] ?? '';
          if (event === 'endpoint') endpoint(data);
          if (event === 'message') {
            const message = JSON.parse(data) as { id: number };
            const waiter = answers.get(message.id);
            if (waiter) waiter(message);
            else early.set(message.id, message);
          }
        }
      }
    } catch {
      // aborted by the test
    }
  })();
  const path = await endpointSeen;
  const sessionId = new URL(path, base).searchParams.get('sessionId') ?? '';
  return {
    sessionId,
    endpoint: path,
    ended,
    post: (message, postKey) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': postKey }, body: JSON.stringify(message) }),
    answer: (id) => {
      const seen = early.get(id);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => answers.set(id, resolve as (message: { id: number }) => void));
    },
    abort: () => controller.abort(),
  };
}

export function isRawSession(opened: RawSession | Response): opened is RawSession {
  return !(opened instanceof Response);
}

/** The SDK's SSE client; `postKey()` is read for every message POST, so a test can switch keys mid-session. */
export async function sdkSseClient(base: string, streamKey: string, postKey: () => string = () => streamKey): Promise<Client> {
  const client = new Client({ name: 'test-sse-client', version: '1.0.0' });
  const withKey = (key: () => string): typeof fetch => (url, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-api-key', key());
    return fetch(url, { ...init, headers });
  };
  const streamFetch = withKey(() => streamKey);
  const postFetch = withKey(postKey);
  await client.connect(new SSEClientTransport(new URL(`${base}/mcp`), { fetch: postFetch, eventSourceInit: { fetch: streamFetch } }));
  return client;
}
