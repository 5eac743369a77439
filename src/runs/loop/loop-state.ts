// The spec's `loop` object: what the host does next in the fix-and-verify loop. Pure functions of
// the reports, the gate and the previous loop, so solve, run and verify build it alike.
//
// Rounds: a solve (or run) is round 0; each verify is the previous loop's round + 1.
// initiate: true only when the gate fails, the run was complete and there is a fix to apply, and
//   the loop has not stopped. Never on pass, never on unknown (nothing to fix), never on an
//   incomplete report (fix what stopped the run first), never after a stop.
// sameFindingsStreak: how many verify rounds in a row ended with the same set of finding ids as
//   the round before (the baseline). The first verify whose set equals the solve's counts as 1:
//   the host applied a fix and nothing changed, which is one wasted round. A round whose set
//   differs resets it to 0. A round where either report is incomplete leaves it as it was: an
//   incomplete report's set says nothing about whether the fix took effect.
// stop: same_findings when the streak reaches sameFindingsLimit (so with the default 2, two
//   unchanged verifies in a row); max_rounds when round reaches maxRounds; same_findings is named
//   when both hold (it says more: the fixes are not landing). Only while the gate does not pass.
//   A stop is kept by later verifies (a person may fix things and verify again) until the gate
//   passes; a pass never carries a stop.
// nextActions: the rank-1 fix when initiate is true, else empty. remainingFixes: every fix, ranked,
//   bounded at MAX_REMAINING_FIXES (remainingFixesTotal says how many there are).
import { z } from 'zod';
import type { Category, Finding } from '../../analysis/findings.ts';
import { invalidInput, type FieldIssue } from '../../core/errors.ts';
import { findingsNeeded, type AcceptanceItem } from './acceptance.ts';
import { rankFixes, fixItemSchema, type FixItem, type RankContext } from './fix-ranking.ts';
import { acceptanceJudged, type GatePolicy, type GateResult } from './gate.ts';
import type { JobReport } from './job-report.ts';

export const LOOP_LIMITS = {
  maxRounds: { min: 1, max: 20, default: 5 },
  sameFindingsLimit: { min: 1, max: 10, default: 2 },
} as const;

/** A loop answer lists at most this many fixes (one report may hold thousands of findings). */
export const MAX_REMAINING_FIXES = 200;

export const LOOP_STOPS = ['max_rounds', 'same_findings'] as const;
export type LoopStop = (typeof LOOP_STOPS)[number];

export const loopReceiptSchema = z.object({
  round: z.number().int().min(0),
  maxRounds: z.number().int(),
  toolsUsed: z.array(z.string()).describe('The catalog operations this round called'),
  estimatedCredits: z.number().min(0).describe('An estimate of what one more verify_task round costs'),
  note: z.string(),
});

export const loopSchema = z.object({
  gate: z.enum(['pass', 'fail', 'unknown']),
  gateReasons: z.array(z.string()).describe('Why the gate does not pass (empty on pass)'),
  initiate: z.boolean().describe('true: apply nextActions[0] and call verify_task; false: do not (start or continue) a verify loop'),
  stop: z.enum(LOOP_STOPS).optional().describe('Set when the loop must end: escalate to a human'),
  round: z.number().int().min(0).describe('0 after a solve or run; +1 per verify'),
  maxRounds: z.number().int().min(LOOP_LIMITS.maxRounds.min).max(LOOP_LIMITS.maxRounds.max),
  sameFindingsStreak: z.number().int().min(0),
  sameFindingsLimit: z.number().int().min(LOOP_LIMITS.sameFindingsLimit.min).max(LOOP_LIMITS.sameFindingsLimit.max),
  nextActions: z.array(fixItemSchema).max(1).describe('The rank-1 fix only: apply it and nothing else this round'),
  remainingFixes: z.array(fixItemSchema).max(MAX_REMAINING_FIXES).describe('Every fix, ranked'),
  remainingFixesTotal: z.number().int().min(0),
  next: z.string().describe('What the host should do next, in one sentence'),
  receipt: loopReceiptSchema,
});
export type Loop = z.infer<typeof loopSchema>;

