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
  /** resolves when every reported notification was sent (or failed and was logged) */
  flush(): Promise<void>;
}

/** A notifier for this call, or undefined when its client sent no progressToken. */
export function progressNotifier(extra: ProgressExtra, log: FastifyBaseLogger): ProgressNotifier | undefined {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let chain = Promise.resolve();
  return {
    report(progress, total, message) {
      chain = chain.then(() =>
        extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total, message } }).catch((err: unknown) => log.warn({ err }, 'progress notification not sent')),
      );
    },
    flush: () => chain,
  };
}
