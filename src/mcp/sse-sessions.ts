// The legacy HTTP+SSE sessions of this process. A session is bound to the key that opened it
// (mcp-routes.ts refuses a message POSTed with any other key), is counted against caps per key
// and in all (each holds an open stream and a server with its tools), ends when idle, and ends
// when its key is revoked, whether or not a message comes to say so. Its stream closing frees
// its slot at once. The session id is the SDK's random UUID; nothing here ever logs it.
import type { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../core/errors.ts';

export interface SseSessionSettings {
  /** sessions one API key may hold open at once */
  perKey: number;
  /** sessions the process holds open at once, all keys together */
  max: number;
  /** a session with no message, no event on its stream and no call in flight for this long is closed */
  idleMs: number;
}

export const DEFAULT_SSE_SESSIONS: SseSessionSettings = { perKey: 8, max: 256, idleMs: 300_000 };

export interface SseSession {
  readonly id: string;
  readonly transport: SSEServerTransport;
  readonly keyId: string;
  readonly accountId: string;
}

interface Entry extends SseSession {
  lastActive: number;
  /** ids of requests the client sent that are not answered yet: a long call is not idleness */
  pending: Set<string | number>;
}

type RequestId = string | number;

function requestIdOf(message: unknown): RequestId | undefined {
  const m = message as { id?: unknown; method?: unknown } | null;
  return m !== null && typeof m === 'object' && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : undefined;
}

function answeredIdOf(message: unknown): RequestId | undefined {
  const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown } | null;
  if (m === null || typeof m !== 'object' || m.method !== undefined || (m.result === undefined && m.error === undefined)) return undefined;
  return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
}

function cancelledIdOf(message: unknown): RequestId | undefined {
  const m = message as { method?: unknown; params?: { requestId?: unknown } } | null;
  const id = m?.method === 'notifications/cancelled' ? m.params?.requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

export class SseSessions {
  readonly #sessions = new Map<string, Entry>();
  readonly #perKey = new Map<string, number>();
  readonly #settings: SseSessionSettings;
  readonly #keyRevoked: (keyId: string) => Promise<boolean>;
  #timer: NodeJS.Timeout | undefined;
  #sweeping = false;

  /** `keyRevoked` answers from the database, so a revocation by another process or the CLI is seen too. */
  constructor(settings: SseSessionSettings, keyRevoked: (keyId: string) => Promise<boolean>) {
    this.#settings = settings;
    this.#keyRevoked = keyRevoked;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The 429 to answer when `keyId` may not open one more session now, else undefined. */
  refusal(keyId: string, now = Date.now()): ServiceError | undefined {
    const ofKey = this.#perKey.get(keyId) ?? 0;
    if (ofKey >= this.#settings.perKey) {
      const retry = this.#retryAfterSeconds([...this.#sessions.values()].filter((s) => s.keyId === keyId), now);
      return busy(`This API key already holds ${ofKey} open SSE sessions, the most one key may hold`, 'Close a session you no longer use (end its stream), or use Streamable HTTP (POST /mcp), which holds none', retry);
    }
    if (this.#sessions.size >= this.#settings.max) {
      const retry = this.#retryAfterSeconds(this.#sessions.values(), now);
      return busy('The service holds as many SSE sessions as it takes right now', 'Use Streamable HTTP (POST /mcp), which holds no session, or retry later', retry);
    }
    return undefined;
  }

  /** Registers an opened session (call refusal() first, with no await in between). */
  open(session: SseSession, now = Date.now()): void {
    const entry: Entry = { ...session, lastActive: now, pending: new Set() };
    // Every event the server writes to the stream is activity, and an answer ends a pending call.
    const send = session.transport.send.bind(session.transport);
    session.transport.send = (message: JSONRPCMessage) => {
      entry.lastActive = Date.now();
      const answered = answeredIdOf(message);
      if (answered !== undefined) entry.pending.delete(answered);
      return send(message);
    };
    this.#sessions.set(session.id, entry);
    this.#perKey.set(session.keyId, (this.#perKey.get(session.keyId) ?? 0) + 1);
    this.#timer ??= setInterval(() => void this.#sweep(), this.#sweepEveryMs()).unref();
  }

  get(id: string): SseSession | undefined {
    return this.#sessions.get(id);
  }

  /** A message POSTed into the session: activity; a request is pending until it is answered. */
  received(id: string, message: unknown): void {
    const entry = this.#sessions.get(id);
    if (!entry) return;
    entry.lastActive = Date.now();
    const request = requestIdOf(message);
    // Bounded: a client cannot keep a session alive forever by sending requests it never lets finish.
    if (request !== undefined && entry.pending.size < 1000) entry.pending.add(request);
    const cancelled = cancelledIdOf(message);
    if (cancelled !== undefined) entry.pending.delete(cancelled);
  }

  /** The session's stream closed (the client left, it was reaped, its key was revoked): its slot is free now. */
  closed(id: string): void {
    const entry = this.#sessions.get(id);
    if (!entry) return;
    this.#sessions.delete(id);
    const left = (this.#perKey.get(entry.keyId) ?? 1) - 1;
    if (left > 0) this.#perKey.set(entry.keyId, left);
    else this.#perKey.delete(entry.keyId);
    if (this.#sessions.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Ends every stream (the app is closing: an open stream would hold the server's close forever). */
  async closeAll(): Promise<void> {
    for (const entry of [...this.#sessions.values()]) await this.#end(entry);
  }

  /** Ends the session now if its key was revoked (a message came with that key and was refused as revoked). */
  async closeIfRevoked(id: string): Promise<void> {
    const entry = this.#sessions.get(id);
    if (entry && (await this.#keyRevoked(entry.keyId))) await this.#end(entry);
  }

  /** Sweeps often enough that a session outlives its idle time by at most half of it, and a revoked key's by at most 5 s. */
  #sweepEveryMs(): number {
    return Math.max(100, Math.min(this.#settings.idleMs / 2, 5000));
  }

  async #sweep(now = Date.now()): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const entries = [...this.#sessions.values()];
      for (const entry of entries) {
        if (entry.pending.size === 0 && now - entry.lastActive >= this.#settings.idleMs) await this.#end(entry);
      }
      const revoked = new Map<string, boolean>();
      for (const entry of entries) {
        if (!this.#sessions.has(entry.id)) continue;
        let gone = revoked.get(entry.keyId);
        if (gone === undefined) {
          gone = await this.#keyRevoked(entry.keyId).catch(() => false);
          revoked.set(entry.keyId, gone);
        }
        if (gone) await this.#end(entry);
      }
    } finally {
      this.#sweeping = false;
    }
  }

  async #end(entry: Entry): Promise<void> {
    // Closing the transport ends the stream; the response's close event calls closed() as well.
    this.closed(entry.id);
    await entry.transport.close().catch(() => undefined);
  }

  /** When the first of these sessions would be reaped if nothing happened: the soonest a slot may free. */
  #retryAfterSeconds(sessions: Iterable<Entry>, now: number): number {
    let soonest = this.#settings.idleMs;
    for (const s of sessions) if (s.pending.size === 0) soonest = Math.min(soonest, s.lastActive + this.#settings.idleMs - now);
    return Math.max(1, Math.ceil(soonest / 1000));
  }
}

function busy(message: string, detail: string, retryAfterSeconds: number): ServiceError {
  return new ServiceError(429, 'sse_sessions_exhausted', message, {
    detail,
    headers: { 'Retry-After': String(retryAfterSeconds) },
    extra: { retryAfterSeconds },
  });
}