export interface LoopOptions {
  maxRounds: number;
  sameFindingsLimit: number;
}

/**
 * The loop limits from a caller's input, defaults filled in; throws a validation_error naming the
 * field and its range for anything else (0, 1000, 2.5, "5").
 */
export function resolveLoopOptions(input: { maxRounds?: unknown; sameFindingsLimit?: unknown }, fallback: Partial<LoopOptions> = {}): LoopOptions {
  const issues: FieldIssue[] = [];
  const read = (field: keyof typeof LOOP_LIMITS, value: unknown): number => {
    const { min, max } = LOOP_LIMITS[field];
    const dflt = fallback[field] ?? LOOP_LIMITS[field].default;
    if (value === undefined || value === null) return dflt;
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    const got = typeof value === 'number' || typeof value === 'boolean' ? String(value) : typeof value === 'string' ? JSON.stringify(value.slice(0, 20)) : typeof value;
    issues.push({ field, message: `must be an integer from ${min} to ${max} (got ${got})` });
    return dflt;
  };
  const options = { maxRounds: read('maxRounds', input.maxRounds), sameFindingsLimit: read('sameFindingsLimit', input.sameFindingsLimit) };
  if (issues.length > 0) {
    throw invalidInput(`Invalid loop limits: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}`, issues);
  }
  return options;
}

/** What the loop reads of a report. */
export type LoopReport = Pick<JobReport, 'findings' | 'checks' | 'incomplete'> & Partial<Pick<JobReport, 'steps' | 'gatePolicy' | 'statuses' | 'categories'>>;

/** Why nothing can be fixed now (the quota, the rate limit, a page answering an error): loop.next says it. */
export interface LoopBlock {
  code: string;
  next: string;
}

export interface LoopContext {
  /** the playbook's acceptance criteria: the fixes unmet ones need rank first */
  acceptance?: readonly AcceptanceItem[] | undefined;
  /** the playbook's own category (its first scored one): ranks before others of a severity */
  ownCategory?: Category | undefined;
  /** the job could not judge the page for a reason outside it: no fix is offered, next names the reason */
  blocked?: LoopBlock | undefined;
  /** the playbook's gate, for the ranking; by default the report's own gatePolicy */
  gatePolicy?: GatePolicy;
  /** raw caller input: validated with resolveLoopOptions */
  maxRounds?: unknown;
  sameFindingsLimit?: unknown;
  /** estimate of one more round's credits (the playbook's catalog sum); default: what this round charged */
  estimatedCredits?: number;
  /** default: the operations of the report's steps that ran */
  toolsUsed?: readonly string[];
}

export function loopAfterSolve(report: LoopReport, gateResult: GateResult, opts: LoopContext = {}): Loop {
  const limits = resolveLoopOptions(opts);
  const fixes = rankFixes(report, policyOf(report, opts), rankContext(report, opts, gateResult));
  const initiate = gateResult.gate === 'fail' && !report.incomplete && fixes.length > 0 && opts.blocked === undefined;
  return assemble({ report, gateResult, opts, limits, fixes, round: 0, streak: 0, stop: undefined, initiate, afterVerify: false });
}

