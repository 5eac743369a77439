// The jobReport: one report for a whole playbook run, built from its steps' results. It is what
// solve_task / run_playbook answer, what verify_task compares against, and what a host hands back
// as a baseline, so it is sealed (report-signature.ts) and has a zod schema (an MCP outputSchema,
// and the first check a baseline must pass).
//
// How the steps combine:
// - findings: every ok step's findings, the same findingId once (the first step's copy), sorted
//   by severity, rule and id so two runs list them alike;
// - checks: one per (rule, category); when two steps judged the same rule the more telling result
//   is kept (fail over pass over unknown over not_applicable);
// - scores and statuses: only over the playbook's `scores` categories. A category one step scored
//   keeps that step's score (the security-headers grade is not a weighted mean); one several steps
//   scored is re-scored as the weighted mean of their checks; one no step scored is `unknown`.
//   overall is the mean of the known category scores;
// - incomplete: a step failed, or a step's own report was incomplete (facts missing, limits hit).
//
// Forms: buildJobReport makes the whole report (every check: the gate's criteria and the fix
// ranking read them), each step as ids, status, error code and credits; `full` adds each step's raw
// `result`. What a compact answer carries is compactJobReport's view of it: only the checks that
// could not be judged (`unknown`: every failing check is a finding already, and summary counts them
// all) and no `instances` on a finding of one place (its `evidence` is that place). The seal covers
// exactly that view, so the whole report, the full one and the compact view all verify, and what
// the view leaves out (raw results, passing checks) is never trusted for anything.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  categorySchema,
  checkSchema,
  findingSchema,
  reportSchema,
  scoreKeySchema,
  statusSchema,
  type Category,
  type Check,
  type Finding,
  type Report,
  type ScoreKey,
  type Severity,
  type Status,
} from '../../analysis/findings.ts';
import { categoryScore, findingCounts, statusForScore } from '../../analysis/scoring.ts';
import type { Playbook } from '../playbooks/playbook-schema.ts';
import { canonicalJson, sealMatches, sealOf, type SigningKey } from './report-signature.ts';

