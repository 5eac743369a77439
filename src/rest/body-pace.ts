// Slow clients. A connection that trickles its request (a header a second, an upload a byte a
// second) holds a socket, a parser and, for an upload, a work folder, for as long as it likes:
// Node checks its header and request timeouts only every 30 s by default, and Fastify sets no
// request timeout at all. Three bounds, each a setting (config.ts, SlowClientLimits):
//
// - the headers within HEADERS_TIMEOUT_MS (10 s): a real client sends them in one packet;
// - the whole request within REQUEST_TIMEOUT_MS (30 min): the hard bound on any connection's
//   request, long enough that the largest upload (UPLOAD_LIMIT_BYTES, 100 MB) still arrives on a
//   slow line of 60 KB/s (about 0.5 Mbit/s), so no honest customer meets it;
// - a body being read must keep a minimum pace, BODY_MIN_BYTES_PER_SECOND (1 KB/s) judged over
//   each BODY_PACE_WINDOW_MS (20 s), since within the hard bound a trickle could still hold a
//   connection for half an hour. 1 KB/s is far below any real line (a 2G modem does 5 KB/s) and
//   the window rides out a stall of several seconds; only a client that deliberately sends next
//   to nothing is cut off. The pace is judged only while the service is reading the body: while
//   it is not (it is checking the key first, or the disk is slow and the stream is paused), a
//   slow body is not the client's fault.
//
// Node enforces the first two (checked each connectionsCheckingInterval, set to a fraction of
// the header timeout here, and answered 408 by rest/http-errors.ts's clientErrorHandler); the
// pace check is this file: one timer for all bodies in progress, none while there are none.
import type { IncomingMessage, Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { SlowClientLimits } from '../config.ts';

/** The node:http server options that carry the header and request timeouts (Fastify's `http` option). */
export function slowClientServerOptions(limits: SlowClientLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // How often Node looks for expired requests: by default 30 s, which let a header trickle live
    // 75 s under a 60 s limit. A tenth of the header limit (at most 1 s, at least 50 ms) keeps the overshoot small.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 10))),
  };
}

/** The body a connection is sending, as the pace check last saw it. */
interface Watched {
  request: IncomingMessage;
  /** socket.bytesRead at the start of the current window */
  mark: number;
  /** the body was being read when the window started */
  flowing: boolean;
}

/** On a connection with a body in progress: its pace state, replaced by its next request's. */
const PACE = Symbol('bodyPace');
/** Set once a connection's close is heard, so a connection watched again adds no second listener. */
const HEARD = Symbol('bodyPaceHeard');
type PacedSocket = Socket & { [PACE]?: Watched | undefined; [HEARD]?: true };

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Cuts off bodies that arrive slower than the minimum pace. `onCut` is told of each (for the
 * log); the request's own reader then sees the connection close (an aborted upload is a 4xx,
 * logged at warn, not an error).
 *
 * The state lives on the connection, not in a list of requests: a list held every request with a
 * body (a 100-byte JSON call too) until the next judging, up to a window (20 s) later, and at
 * thousands of calls a second those held requests (with their headers and parsed bodies) outlived
 * the young generation: 5 s of metered calls grew the heap by 85 MB and each scavenge copied them
 * (5.5 ms against 2.0 ms now; issue 24). A connection holds at most its latest request, and leaves
 * the watch when it closes.
 */
export function watchBodyPace(server: Server, limits: SlowClientLimits, onCut: (request: IncomingMessage, bytesInWindow: number) => void): void {
  if (limits.bodyMinBytesPerSecond <= 0) return;
  const minimum = (limits.bodyMinBytesPerSecond * limits.bodyPaceWindowMs) / 1000;
  const watched = new Set<PacedSocket>();
  let timer: NodeJS.Timeout | null = null;
  // Cleared by assignment, never `delete`: deleting a property turns the socket's object into a
  // slow dictionary for every later property read Node makes of it.
  const forget = (socket: PacedSocket): void => {
    watched.delete(socket);
    socket[PACE] = undefined;
  };

  const judge = (): void => {
    for (const socket of watched) {
      const w = socket[PACE];
      if (w === undefined || w.request.complete || w.request.destroyed || socket.destroyed) {
        forget(socket);
        continue;
      }
      const read = socket.bytesRead - w.mark;
      const wasFlowing = w.flowing;
      w.mark = socket.bytesRead;
      w.flowing = w.request.readableFlowing === true;
      // Judged only over a window the body was read through: not before anyone asked for it
      // (the key is checked first), nor while the reader holds it back (backpressure).
      if (!wasFlowing || !w.flowing) continue;
      if (read < minimum) {
        forget(socket);
        onCut(w.request, read);
        socket.destroy();
      }
    }
    if (watched.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };

  server.on('request', (request: IncomingMessage) => {
    if (request.complete || !hasBody(request)) return;
    const socket = request.socket as PacedSocket;
    // A connection's first watched body: it leaves the watch when it closes (one listener per
    // connection, none per request), so a closed connection is not held until the next judging.
    if (socket[HEARD] !== true) {
      socket[HEARD] = true;
      socket.once('close', () => forget(socket));
    }
    // On the watch exactly while it has a state: a keep-alive connection's next body is no new entry.
    if (socket[PACE] === undefined) watched.add(socket);
    socket[PACE] = { request, mark: socket.bytesRead, flowing: request.readableFlowing === true };
    if (timer === null) {
      timer = setInterval(judge, limits.bodyPaceWindowMs);
      timer.unref();
    }
  });
  server.on('close', () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
    for (const socket of watched) socket[PACE] = undefined;
    watched.clear();
  });
}
