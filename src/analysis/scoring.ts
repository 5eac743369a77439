// Scores and statuses, computed the same way for every analyzer.
//
// A category's score is Lighthouse's: the weighted mean of its rules' results (pass 1, fail 0),
// rules that could not be judged left out, times 100. Statuses use Lighthouse's colour bands:
//   score >= 90 good, >= 50 needs_improvement, below 50 poor, and unknown when no rule of the
//   category could be judged (for example response headers when the caller passed HTML only).
// The overall score is the plain mean of the known category scores.
// The security headers category is scored Observatory-style instead (start at 100, modifiers per
// test), so that analyzer passes its score in as an override; observatoryScore/Grade are here.
import type { Category, Check, Finding, Report, ScoreKey, Severity, Status } from './findings.ts';
import type { HtmlDocument } from './html-document.ts';
import type { PageFacts } from './page-facts.ts';

export const GOOD_THRESHOLD = 90;
export const NEEDS_IMPROVEMENT_THRESHOLD = 50;
/** More findings than this for one rule are counted in a note instead of listed. */
export const MAX_FINDINGS_PER_RULE = 50;

/** A rule an analyzer checks: its id, category, weight in the category and the severity of its findings. */
export interface RuleDefinition {
  id: string;
  category: Category;
  weight: number;
  severity: Severity;
  title: string;
}

/**
 * An analyzer: a pure function of (page, response facts, URL) to a report. facts is null when a
 * caller passed HTML directly; rules that need the response then report unknown, never a guess.
 */
export interface Analyzer {
  id: string;
  categories: readonly Category[];
  rules: readonly RuleDefinition[];
  analyze(html: string, facts: PageFacts | null, url: string): Report;
  /** the same on a page already parsed, so several analyzers share one parse */
  analyzeDocument(doc: HtmlDocument, facts: PageFacts | null, url: string): Report;
}

export function statusForScore(score: number | undefined): Status {
  if (score === undefined) return 'unknown';
  if (score >= GOOD_THRESHOLD) return 'good';
  if (score >= NEEDS_IMPROVEMENT_THRESHOLD) return 'needs_improvement';
  return 'poor';
}

export function passed(rule: RuleDefinition): Check {
  return { rule: rule.id, category: rule.category, weight: rule.weight, result: 'pass', score: 1 };
}

export function failed(rule: RuleDefinition): Check {
  return { rule: rule.id, category: rule.category, weight: rule.weight, result: 'fail', score: 0 };
}

export function unknown(rule: RuleDefinition): Check {
  return { rule: rule.id, category: rule.category, weight: rule.weight, result: 'unknown', score: null };
}

export function notApplicable(rule: RuleDefinition): Check {
  return { rule: rule.id, category: rule.category, weight: rule.weight, result: 'not_applicable', score: null };
}

/** pass when the rule produced no finding, fail otherwise. */
export function checkFrom(rule: RuleDefinition, findings: readonly Finding[]): Check {
  return findings.some((f) => f.rule === rule.id) ? failed(rule) : passed(rule);
}

/** Lighthouse's weighted mean of a category's judged checks, 0-100; undefined when none was judged. */
export function categoryScore(checks: readonly Check[], category: Category): number | undefined {
  let total = 0;
  let weights = 0;
  for (const check of checks) {
    if (check.category !== category || check.score === null || check.weight <= 0) continue;
    total += check.weight * check.score;
    weights += check.weight;
  }
  if (weights === 0) return undefined;
  return Math.round((100 * total) / weights);
}

const SEVERITY_ORDER: Record<Severity, number> = { high: 0, medium: 1, low: 2, info: 3 };

export interface ReportParts {
  /** the categories this analyzer covers: each gets a status, unknown when nothing was judged */
  categories: readonly Category[];
  checks: readonly Check[];
  findings: readonly Finding[];
  notes?: readonly string[];
  details?: Record<string, unknown>;
  /** categories scored another way than the weighted mean (the Observatory-style grader) */
  scoreOverrides?: Partial<Record<Category, number>>;
}

