// A fix loop as the server keeps it. Every job (solve_task, run_playbook, run_workflow,
// verify_task, sync or async) is a run; a job that ran keeps its JobState on the run: the goal it
// answered, the input a verify re-runs it with, and the loop after it. Verifies join the chain of
// the run they verify (the chain is named by its first run), so:
//   - a baseline can be a reference ({ runId }, or any answer that carries execution.runId, a
//     truncated one included): the report is read from the run, not from what the host echoes;
//   - the loop's round, same-findings streak, limits and stop come from the chain's newest run,
//     whatever form the host's baseline takes (a whole result, `.after`, a bare jobReport, the
//     solve result passed again every round): the stops fire however the host loops;
//   - the URL (or other scalar input) of the job comes from the chain: verify needs only the goal
//     and the baseline. Page bodies (html, text, code, files) are not kept: the host passes the
//     edited page again, which is the point of a verify.
import type { Loop } from './loop-state.ts';

export type LoopMemo = Pick<Loop, 'round' | 'sameFindingsStreak' | 'maxRounds' | 'sameFindingsLimit'> & { stop?: Loop['stop'] };

export interface JobState {
  goalKey: string;
  /** the re-run input: the caller's short scalar fields (url, competitorUrl, ...) */
  input: Record<string, unknown>;
  loop?: LoopMemo;
  intentId: string;
}

/** Fields a verify does not inherit: page bodies the host edits and passes again, and per-call switches. */
const NOT_INHERITED = new Set(['html', 'text', 'code', 'file', 'files', 'featureMemory', 'enhance']);
const MAX_INHERITED_CHARS = 2048;

/** The part of a job's input a verify inherits: short scalars, never a page body or a file. */
export function inheritedInput(input: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (NOT_INHERITED.has(key)) continue;
    if (typeof value === 'string' ? value.length <= MAX_INHERITED_CHARS : typeof value === 'number' || typeof value === 'boolean') kept[key] = value;
  }
  return kept;
}

export function loopMemo(loop: Loop): LoopMemo {
  return { round: loop.round, sameFindingsStreak: loop.sameFindingsStreak, maxRounds: loop.maxRounds, sameFindingsLimit: loop.sameFindingsLimit, ...(loop.stop === undefined ? {} : { stop: loop.stop }) };
}

export function parseJobState(text: string | null): JobState | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as JobState;
    return typeof value.goalKey === 'string' && value.input !== null && typeof value.input === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

const RUN_ID = /^run_[0-9a-f]{32}$/;

/**
 * The run a baseline names, when it names one: `{ runId }`, a job answer's `execution.runId`, a
 * get_run payload's `runId` (its nested result's own runId first), or the JSON text of any of
 * these. undefined when it names none (a bare jobReport, or an answer from before runIds).
 * A value that looks like a run id but is not one is answered as it is, so the verify can say
 * that no such run exists rather than that nothing was passed.
 */
export function baselineRunId(value: unknown): string | undefined {
  let data = value;
  if (typeof data === 'string') {
    if (RUN_ID.test(data.trim())) return data.trim();
    if (data.length > 8_000_000) return undefined;
    try {
      data = JSON.parse(data);
    } catch {
      return undefined;
    }
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const record = data as Record<string, unknown>;
  const execution = record['execution'];
  if (execution !== null && typeof execution === 'object' && typeof (execution as Record<string, unknown>)['runId'] === 'string') return (execution as Record<string, string>)['runId'];
  const nested = record['result'];
  if (nested !== null && typeof nested === 'object') {
    const inner = baselineRunId(nested);
    if (inner !== undefined) return inner;
  }
  return typeof record['runId'] === 'string' ? record['runId'] : undefined;
}
