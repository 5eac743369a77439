// The Streamable HTTP requests in flight in this process, by key and JSON-RPC id, so that a
// client's `notifications/cancelled` reaches the call it names. The endpoint is stateless: the
// cancel comes in a POST of its own, to a server built for that POST, which never saw the call;
// here it is handed to the transport that carries the call, whose server aborts that handler's
// signal as the SDK does within one connection (a job then stops before its next step).
//
// Ids are the client's own and unique only within its connection, which a stateless endpoint
// does not know: two clients sharing a key may both have id 3 in flight. A cancel is delivered
// only when exactly one call of the key has that id; otherwise it is ignored, which the protocol
// allows (cancellation is best effort), rather than stopping another client's call.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type RequestId = string | number;

function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

function requestIdOf(message: unknown): RequestId | undefined {
  const m = message as { id?: unknown; method?: unknown } | null;
  if (m === null || typeof m !== 'object' || typeof m.method !== 'string') return undefined;
  return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
}

function cancelledIdOf(message: unknown): RequestId | undefined {
  const m = message as { method?: unknown; params?: { requestId?: unknown } } | null;
  const id = m !== null && typeof m === 'object' && m.method === 'notifications/cancelled' ? m.params?.requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

export interface TrackedCalls {
  /** forgets the calls: the answer went out or the client left */
  release(): void;
  /** resolves when every call of the POST was cancelled: its answer will never come, so the POST is ended without one */
  cancelled: Promise<void>;
}

interface Carrier {
  transport: Transport;
  /** ids of the POST not cancelled yet */
  open: Set<RequestId>;
  allCancelled: () => void;
}

export class InFlightCalls {
  /** key id -> request id -> the POSTs carrying a request with that id */
  readonly #byKey = new Map<string, Map<RequestId, Set<Carrier>>>();

  /** Registers the requests of `body`, carried by `transport`. */
  track(keyId: string, body: unknown, transport: Transport): TrackedCalls {
    const ids = messagesOf(body).flatMap((m) => {
      const id = requestIdOf(m);
      return id === undefined ? [] : [id];
    });
    let allCancelled = () => undefined as void;
    const cancelled = new Promise<void>((resolve) => (allCancelled = resolve));
    if (ids.length === 0) return { release: () => undefined, cancelled };
    const carrier: Carrier = { transport, open: new Set(ids), allCancelled };
    let ofKey = this.#byKey.get(keyId);
    if (ofKey === undefined) this.#byKey.set(keyId, (ofKey = new Map()));
    for (const id of ids) {
      let carriers = ofKey.get(id);
      if (carriers === undefined) ofKey.set(id, (carriers = new Set()));
      carriers.add(carrier);
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const map = this.#byKey.get(keyId);
      if (map === undefined) return;
      for (const id of ids) {
        const carriers = map.get(id);
        carriers?.delete(carrier);
        if (carriers?.size === 0) map.delete(id);
      }
      if (map.size === 0) this.#byKey.delete(keyId);
    };
    return { release, cancelled };
  }

  /** Hands each `notifications/cancelled` of `body` to the one transport of this key carrying the call it names. */
  cancel(keyId: string, body: unknown, authInfo: AuthInfo): void {
    for (const message of messagesOf(body)) {
      const id = cancelledIdOf(message);
      if (id === undefined) continue;
      const carriers = this.#byKey.get(keyId)?.get(id);
      if (carriers === undefined || carriers.size !== 1) continue;
      const [carrier] = carriers;
      if (carrier === undefined || !carrier.open.delete(id)) continue;
      carrier.transport.onmessage?.(message as JSONRPCMessage, { authInfo });
      if (carrier.open.size === 0) carrier.allCancelled();
    }
  }

  /** Calls in flight, all keys together (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const ofKey of this.#byKey.values()) for (const carriers of ofKey.values()) n += carriers.size;
    return n;
  }
}
