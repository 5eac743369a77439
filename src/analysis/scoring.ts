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
import { groupFindings, type GroupWording, type RuleWording } from './finding-groups.ts';
import type { HtmlDocument } from './html-document.ts';
import type { PageFacts } from './page-facts.ts';
import { seoScore, type SeoAudit } from './seo-audits.ts';

export const GOOD_THRESHOLD = 90;
export const NEEDS_IMPROVEMENT_THRESHOLD = 50;

/** A rule an analyzer checks: its id, category, weight in the category and the severity of its findings. */
export interface RuleDefinition {
  id: string;
  category: Category;
  weight: number;
  severity: Severity;
  title: string;
  /** how the rule's finding reads when it fails in several places (finding-groups.ts) */
  many?: GroupWording;
  /** the Lighthouse SEO audit this rule stands for, if any: the SEO score is per audit (seo-audits.ts) */
  audit?: SeoAudit;
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
  /** the analysis in two steps, for a page analysed again with facts the first report asked for (PageReading) */
  reading?: PageReading;
}

/**
 * An analysis in two steps: what the analyzer reads of a parse, as plain data, and the report from
 * that. A tool that analyses a page a second time with facts its first report asked for (page
 * speed: the sizes of the subresources it names) keeps the reading from the first analysis and
 * judges it again, rather than parse the page again: the reading crosses from the analysis worker
 * and back (structured clone), the parse does not. analyzeDocument(doc, facts, url) must be
 * report(read(doc, facts, url), facts, url), so either way gives the same report.
 */
export interface PageReading<R = unknown> {
  read(doc: HtmlDocument, facts: PageFacts | null, url: string): R;
  /** whether the reading is worth carrying to a second analysis: not when holding it (on the main thread, while the facts are gathered) costs more than a second parse */
  worthKeeping(reading: R): boolean;
  report(reading: R, facts: PageFacts | null, url: string): Report;
}

export function statusForScore(score: number | undefined): Status {
  if (score === undefined) return 'unknown';
  if (score >= GOOD_THRESHOLD) return 'good';
  if (score >= NEEDS_IMPROVEMENT_THRESHOLD) return 'needs_improvement';
  return 'poor';
}

export function passed(rule: RuleDefinition): Check {
  return withAudit(rule, { rule: rule.id, category: rule.category, weight: rule.weight, result: 'pass', score: 1 });
}

export function failed(rule: RuleDefinition): Check {
  return withAudit(rule, { rule: rule.id, category: rule.category, weight: rule.weight, result: 'fail', score: 0 });
}

export function unknown(rule: RuleDefinition): Check {
  return withAudit(rule, { rule: rule.id, category: rule.category, weight: rule.weight, result: 'unknown', score: null });
}

export function notApplicable(rule: RuleDefinition): Check {
  return withAudit(rule, { rule: rule.id, category: rule.category, weight: rule.weight, result: 'not_applicable', score: null });
}

function withAudit(rule: RuleDefinition, check: Check): Check {
  return rule.audit === undefined ? check : { ...check, audit: rule.audit };
}

/** pass when the rule produced no finding, fail otherwise. */
export function checkFrom(rule: RuleDefinition, findings: readonly Finding[]): Check {
  return findings.some((f) => f.rule === rule.id) ? failed(rule) : passed(rule);
}

/**
 * Lighthouse's weighted mean of a category's judged checks, 0-100; undefined when none was judged.
 * SEO is scored per Lighthouse audit instead (seo-audits.ts).
 */
export function categoryScore(checks: readonly Check[], category: Category): number | undefined {
  if (category === 'seo') return seoScore(checks);
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
  /** one per place a rule failed: buildReport folds them into one finding per rule */
  findings: readonly Finding[];
  /** what could not be judged, and why: each makes the report incomplete */
  notes?: readonly string[];
  /** remarks on how the page was read that take nothing away from the verdict (listed first) */
  info?: readonly string[];
  /** incomplete for a reason the checks do not show (a combined report one of whose parts was) */
  incomplete?: boolean;
  /** the analyzer's rules, for the wording of findings of several instances */
  rules?: readonly RuleDefinition[];
  details?: Record<string, unknown>;
  /** categories scored another way than the weighted mean (the Observatory-style grader) */
  scoreOverrides?: Partial<Record<Category, number>>;
}

/** How many findings there are, and of each severity: the head of a report's and a jobReport's summary. */
export function findingCounts(findings: readonly Finding[]): { findings: number; high: number; medium: number; low: number; info: number } {
  const count = (severity: Severity) => findings.filter((f) => f.severity === severity).length;
  return { findings: findings.length, high: count('high'), medium: count('medium'), low: count('low'), info: count('info') };
}

/** How each rule's findings read when grouped (groupFindings), by rule id. */
export function ruleWordings(rules: readonly RuleDefinition[]): Map<string, RuleWording> {
  return new Map(rules.map((r) => [r.id, { title: r.title, many: r.many }] as const));
}

export function buildReport(parts: ReportParts): Report {
  const notes = parts.notes ?? [];
  const findings = sortFindings(groupFindings(parts.findings, ruleWordings(parts.rules ?? [])));
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
    incomplete: unknownChecks > 0 || notes.length > 0 || parts.incomplete === true,
    notes: [...(parts.info ?? []), ...notes],
    details: parts.details ?? {},
  };
}

function clampScore(score: number): number {
  return Math.max(0, Math.min(100, Math.round(score)));
}

/** Severity first, then rule and category, so two runs list the same findings in the same order. */
function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.rule.localeCompare(b.rule) ||
      a.category.localeCompare(b.category),
  );
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