export function loopAfterVerify(
  previousLoop: Pick<Loop, 'round' | 'sameFindingsStreak' | 'maxRounds' | 'sameFindingsLimit' | 'stop'> | undefined,
  baselineReport: Pick<JobReport, 'findings' | 'incomplete'>,
  afterReport: LoopReport,
  gateResult: GateResult,
  opts: LoopContext = {},
): Loop {
  const limits = resolveLoopOptions(opts, previousLoop === undefined ? {} : { maxRounds: previousLoop.maxRounds, sameFindingsLimit: previousLoop.sameFindingsLimit });
  const round = (previousLoop?.round ?? 0) + 1;
  const previousStreak = previousLoop?.sameFindingsStreak ?? 0;
  const streak =
    baselineReport.incomplete || afterReport.incomplete ? previousStreak : sameIdSet(baselineReport.findings, afterReport.findings) ? previousStreak + 1 : 0;
  let stop: LoopStop | undefined;
  if (gateResult.gate !== 'pass') {
    if (previousLoop?.stop !== undefined) stop = previousLoop.stop;
    else if (streak >= limits.sameFindingsLimit) stop = 'same_findings';
    else if (round >= limits.maxRounds) stop = 'max_rounds';
  }
  const fixes = rankFixes(afterReport, policyOf(afterReport, opts), rankContext(afterReport, opts, gateResult));
  const initiate = gateResult.gate === 'fail' && stop === undefined && !afterReport.incomplete && fixes.length > 0 && opts.blocked === undefined;
  return assemble({ report: afterReport, gateResult, opts, limits, fixes, round, streak, stop, initiate, afterVerify: true });
}

/**
 * Whether two reports hold the same findings: the same ids, each in as many places (a finding is
 * one per rule: 120 images without alt becoming 60 is progress, not the same finding again).
 * Order and duplicates do not matter.
 */
export function sameIdSet(a: readonly Pick<Finding, 'findingId'>[], b: readonly Pick<Finding, 'findingId'>[]): boolean {
  const key = (f: Pick<Finding, 'findingId'>) => `${f.findingId}\u0000${String((f as { count?: unknown }).count ?? 1)}`;
  const left = new Set(a.map(key));
  const right = new Set(b.map(key));
  if (left.size !== right.size) return false;
  for (const id of left) if (!right.has(id)) return false;
  return true;
}

/**
 * The ranking's context for a report: the findings its unmet criteria need, the playbook's own
 * category. The report's gate judged the criteria already when it was given them: its judgement
 * is read, not made again.
 */
export function rankContext(report: LoopReport & Partial<Pick<JobReport, 'statuses' | 'categories' | 'steps'>>, opts: Pick<LoopContext, 'acceptance' | 'ownCategory'>, gate?: GateResult): RankContext {
  const judged = opts.acceptance === undefined || gate === undefined ? undefined : acceptanceJudged(gate, report, opts.acceptance);
  const needed = opts.acceptance === undefined ? undefined : (judged ?? findingsNeeded({ ...report, statuses: report.statuses ?? {} }, opts.acceptance));
  return { ...(needed === undefined ? {} : { needed }), ownCategory: opts.ownCategory };
}

function policyOf(report: LoopReport, opts: LoopContext): GatePolicy {
  return opts.gatePolicy ?? report.gatePolicy ?? { policy: 'default' };
}

interface Parts {
  report: LoopReport;
  gateResult: GateResult;
  opts: LoopContext;
  limits: LoopOptions;
  fixes: FixItem[];
  round: number;
  streak: number;
  stop: LoopStop | undefined;
  initiate: boolean;
  afterVerify: boolean;
}

export const RECEIPT_NOTE =
  'estimatedCredits is an estimate of what one more verify_task round costs, not a bill: the credits actually charged are on each step of jobReport.steps.';

function assemble(p: Parts): Loop {
  const steps = p.report.steps ?? [];
  const ran = steps.filter((s) => s.status !== 'skipped');
  const toolsUsed = [...new Set(p.opts.toolsUsed ?? ran.map((s) => s.operationId))];
  const estimatedCredits = p.opts.estimatedCredits ?? ran.reduce((sum, s) => sum + s.creditsCharged, 0);
  return {
    gate: p.gateResult.gate,
    gateReasons: [...p.gateResult.reasons],
    initiate: p.initiate,
    ...(p.stop === undefined ? {} : { stop: p.stop }),
    round: p.round,
    maxRounds: p.limits.maxRounds,
    sameFindingsStreak: p.streak,
    sameFindingsLimit: p.limits.sameFindingsLimit,
    nextActions: p.initiate && p.fixes[0] !== undefined ? [p.fixes[0]] : [],
    remainingFixes: p.fixes.slice(0, MAX_REMAINING_FIXES),
    remainingFixesTotal: p.fixes.length,
    next: nextSentence(p),
    receipt: { round: p.round, maxRounds: p.limits.maxRounds, toolsUsed, estimatedCredits, note: RECEIPT_NOTE },
  };
}

