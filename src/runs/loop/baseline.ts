// What verify_task compares against: the jobReport inside whatever the host passes as `baseline`.
// The spec's four forms, tried in this order on an object:
//   verify    a verify_task result: it has `after` (a jobReport, or an object holding `jobReport`);
//             its `loop` carries the round and the same-findings streak on;
//   solve     a solve_task or run_playbook result: it has `jobReport` (and a `loop` at round 0);
//   run       a get_run poll payload: top-level `runId`; its nested `result` is read as one of
//             the other forms (once: a run inside a run is refused);
//   jobReport a raw jobReport (it has `signature` or `reportId`, or both `findings` and `scores`).
// A string is read as the JSON of one of these (a host may pass fetch_payload's text as it is).
//
// Refusals, each with a message that says what to pass instead:
//   need_baseline      nothing usable was passed: null, a result without a jobReport (suggest,
//                      need_input), a run that has not finished or failed, a run whose result was
//                      stored by reference (read it with fetch_payload first);
//   invalid_baseline   something was passed but is not a whole, sealed jobReport of this account:
//                      it fails the schema (truncated, edited into another shape), its seal does not
//                      hold (forged, edited, or issued to another account), or it is too big or too
//                      deep to read;
//   baseline_mismatch  a sound jobReport, but of another playbook or goal than the one verified.
// The loop object is not sealed: it is the host's own budget guard, read when it parses and dropped
// when it does not (the report is what the verify trusts).
//
// Never throws: the input is a stranger's JSON. Its size is measured first, iteratively, against
// BASELINE_LIMITS, before any schema reads it.
import { loopSchema, type Loop } from './loop-state.ts';
import { checkJobReport, readJobReport, type JobReport } from './job-report.ts';
import type { SigningKey } from './report-signature.ts';

export type BaselineSource = 'solve' | 'verify' | 'run' | 'jobReport';
export type BaselineRefusalCode = 'need_baseline' | 'invalid_baseline' | 'baseline_mismatch';

export interface BaselineFound {
  ok: true;
  report: JobReport;
  loop?: Loop;
  source: BaselineSource;
}

export interface BaselineRefusal {
  ok: false;
  code: BaselineRefusalCode;
  message: string;
}

export interface BaselineExpectation {
  /** the per-account key the jobReport must be sealed with (jobReportKey) */
  key: SigningKey;
  /** the goal being verified; a baseline of another goal is refused */
  goalKey?: string;
  /** the playbook being verified; a baseline of another playbook is refused */
  playbookId?: string;
  /**
   * The value is the run store's own copy of an answer this service gave the same account (a
   * baseline by runId): its report's seal is not checked again, only its schema. A report a host
   * hands back is always checked.
   */
  storedCopy?: boolean;
  /**
   * The caller holds the run's own loop (its stored job state), which wins over the value's: the
   * value's loop is then not read (a schema parse of it cost ~0.25 ms a verify for nothing).
   */
  loopKnown?: boolean;
}

/** How much of a baseline is read at most: a compact jobReport is far below these. */
export const BASELINE_LIMITS = { nodes: 200_000, depth: 64, chars: 8_000_000 } as const;

const PASS_INSTEAD =
  'pass the whole result of solve_task, run_playbook or verify_task as you received it (or its jobReport), or a finished get_run payload';

const refuse = (code: BaselineRefusalCode, message: string): BaselineRefusal => ({ ok: false, code, message });

export function extractBaseline(value: unknown, expected: BaselineExpectation): BaselineFound | BaselineRefusal {
  try {
    return extract(value, expected);
  } catch {
    return refuse('invalid_baseline', `The baseline could not be read: ${PASS_INSTEAD}.`);
  }
}

function extract(value: unknown, expected: BaselineExpectation): BaselineFound | BaselineRefusal {
  if (value === undefined || value === null || value === '') {
    return refuse('need_baseline', `No baseline was given: ${PASS_INSTEAD}, or a profileId with a stored run.`);
  }
  let data = value;
  if (typeof value === 'string') {
    if (value.length > BASELINE_LIMITS.chars) return tooBig(`${value.length} characters`);
    try {
      data = JSON.parse(value);
    } catch {
      return refuse('invalid_baseline', `The baseline is a string but not JSON: ${PASS_INSTEAD}.`);
    }
  }
  const size = oversize(data);
  if (size !== null) return tooBig(size);
  const found = locate(data, true);
  if (!found.ok) return found;
  const checked = expected.storedCopy === true ? readJobReport(found.candidate) : checkJobReport(found.candidate, expected.key);
  if (!checked.ok) {
    return checked.problem === 'schema'
      ? refuse('invalid_baseline', `The baseline's jobReport is not whole (${checked.message}): ${PASS_INSTEAD}, not an edited or cut copy.`)
      : refuse(
          'invalid_baseline',
          "The baseline's jobReport signature does not match: it was changed after it was issued, or issued to another account. Pass a result this account received, unchanged, or run solve_task / run_playbook again for a fresh baseline.",
        );
  }
  const report = checked.report;
  if (expected.playbookId !== undefined && report.playbookId !== expected.playbookId) {
    return refuse('baseline_mismatch', `The baseline is a run of playbook "${report.playbookId}", not of "${expected.playbookId}" being verified: pass a baseline from a run of the same job, or run it first.`);
  }
  if (expected.goalKey !== undefined && report.goalKey !== expected.goalKey) {
    return refuse('baseline_mismatch', `The baseline answers goal "${clip(report.goalKey)}", not "${clip(expected.goalKey)}" being verified: pass a baseline from a run of the same goal (same job and input), or run solve_task for this goal first.`);
  }
  const loop = found.loop === undefined || expected.loopKnown === true ? undefined : loopSchema.safeParse(found.loop);
  return { ok: true, report, ...(loop?.success ? { loop: loop.data } : {}), source: found.source };
}

