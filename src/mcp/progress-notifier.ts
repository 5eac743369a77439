// Progress notifications for a tool call whose client asked for them (a progressToken in the
// request's _meta): invoke_tool (start and end) and the jobs (one per step). Notifications go out
// in the order they were reported (each waits for the one before), and the tool awaits flush()
// before it answers, so none is written after the answer, when the client no longer listens.
import type { FastifyBaseLogger } from 'fastify';

/** The parts of the SDK's request `extra` this reads. */
export interface ProgressExtra {
  _meta?: { progressToken?: string | number | undefined } | undefined;
  sendNotification: (notification: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total?: number; message?: string } }) => Promise<void>;
}

export interface ProgressNotifier {
  report(progress: number, total: number, message: string): void;
  /**
   * Until the returned stop() is called, reports every `everyMs` that the call is still running
   * (progress counting on from the last report, no total), so a client that resets its request
   * timeout on progress (the MCP SDK's resetTimeoutOnProgress) keeps waiting for a long call.
   */
  heartbeat(everyMs: number, message: (elapsedMs: number) => string): () => void;
  /** The last report: progress one past every report before it (it must only grow), as its total. */
  finish(message: string): void;
  /** resolves when every reported notification was sent (or failed and was logged) */
  flush(): Promise<void>;
}

/** A notifier for this call, or undefined when its client sent no progressToken. */
export function progressNotifier(extra: ProgressExtra, log: FastifyBaseLogger): ProgressNotifier | undefined {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let chain = Promise.resolve();
  let last = -1;
  const send = (progress: number, total: number | undefined, message: string) => {
    last = Math.max(last, progress);
    const params = { progressToken, progress, ...(total === undefined ? {} : { total }), message };
    chain = chain.then(() => extra.sendNotification({ method: 'notifications/progress', params }).catch((err: unknown) => log.warn({ err }, 'progress notification not sent')));
  };
  return {
    report: (progress, total, message) => send(progress, total, message),
    heartbeat(everyMs, message) {
      const started = Date.now();
      const timer = setInterval(() => send(last + 1, undefined, message(Date.now() - started)), everyMs);
      // A heartbeat never keeps the process alive on its own.
      timer.unref();
      return () => clearInterval(timer);
    },
    finish: (message) => send(last + 1, last + 1, message),
    flush: () => chain,
  };
}