function nextSentence(p: Parts): string {
  const { gateResult, fixes, limits } = p;
  const firstReason = gateResult.reasons[0] ?? '';
  if (p.opts.blocked !== undefined && gateResult.gate !== 'pass') return p.opts.blocked.next;
  if (gateResult.gate === 'pass') {
    return fixes.length === 0
      ? 'The gate passes and nothing is left to fix: the job is done; do not call verify_task again.'
      : `The gate passes: the job is done; the ${fixes.length} remaining fixes are optional and do not block it.`;
  }
  if (p.stop === 'same_findings') {
    return `Stop and escalate to a human: the same findings remained ${p.streak} verify rounds in a row (sameFindingsLimit ${limits.sameFindingsLimit}), so the fixes are not taking effect. ${firstReason}`.trim();
  }
  if (p.stop === 'max_rounds') {
    return `Stop and escalate to a human: round ${p.round} reached maxRounds ${limits.maxRounds} and the gate still fails. ${firstReason}`.trim();
  }
  if (gateResult.gate === 'unknown') {
    return 'Nothing could be judged (read jobReport.notes: the page may be unreachable or the input incomplete): make it reachable or pass the missing input and run the job again; do not start a verify loop.';
  }
  if (p.report.incomplete) {
    return 'The report is incomplete, so the gate cannot pass: read jobReport.notes, fix what stopped the run (an unreachable URL, a failed step, a missing input) and run the job again before fixing findings.';
  }
  const top = fixes[0];
  if (top === undefined) return `The gate fails but no finding carries a fix: escalate to a human. ${firstReason}`.trim();
  const fix = `the rank-1 fix in nextActions (${top.findingId}, ${top.patchType}: ${truncate(top.change, 200)})`;
  return p.afterVerify
    ? `Round ${p.round} of ${limits.maxRounds}: apply only ${fix}, then call verify_task with baseline: {runId: execution.runId} of this answer.`
    : `Apply only ${fix}, then call verify_task with baseline: {runId: execution.runId} of this answer.`;
}

function truncate(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars - 3)}...` : text;
}

/** A fix as a compact loop lists it past the first: what it is and how it is judged; the finding holds where and how. */
export type FixSummary = Pick<FixItem, 'findingId' | 'patchType' | 'acceptance' | 'roleHint' | 'rank' | 'rule' | 'category' | 'severity' | 'title' | 'expectedScoreGain'>;

/** The loop as a compact answer carries it. */
export type CompactLoop = Omit<Loop, 'remainingFixes' | 'gateReasons'> & { remainingFixes: FixSummary[] };

/**
 * The loop of a compact answer: nextActions whole (the fix to apply now), remainingFixes as
 * summaries (the spec's findingId, patchType, acceptance and roleHint, with rank, rule, severity
 * and title); each one's change and evidence are on its finding in jobReport.findings, and it comes
 * whole as nextActions[0] in the round it is due. No gateReasons: the answer says the gate's
 * reasons once, in verification.evidence.reasons. Full mode keeps every item whole.
 */
export function compactLoop(loop: Loop): CompactLoop {
  const { gateReasons: _reasons, ...rest } = loop;
  return {
    ...rest,
    remainingFixes: loop.remainingFixes.map((f) => ({
      findingId: f.findingId,
      patchType: f.patchType,
      acceptance: f.acceptance,
      roleHint: f.roleHint,
      rank: f.rank,
      rule: f.rule,
      category: f.category,
      severity: f.severity,
      title: f.title,
      expectedScoreGain: f.expectedScoreGain,
    })),
  };
}