type Located = { ok: true; candidate: unknown; loop?: unknown; source: BaselineSource } | BaselineRefusal;

function locate(data: unknown, allowRun: boolean): Located {
  if (!isObject(data)) return refuse('invalid_baseline', `The baseline is ${Array.isArray(data) ? 'an array' : `a ${typeof data}`}, not an object: ${PASS_INSTEAD}.`);
  // A compact verify answer's `after` only names the report (jobReport holds it): read jobReport then.
  if (isObject(data.after) && ('signature' in data.after || isObject(data.after.jobReport) || !isObject(data.jobReport))) {
    const after = data.after;
    const candidate = isObject(after.jobReport) ? after.jobReport : after;
    return { ok: true, candidate, loop: data.loop ?? after.loop, source: 'verify' };
  }
  if ('jobReport' in data) {
    if (!isObject(data.jobReport)) {
      const status = typeof data.status === 'string' ? ` (its status is ${clip(data.status)})` : '';
      return refuse('need_baseline', `The result passed as baseline holds no jobReport${status}: ${PASS_INSTEAD} that ran the job.`);
    }
    return { ok: true, candidate: data.jobReport, loop: data.loop, source: isObject(data.after) ? 'verify' : 'solve' };
  }
  if (typeof data.runId === 'string') {
    if (!allowRun) return refuse('invalid_baseline', `The get_run payload holds another run payload: ${PASS_INSTEAD}.`);
    return fromRun(data);
  }
  // Any key only a jobReport has: a truncated one is then refused as not whole, not as unknown.
  if ('signature' in data || 'reportId' in data || ('findings' in data && 'scores' in data)) return { ok: true, candidate: data, source: 'jobReport' };
  if (typeof data.status === 'string' && ['suggest', 'need_input', 'error'].includes(data.status)) {
    return refuse('need_baseline', `The result passed as baseline is a "${data.status}" answer with no jobReport: ${PASS_INSTEAD} that ran the job.`);
  }
  return refuse('invalid_baseline', `The baseline is not a result this service recognises (no jobReport, after or runId): ${PASS_INSTEAD}.`);
}

function fromRun(run: Record<string, unknown>): Located {
  const runId = clip(String(run.runId));
  if (run.status === 'accepted') {
    return refuse('need_baseline', `Run ${runId} has not finished: poll get_run until its status is completed, then pass that payload.`);
  }
  if (isObject(run.result) || typeof run.result === 'string') {
    const result = typeof run.result === 'string' ? parseOrNull(run.result) : run.result;
    const size = typeof run.result === 'string' ? oversize(result) : null;
    if (size !== null) return tooBig(size);
    const inner = locate(result, false);
    return inner.ok ? { ...inner, source: 'run' } : inner;
  }
  if (typeof run.dataRefId === 'string') {
    return refuse('need_baseline', `Run ${runId}'s result was stored by reference: read it with fetch_payload({dataRefId: "${clip(run.dataRefId)}"}) and pass that JSON as the baseline.`);
  }
  return refuse('need_baseline', `Run ${runId} has no result to compare against${typeof run.error === 'string' ? ` (it ended with ${clip(run.error)})` : ''}: pass a finished, successful run or a solve_task / run_playbook result.`);
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function tooBig(what: string): BaselineRefusal {
  return refuse(
    'invalid_baseline',
    `The baseline is too large or too deeply nested to read (${what}; at most ${BASELINE_LIMITS.nodes} values, ${BASELINE_LIMITS.depth} levels, ${BASELINE_LIMITS.chars} characters): pass the compact result (responseMode compact) or just its jobReport.`,
  );
}

/** Walks the value without recursion; a description of the first bound it crosses, or null. */
function oversize(value: unknown): string | null {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  let nodes = 0;
  let chars = 0;
  while (stack.length > 0) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number };
    nodes += 1;
    if (nodes > BASELINE_LIMITS.nodes) return `more than ${BASELINE_LIMITS.nodes} values`;
    if (depth > BASELINE_LIMITS.depth) return `nested deeper than ${BASELINE_LIMITS.depth} levels`;
    if (typeof v === 'string') {
      chars += v.length;
      if (chars > BASELINE_LIMITS.chars) return `more than ${BASELINE_LIMITS.chars} characters of text`;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const children = Array.isArray(v) ? v : Object.values(v);
    // Counting before pushing keeps a single huge array from filling memory with stack entries.
    if (nodes + stack.length + children.length > BASELINE_LIMITS.nodes) return `more than ${BASELINE_LIMITS.nodes} values`;
    for (const key of Array.isArray(v) ? [] : Object.keys(v)) chars += key.length;
    for (const child of children) stack.push({ v: child, depth: depth + 1 });
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
