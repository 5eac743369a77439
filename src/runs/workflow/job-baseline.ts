// What verify_task compares with, and where the loop stands: the baseline the host passed (a
// reference to a run, a whole result, `.after`, a get_run payload, a bare jobReport) or the
// stored last run of a profile, resolved against the runs this account's jobs left (job-chain.ts).
//
// Every way of having no usable baseline answers the spec's `need_input` with code `need_baseline`
// and nothing runs: nothing passed, an unknown run or another account's (the same answer: a run
// id says nothing about other accounts), a run still going or one that ran no job, a forged,
// edited or cut jobReport, a baseline of another goal. The particular reason is `reason` and
// `detail`, so a host can tell them apart without the spec's code changing.
import type { Caller } from '../../accounts/account-store.ts';
import type { FeatureMemory } from '../feature-memory/feature-memory.ts';
import { extractBaseline, type BaselineSource } from '../loop/baseline.ts';
import { baselineRunId, parseJobState, type LoopMemo } from '../loop/job-chain.ts';
import type { JobReport } from '../loop/job-report.ts';
import type { SigningKey } from '../loop/report-signature.ts';
import type { RunStore } from '../run-store.ts';

export interface VerifyBaseline {
  ok: true;
  report: JobReport;
  source: BaselineSource | 'runId' | 'profile';
  /** the loop so far: the chain's newest run's, else what the host's baseline carried */
  loop: LoopMemo | undefined;
  /** what the verify re-runs with unless the caller passes it again */
  inherited: Record<string, unknown>;
  /** the fix loop this verify joins (the chain's first run), when the baseline is a known run */
  chainId: string | null;
}

export interface BaselineRefused {
  ok: false;
  answer: { status: 'need_input'; code: 'need_baseline'; reason: string; message: string; detail: string; hint: string };
}

const HINT = 'Pass baseline: { runId } with the execution.runId of your last solve_task, run_playbook or verify_task answer (or that whole answer as you received it), or profileId from an https run; or run solve_task once for a fresh baseline.';

function refused(reason: string, detail: string): BaselineRefused {
  return { ok: false, answer: { status: 'need_input', code: 'need_baseline', reason, message: 'No usable baseline: verify_task compares with an earlier run of the same job and ran nothing', detail, hint: HINT } };
}

export interface BaselineLookup {
  caller: Caller;
  runs: RunStore;
  memory: FeatureMemory;
  key: SigningKey;
  goalKey: string;
  baseline: unknown;
  profileId: string | undefined;
}

export async function resolveVerifyBaseline(q: BaselineLookup): Promise<VerifyBaseline | BaselineRefused> {
  const accountId = q.caller.account.id;
  let given = q.baseline;
  let inherited: Record<string, unknown> = {};
  let fromProfile = false;
  if ((given === undefined || given === null) && q.profileId !== undefined) {
    const profile = await q.memory.profiles.lastSnapshot(accountId, q.profileId);
    if (!profile) return refused('unknown_profile', `No profile ${clip(q.profileId)} in this account.`);
    const snapshot = profile.snapshot as { jobReport?: unknown; input?: Record<string, unknown> };
    given = snapshot.jobReport;
    inherited = snapshot.input ?? {};
    fromProfile = true;
  }
  if (given === undefined || given === null || given === '') return refused('missing', 'No baseline was given.');

  const runId = fromProfile ? undefined : baselineRunId(given);
  let answer: unknown = given;
  let chainId: string | null = null;
  let state: ReturnType<typeof parseJobState>;
  // The newest job state of the run's chain, read with the run in one statement.
  let newest: string | undefined;
  if (runId !== undefined) {
    // A whole answer names its run and carries its report: the report must still be the one issued
    // (a forged or edited copy is refused, even though the run's own copy would be read instead).
    if (carriesReport(given)) {
      const carried = extractBaseline(given, { key: q.key, goalKey: q.goalKey });
      if (!carried.ok) return refused(carried.code, carried.message);
    }
    const read = await q.runs.getWithChainState(accountId, runId);
    const run = read?.run;
    if (!run) return refused('unknown_run', `No run ${clip(runId)} in this account: pass a runId this account's key received.`);
    if (run.status === 'accepted') return refused('run_not_finished', `Run ${runId} has not finished: poll get_run until it has, then verify with { runId: "${runId}" }.`);
    const stored = run.outcome?.ok === true ? (run.outcome.result as Record<string, unknown> | null) : null;
    if (stored === null || typeof stored !== 'object' || stored['jobReport'] === undefined) {
      const status = typeof stored?.['status'] === 'string' ? ` (its answer was ${stored['status']})` : run.errorReason ? ` (${clip(run.errorReason)})` : '';
      return refused('run_without_report', `Run ${runId} ran no job to compare with${status}: pass a run that answered a jobReport.`);
    }
    answer = stored;
    state = parseJobState(run.jobState);
    chainId = run.chainId ?? run.runId;
    newest = read?.chainJobState;
  }
  // By runId the answer is the run store's own copy (runs.get is scoped to this account): its seal
  // was made here and no host touched it. What a host passes is checked in full above or here.
  const found = extractBaseline(answer, { key: q.key, goalKey: q.goalKey, storedCopy: runId !== undefined, loopKnown: state?.loop !== undefined });
  if (!found.ok) return refused(found.code, found.message);
  if (runId === undefined) {
    // A whole answer from before runIds, `.after` or a bare jobReport: its run, by the report it carried.
    const read = await q.runs.byReportIdWithChainState(accountId, found.report.reportId);
    if (read) {
      state = parseJobState(read.run.jobState);
      chainId = read.run.chainId ?? read.run.runId;
      newest = read.chainJobState;
    }
  }
  let loop: LoopMemo | undefined = found.loop;
  if (chainId !== null) loop = parseJobState(newest ?? null)?.loop ?? state?.loop ?? loop;
  return {
    ok: true,
    report: found.report,
    source: fromProfile ? 'profile' : runId !== undefined ? 'runId' : found.source,
    loop,
    inherited: { ...inherited, ...(state?.input ?? {}) },
    chainId,
  };
}

/** Whether a baseline holds a report of its own besides naming its run (not a bare { runId } or a cut answer). */
function carriesReport(value: unknown): boolean {
  let data = value;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      return false;
    }
  }
  if (data === null || typeof data !== 'object') return false;
  const record = data as Record<string, unknown>;
  const after = record['after'];
  return record['jobReport'] !== undefined || (after !== null && typeof after === 'object' && 'signature' in after) || (record['result'] !== undefined && carriesReport(record['result']));
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