export const STEP_STATUSES = ['ok', 'error', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export const JOB_REPORT_FORMS = ['compact', 'full'] as const;
export type JobReportForm = (typeof JOB_REPORT_FORMS)[number];

/** Bounds of a jobReport: a playbook has at most 12 steps, an analyzer at most 50 findings per rule. */
export const JOB_REPORT_LIMITS = { steps: 50, findings: 5000, checks: 5000, notes: 200, noteChars: 2000, instances: 5 } as const;

export const jobReportStepSchema = z.object({
  stepId: z.string().min(1).max(60),
  operationId: z.string().min(1).max(200),
  status: z.enum(STEP_STATUSES).describe('ok: the tool answered; error: it failed (errorCode); skipped: an optional step whose input was not given'),
  errorCode: z.string().min(1).max(200).optional().describe('The tool error code when status is error'),
  creditsCharged: z.number().min(0).describe('Credits this step charged (after any refund)'),
  result: z.unknown().optional().describe('full form only: the raw tool result (not covered by the signature)'),
});
export type JobReportStep = z.infer<typeof jobReportStepSchema>;

export const jobGatePolicySchema = z.object({
  policy: z.enum(['default', 'ship']),
  requireGood: z.array(categorySchema).max(categorySchema.options.length),
  advisory: z.array(categorySchema).max(categorySchema.options.length),
});
export type JobGatePolicy = z.infer<typeof jobGatePolicySchema>;

export const jobReportSummarySchema = z.object({
  findings: z.number().int().min(0),
  high: z.number().int().min(0),
  medium: z.number().int().min(0),
  low: z.number().int().min(0),
  info: z.number().int().min(0),
  steps: z.number().int().min(0),
  stepsOk: z.number().int().min(0),
  stepsFailed: z.number().int().min(0),
  stepsSkipped: z.number().int().min(0),
  creditsCharged: z.number().min(0),
  // Optional: a report issued before they were counted has none (a baseline may be one).
  checks: z.number().int().min(0).optional().describe('Every check, judged or not: a compact report lists only the unknown ones'),
  checksPassed: z.number().int().min(0).optional(),
  checksFailed: z.number().int().min(0).optional(),
  checksUnknown: z.number().int().min(0).optional(),
});

export const jobReportSchema = z.object({
  reportId: z.string().min(1).max(100),
  playbookId: z.string().min(1).max(100),
  goalKey: z.string().min(1).max(1000).describe('The normalised goal or job this report answers; a baseline must match it'),
  createdAt: z.iso.datetime(),
  categories: z.array(categorySchema).max(categorySchema.options.length).describe("The playbook's scored categories"),
  gatePolicy: jobGatePolicySchema,
  steps: z.array(jobReportStepSchema).max(JOB_REPORT_LIMITS.steps),
  scores: z.partialRecord(scoreKeySchema, z.number().int().min(0).max(100)),
  statuses: z.partialRecord(scoreKeySchema, statusSchema),
  findings: z.array(findingSchema).max(JOB_REPORT_LIMITS.findings),
  checks: z.array(checkSchema).max(JOB_REPORT_LIMITS.checks).describe('compact: the checks that could not be judged (unknown; a failing check is a finding), summary counts them all; full: every check'),
  summary: jobReportSummarySchema,
  incomplete: z.boolean().describe('A step failed or could not judge everything: never a gate pass'),
  notes: z.array(z.string().max(JOB_REPORT_LIMITS.noteChars)).max(JOB_REPORT_LIMITS.notes),
  signature: z.string().describe('HMAC-SHA256 (hex) over the canonical JSON of the report without signature and step results'),
});
export type JobReport = z.infer<typeof jobReportSchema>;

/** One step's outcome as the runner hands it over. */
export interface StepOutcome {
  stepId: string;
  operationId: string;
  status: StepStatus;
  errorCode?: string;
  creditsCharged: number;
  /** the tool's raw result (kept only in the full form) */
  result?: unknown;
  /** the step's report; when absent it is read from `result.report` if that is a valid report */
  report?: Report;
}

export interface JobReportInput {
  playbook: Pick<Playbook, 'id' | 'scores' | 'gate'>;
  goalKey: string;
  steps: readonly StepOutcome[];
  /** the per-account key (jobReportKey) */
  key: SigningKey;
  form?: JobReportForm;
  /** extra notes from the runner (they count towards nothing) */
  notes?: readonly string[];
  /** fixed in tests; a fresh jr_<hex> by default */
  reportId?: string;
  createdAt?: Date;
}

/**
 * A URL tool's report inside its result ({ url, finalUrl, status, report }), when it is one; for a
 * comparison ({ yours, competitor, categories }) the report of your page: it is the one the job
 * judges and the host fixes (the competitor's page is the benchmark, never edited).
 */
export function reportOfResult(result: unknown): Report | undefined {
  if (result === null || typeof result !== 'object') return undefined;
  if (!('report' in result)) return 'yours' in result ? reportOfResult((result as { yours: unknown }).yours) : undefined;
  const parsed = reportSchema.safeParse((result as { report: unknown }).report);
  return parsed.success ? parsed.data : undefined;
}

/** A comparison's verdict per category, one note each ("seo: yours 62, competitor 91: ..."). */
function comparisonNotes(result: unknown): string[] {
  if (result === null || typeof result !== 'object' || !('categories' in result) || !('yours' in result)) return [];
  const categories = (result as { categories: unknown }).categories;
  if (!Array.isArray(categories)) return [];
  return categories.flatMap((c: unknown) => {
    if (c === null || typeof c !== 'object') return [];
    const { category, yours, competitor, winner, why } = c as Record<string, unknown>;
    if (typeof category !== 'string') return [];
    const score = (v: unknown) => (typeof v === 'number' ? String(v) : 'unknown');
    return [`comparison ${category}: yours ${score(yours)}, competitor ${score(competitor)}, ${winner === 'tie' ? 'a tie' : `${String(winner)} ahead`}${typeof why === 'string' && why !== '' ? `: ${why}` : ''}`];
  });
}

const SEVERITY_ORDER: Record<Severity, number> = { high: 0, medium: 1, low: 2, info: 3 };
const RESULT_WEIGHT: Record<Check['result'], number> = { fail: 3, pass: 2, unknown: 1, not_applicable: 0 };

export function buildJobReport(input: JobReportInput): JobReport {
  const { playbook } = input;
  const notes: string[] = [];
  const reports: { stepId: string; report: Report }[] = [];
  let incomplete = false;
  for (const step of input.steps) {
    if (step.status === 'error') {
      incomplete = true;
      notes.push(`step "${step.stepId}" (${step.operationId}) failed${step.errorCode ? ` with ${step.errorCode}` : ''}: what it checks was not judged`);
      continue;
    }
    if (step.status === 'skipped') continue;
    const report = step.report ?? reportOfResult(step.result);
    if (report === undefined) continue;
    reports.push({ stepId: step.stepId, report });
    if (report.incomplete) incomplete = true;
    for (const note of report.notes) notes.push(`${step.stepId}: ${note}`);
    for (const note of comparisonNotes(step.result)) notes.push(`${step.stepId}: ${note}`);
  }

  // A job's report lists the first few instances of each finding (count says how many; the tool's
  // own report lists more): an agent reads it every round, so it stays small however big the page.
  let findings = mergeFindings(reports.map((r) => r.report)).map((f) => (f.instances !== undefined && f.instances.length > JOB_REPORT_LIMITS.instances ? { ...f, instances: f.instances.slice(0, JOB_REPORT_LIMITS.instances) } : f));
  let checks = mergeChecks(reports.map((r) => r.report));
  // Past the schema's bounds the report would not validate as a baseline: keep the most severe.
  // A list shortened is not a page judged in part: it does not make the report incomplete.
  if (findings.length > JOB_REPORT_LIMITS.findings) {
    notes.push(`${findings.length} findings, the first ${JOB_REPORT_LIMITS.findings} by severity listed`);
    findings = findings.slice(0, JOB_REPORT_LIMITS.findings);
  }
  if (checks.length > JOB_REPORT_LIMITS.checks) {
    notes.push(`${checks.length} checks, the first ${JOB_REPORT_LIMITS.checks} kept`);
    checks = checks.slice(0, JOB_REPORT_LIMITS.checks);
  }
  const scores: Partial<Record<ScoreKey, number>> = {};
  const statuses: Partial<Record<ScoreKey, Status>> = {};
  const known: number[] = [];
  for (const category of playbook.scores) {
    const score = mergedScore(category, reports.map((r) => r.report), checks);
    statuses[category] = statusForScore(score);
    if (score === undefined) {
      notes.push(`${category}: no step could score it, so it is unknown`);
      continue;
    }
    scores[category] = score;
    known.push(score);
  }
  if (known.length > 0) scores.overall = Math.round(known.reduce((a, b) => a + b, 0) / known.length);
  statuses.overall = statusForScore(scores.overall);
  for (const note of input.notes ?? []) notes.push(note);

  const steps: JobReportStep[] = input.steps.map((s) => ({
    stepId: s.stepId,
    operationId: s.operationId,
    status: s.status,
    ...(s.status === 'error' && s.errorCode ? { errorCode: s.errorCode } : {}),
    creditsCharged: s.creditsCharged,
    ...(input.form === 'full' && s.result !== undefined ? { result: s.result } : {}),
  }));
  const unsigned: Omit<JobReport, 'signature'> = {
    reportId: input.reportId ?? `jr_${randomUUID().replaceAll('-', '')}`,
    playbookId: playbook.id,
    goalKey: input.goalKey,
    createdAt: (input.createdAt ?? new Date()).toISOString(),
    categories: [...playbook.scores],
    gatePolicy: { policy: playbook.gate.policy, requireGood: [...playbook.gate.requireGood], advisory: [...playbook.gate.advisory] },
    steps,
    scores,
    statuses,
    findings,
    checks,
    summary: {
      ...findingCounts(findings),
      steps: steps.length,
      stepsOk: steps.filter((s) => s.status === 'ok').length,
      stepsFailed: steps.filter((s) => s.status === 'error').length,
      stepsSkipped: steps.filter((s) => s.status === 'skipped').length,
      creditsCharged: steps.reduce((sum, s) => sum + s.creditsCharged, 0),
      checks: checks.length,
      checksPassed: checks.filter((c) => c.result === 'pass').length,
      checksFailed: checks.filter((c) => c.result === 'fail').length,
      checksUnknown: checks.filter((c) => c.result === 'unknown').length,
    },
    incomplete,
    notes: boundNotes(notes),
  };
  // The seal is made over the compact view, which every answer then carries: kept beside the
  // report so that neither the answer nor a profile's snapshot computes it again.
  const view = compactJobReport(unsigned);
  const signature = sealOf(view, input.key);
  const report = { ...unsigned, signature };
  compactViews.set(report, Object.freeze({ ...view, signature }));
  return report;
}

/** The compact view of each report buildJobReport made (reports are never changed once built). */
const compactViews = new WeakMap<object, JobReport>();

/**
 * The compact view an answer carries (the seal holds on it): no raw step results; only the checks
 * that could not be judged, since the passing and not-applicable ones (most of them, about 6 KB on
 * a shop page) tell an agent nothing to do and every failing one is a finding already (summary
 * counts them all); a finding of one place without `instances`, which would only repeat its
 * `evidence`. Applied twice it changes nothing.
 */
export function compactJobReport<R extends Omit<JobReport, 'signature'>>(report: R): R {
  const built = compactViews.get(report);
  if (built !== undefined) return built as unknown as R;
  return {
    ...report,
    steps: report.steps.map(({ result: _result, ...step }) => step),
    findings: report.findings.map(compactFinding),
    checks: report.checks.filter((c) => c.result === 'unknown'),
  };
}

function compactFinding(finding: Finding): Finding {
  const listed = finding.instances;
  if (listed === undefined || listed.length > 1) return finding;
  // Only what says nothing more than the evidence goes (its copy, or no place at all where it names
  // none): instances that differ from it stay, and stay sealed.
  const evidence = canonicalJson(finding.evidence);
  if (listed.length === 1 ? canonicalJson(listed[0]) !== evidence : evidence !== '{}') return finding;
  const { instances: _instances, ...rest } = finding;
  return rest;
}

/** What the seal covers: the compact view without the signature. */
function signedPart(view: JobReport): unknown {
  const { signature: _signature, ...rest } = view;
  return rest;
}

/**
 * What a seal covered before compact reports left out passing checks and lone instances: the
 * whole report but the signature and raw results. Still honoured, so a report a host or a
 * profile kept from then is a baseline yet (the same key made it: it is no weaker a proof).
 */
function legacySignedPart(report: JobReport): unknown {
  const { signature: _signature, ...rest } = report;
  return { ...rest, steps: rest.steps.map(({ result: _result, ...step }) => step) };
}

export type JobReportCheck = { ok: true; report: JobReport } | { ok: false; problem: 'schema' | 'signature'; message: string };

/**
 * Whether a value is a jobReport issued with this key and unchanged since. The schema comes first
 * (a truncated report fails it), then the seal over the parsed value (unknown keys are dropped by
 * the parse, so nothing unsealed is ever read).
 */
export function checkJobReport(value: unknown, key: SigningKey): JobReportCheck {
  const read = readJobReport(value);
  if (!read.ok) return read;
  // The sealed view is what is read on: a full report's passing checks and raw results are not sealed.
  const view = compactJobReport(read.report);
  if (sealMatches(read.report.signature, signedPart(view), key)) return { ok: true, report: view };
  if (sealMatches(read.report.signature, legacySignedPart(read.report), key)) return read;
  return { ok: false, problem: 'signature', message: 'its signature does not match: it was changed after it was issued, or issued to another account' };
}

/**
 * The schema half of checkJobReport, without the seal: for the run store's own copy of a report
 * this service issued (read by runId for the account that owns the run), which no host handled,
 * so re-checking its seal would only cost the canonical JSON and the HMAC again (~0.5 ms a verify).
 */
export function readJobReport(value: unknown): JobReportCheck {
  let parsed: ReturnType<typeof jobReportSchema.safeParse>;
  try {
    parsed = jobReportSchema.safeParse(value);
  } catch {
    return { ok: false, problem: 'schema', message: 'the value could not be read as a jobReport' };
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
    return { ok: false, problem: 'schema', message: `not a complete jobReport${where}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, report: parsed.data };
}

export function verifyJobReport(report: unknown, key: SigningKey): boolean {
  return checkJobReport(report, key).ok;
}

function mergeFindings(reports: readonly Report[]): Finding[] {
  const byId = new Map<string, Finding>();
  for (const report of reports) for (const f of report.findings) if (!byId.has(f.findingId)) byId.set(f.findingId, f);
  return [...byId.values()].sort(
    (a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.rule.localeCompare(b.rule) || a.findingId.localeCompare(b.findingId),
  );
}

function mergeChecks(reports: readonly Report[]): Check[] {
  const byRule = new Map<string, Check>();
  for (const report of reports) {
    for (const check of report.checks) {
      const key = `${check.category}\u0000${check.rule}`;
      const held = byRule.get(key);
      if (held === undefined || RESULT_WEIGHT[check.result] > RESULT_WEIGHT[held.result]) byRule.set(key, check);
    }
  }
  return [...byRule.values()];
}

function mergedScore(category: Category, reports: readonly Report[], checks: readonly Check[]): number | undefined {
  const scored = reports.map((r) => r.scores[category]).filter((s): s is number => s !== undefined);
  // SEO is scored per Lighthouse audit, whichever step judged it (image-alt is an accessibility step).
  if (category === 'seo' && scored.length > 0) return categoryScore(checks, category) ?? scored[0];
  if (scored.length <= 1) return scored[0];
  return categoryScore(checks, category) ?? Math.min(...scored);
}

function boundNotes(notes: readonly string[]): string[] {
  const unique = [...new Set(notes)].map((n) => (n.length > JOB_REPORT_LIMITS.noteChars ? `${n.slice(0, JOB_REPORT_LIMITS.noteChars - 3)}...` : n));
  if (unique.length <= JOB_REPORT_LIMITS.notes) return unique;
  const kept = unique.slice(0, JOB_REPORT_LIMITS.notes - 1);
  kept.push(`${unique.length - kept.length} more notes left out`);
  return kept;
}
