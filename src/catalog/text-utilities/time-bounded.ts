import vm from 'node:vm';
import { ServiceError } from '../../core/errors.ts';

// Runs synchronous work (a user-supplied regular expression) under a wall-clock limit. V8 cannot
// interrupt a running regex from JavaScript, but node:vm's `timeout` arms a watchdog that
// terminates the isolate's current execution, and that includes main-realm functions called from
// inside the script, so catastrophic backtracking such as /(a+)+$/ on "aaaa…!" is stopped.

const context = vm.createContext({ task: undefined as unknown });
const script = new vm.Script('task()', { filename: 'time-bounded-task.vm' });

export class TaskTimeoutError extends Error {
  override readonly name = 'TaskTimeoutError';
}

/** Runs `task` and returns its result, or throws TaskTimeoutError once `timeoutMs` has passed. */
export function runTimeBounded<T>(task: () => T, timeoutMs: number): T {
  context.task = task;
  try {
    return script.runInContext(context, { timeout: timeoutMs, breakOnSigint: false }) as T;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new TaskTimeoutError(`took longer than ${timeoutMs} ms`);
    }
    throw error;
  } finally {
    context.task = undefined;
  }
}

/** The 422 a tool answers when a regular expression runs out of time. */
export function regexTimeout(field: string, timeoutMs: number): ServiceError {
  return new ServiceError(422, 'regex_timeout', `The regular expression in \`${field}\` took too long (over ${timeoutMs} ms)`, {
    detail:
      `Matching \`${field}\` against the text did not finish within ${timeoutMs} ms, usually because of catastrophic ` +
      'backtracking (nested quantifiers such as (a+)+). Simplify the pattern or shorten the text.',
    extra: { issues: [{ field, message: `took longer than ${timeoutMs} ms to match` }] },
  });
}
