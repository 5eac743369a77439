/**
 * The autocannon instance both load loops start (invoke-load.ts for one server, load-rounds.ts for
 * a target spread over several): every answer's body checked by the target's own verify (a few
 * wrong ones kept to print), latency recorded from each response's own timing in microseconds
 * (autocannon's histogram rounds to whole milliseconds), and the one real request made before any
 * load, so a broken setup fails loudly instead of benchmarking errors. What each loop adds up
 * (CPU of one process or of process trees, answers per round) stays in its own file.
 */
import type { RecordableHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface CheckedRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Is this response body the right answer? */
  verify: (body: string) => boolean;
}

export interface CheckedLoad {
  connections: number;
  seconds: number;
  histogram: RecordableHistogram;
  /** the first few wrong bodies (400 characters each) go here */
  badBodies: string[];
  /** called once per right answer */
  onRight?: () => void;
}

export function checkedAutocannon(request: CheckedRequest, load: CheckedLoad): ReturnType<typeof autocannon> {
  const { histogram, badBodies, onRight } = load;
  const instance = autocannon({
    url: request.url,
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    connections: load.connections,
    duration: load.seconds,
    timeout: 10,
    verifyBody: (body) => {
      const text = String(body);
      if (request.verify(text)) {
        onRight?.();
        return true;
      }
      if (badBodies.length < 3) badBodies.push(text.slice(0, 400));
      return false;
    },
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
    histogram.record(Math.max(1, Math.round(responseTimeMs * 1000)));
  });
  return instance;
}

/** One real request; throws, naming `what`, unless it answers 200 with a right body. */
export async function preflightRequest(what: string, request: CheckedRequest): Promise<void> {
  const res = await fetch(request.url, { method: request.method, headers: request.headers, ...(request.body !== undefined ? { body: request.body } : {}) });
  const text = await res.text();
  if (res.status !== 200 || !request.verify(text)) throw new Error(`preflight ${what} answered ${res.status}: ${text.slice(0, 500)}`);
}