/** How many findings there are, and of each severity: the head of a report's and a jobReport's summary. */
export function findingCounts(findings: readonly Finding[]): { findings: number; high: number; medium: number; low: number; info: number } {
  const count = (severity: Severity) => findings.filter((f) => f.severity === severity).length;
  return { findings: findings.length, high: count('high'), medium: count('medium'), low: count('low'), info: count('info') };
}

export function buildReport(parts: ReportParts): Report {
  const notes = [...(parts.notes ?? [])];
  const findings = capPerRule(parts.findings, notes);
  const scores: Partial<Record<ScoreKey, number>> = {};
  const statuses: Partial<Record<ScoreKey, Status>> = {};
  const known: number[] = [];
  for (const category of parts.categories) {
    const override = parts.scoreOverrides?.[category];
    const score = override === undefined ? categoryScore(parts.checks, category) : clampScore(override);
    statuses[category] = statusForScore(score);
    if (score !== undefined) {
      scores[category] = score;
      known.push(score);
    }
  }
  if (known.length > 0) scores.overall = Math.round(known.reduce((a, b) => a + b, 0) / known.length);
  statuses.overall = statusForScore(scores.overall);
  const unknownChecks = parts.checks.filter((c) => c.result === 'unknown').length;
  return {
    scores,
    statuses,
    findings,
    checks: [...parts.checks],
    summary: {
      ...findingCounts(findings),
      checks: parts.checks.length,
      passed: parts.checks.filter((c) => c.result === 'pass').length,
      failed: parts.checks.filter((c) => c.result === 'fail').length,
      unknown: unknownChecks,
    },
    incomplete: unknownChecks > 0 || notes.length > 0,
    notes,
    details: parts.details ?? {},
  };
}

function clampScore(score: number): number {
  return Math.max(0, Math.min(100, Math.round(score)));
}

/** Severity first, then rule and id, so two runs list the same findings in the same order. */
function capPerRule(findings: readonly Finding[], notes: string[]): Finding[] {
  const sorted = [...findings].sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.rule.localeCompare(b.rule) ||
      a.findingId.localeCompare(b.findingId),
  );
  const seen = new Map<string, number>();
  const kept: Finding[] = [];
  for (const finding of sorted) {
    const n = (seen.get(finding.rule) ?? 0) + 1;
    seen.set(finding.rule, n);
    if (n <= MAX_FINDINGS_PER_RULE) kept.push(finding);
  }
  for (const [rule, n] of seen) {
    if (n > MAX_FINDINGS_PER_RULE) notes.push(`${rule}: ${n} findings, the first ${MAX_FINDINGS_PER_RULE} listed`);
  }
  return kept;
}

// MDN HTTP Observatory grading chart: score ranges to letter grades.
const OBSERVATORY_GRADES: ReadonlyArray<readonly [number, string]> = [
  [100, 'A+'],
  [90, 'A'],
  [85, 'A-'],
  [80, 'B+'],
  [70, 'B'],
  [65, 'B-'],
  [60, 'C+'],
  [50, 'C'],
  [45, 'C-'],
  [40, 'D+'],
  [30, 'D'],
  [25, 'D-'],
  [0, 'F'],
];

export function observatoryGrade(score: number): string {
  for (const [min, grade] of OBSERVATORY_GRADES) if (score >= min) return grade;
  return 'F';
}

/**
 * The Observatory's two rounds: start at 100 and take off every penalty; only when the result is
 * 90 (an A) or more are the bonuses added. Never below 0; no upper bound (the grade caps at A+).
 */
export function observatoryScore(modifiers: readonly number[]): number {
  const penalties = modifiers.filter((m) => m < 0).reduce((a, b) => a + b, 0);
  const bonuses = modifiers.filter((m) => m > 0).reduce((a, b) => a + b, 0);
  const base = Math.max(0, 100 + penalties);
  return base >= 90 ? base + bonuses : base;
}
