// The time bound of one ai-models call. TOOL_TIMEOUT_MS (30 s by default) fits a calculator, not
// a model reading a 20-minute video (an upload, Gemini's processing, then the answer), so these
// calls carry their own: AI_TIMEOUT_MS (5 min by default, at most AI_TIMEOUT_MAX_MS) until the
// video's length is known, then what that length needs (insightBudgetMs), never more than the
// ceiling. Past it the call answers 504 tool_timeout, as any tool past its limit does, and is
// refunded (a 5xx); its work is aborted through the signal.
import { ServiceError } from '../core/errors.ts';

/** The largest AI_TIMEOUT_MS; the catalog's limit for ai-models (core/invoke.ts's hard stop) is just above it. */
export const AI_TIMEOUT_MAX_MS = 600_000;
/** What any call needs besides reading the video: connecting, an upload's start, the model's first words. */
export const INSIGHT_BASE_MS = 60_000;
/** Per second of video: a provider reads (and Gemini processes an upload) at well over four times real time. */
export const INSIGHT_MS_PER_VIDEO_SECOND = 250;

/**
 * The bound for a call about a video of `durationSeconds` (null: not known to us, a platform URL
 * the provider reads itself): 60 s plus 250 ms per second of video, at most `ceilingMs`. A 6 s
 * clip gets 61.5 s, a 20-minute video 6 min (so the 5 min default ceiling).
 */
export function insightBudgetMs(durationSeconds: number | null, ceilingMs: number): number {
  if (durationSeconds === null) return ceilingMs;
  return Math.min(ceilingMs, Math.ceil(INSIGHT_BASE_MS + INSIGHT_MS_PER_VIDEO_SECOND * durationSeconds));
}

export interface CallBudget {
  /** aborted when the budget ends (reason: the 504) or the call's own signal is */
  readonly signal: AbortSignal;
  /** the total bound in force, from the start, in milliseconds */
  readonly boundMs: number;
  /** `work`, or the 504 when the bound passes first */
  within<T>(work: Promise<T>): Promise<T>;
  /** Lowers the bound to `totalMs` from the start (never raises it); `why` goes in the 504's detail. */
  narrow(totalMs: number, why: string): void;
  /** Stops the timer (the call is over). */
  end(): void;
}

export function startCallBudget(operationId: string, ceilingMs: number, parent: AbortSignal): CallBudget {
  const started = performance.now();
  const controller = new AbortController();
  const onParent = () => controller.abort(parent.reason);
  if (parent.aborted) onParent();
  else parent.addEventListener('abort', onParent, { once: true });
  let boundMs = ceilingMs;
  let why = `AI_TIMEOUT_MS is ${ceilingMs} ms`;
  let timer: NodeJS.Timeout | undefined;
  let expire: (err: ServiceError) => void = () => undefined;
  const expired = new Promise<never>((_, reject) => {
    expire = reject;
  });
  // Read only through within(); never an unhandled rejection when no one is racing it.
  expired.catch(() => undefined);
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => {
        const err = new ServiceError(504, 'tool_timeout', `${operationId} did not finish within ${boundMs} ms`, { detail: `The bound of this call: ${why}` });
        controller.abort(err);
        expire(err);
      },
      Math.max(0, started + boundMs - performance.now()),
    );
  };
  arm();
  return {
    signal: controller.signal,
    get boundMs() {
      return boundMs;
    },
    within: (work) => Promise.race([work, expired]),
    narrow(totalMs, reason) {
      if (totalMs >= boundMs) return;
      boundMs = totalMs;
      why = reason;
      arm();
    },
    end() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParent);
    },
  };
}
