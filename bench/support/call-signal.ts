/**
 * A signal of one call's own, aborted with the run's `parent` (its deadline).
 *
 * The MCP SDK's Protocol.request adds an 'abort' listener to the signal it is given and never
 * removes it. Handed one long-lived signal for thousands of calls, the listeners pile up on it, and
 * every later addEventListener on that signal (the SDK's, fetch's) walks them all: at 5,000 it costs
 * ~38 µs, at 20,000 ~130 µs (Node 24, this VM). bench:mcp's REST and MCP medians both crept up
 * round after round that way (0.81 to 1.16 ms for REST), and the spread of REST's rounds refused
 * its ratio. A call's own signal is dropped with the call, listeners and all; only its one
 * listener on the parent is added and taken off again.
 */
export async function withCallSignal<T>(parent: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  try {
    return await run(controller.signal);
  } finally {
    parent.removeEventListener('abort', onAbort);
  }
}
