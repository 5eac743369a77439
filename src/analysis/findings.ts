// The findings model every analyzer reports in, shared by the REST URL tools (one report read by a
// person) and the MCP verify loop (an agent fixing findings one at a time and re-checking). The
// zod schemas are the catalog's output schemas, so the wire form and the TypeScript types are one.
import { SEO_AUDITS } from './seo-audits.ts';
import { createHash } from 'node:crypto';
import { z } from 'zod';

export const CATEGORIES = [
  'seo',
  'accessibility',
  'best-practices',
  'mixed-content',
  'security-headers',
  'tls',
  'http-status',
  'performance',
] as const;
export const categorySchema = z.enum(CATEGORIES);
export type Category = z.infer<typeof categorySchema>;

/** A score key is a category or the overall score across the categories a report covers. */
export const scoreKeySchema = z.enum([...CATEGORIES, 'overall']);
export type ScoreKey = z.infer<typeof scoreKeySchema>;

export const severitySchema = z.enum(['high', 'medium', 'low', 'info']);
export type Severity = z.infer<typeof severitySchema>;

export const statusSchema = z.enum(['good', 'needs_improvement', 'poor', 'unknown']);
export type Status = z.infer<typeof statusSchema>;

export const patchTypeSchema = z.enum(['http-header', 'html', 'file', 'config', 'content', 'investigate']);
export type PatchType = z.infer<typeof patchTypeSchema>;

export const roleHintSchema = z.enum(['config', 'edit']);
export type RoleHint = z.infer<typeof roleHintSchema>;

export const evidenceSchema = z.object({
  /** CSS-like location of the element, when the finding is about one */
  selector: z.string().optional(),
  /** the element's opening tag as written (truncated), or the offending value */
  snippet: z.string().optional(),
  /** 1-based line in the HTML */
  line: z.number().int().positive().optional(),
  /** the response header the finding is about (lower-case) */
  header: z.string().optional(),
  /** the header's or attribute's value as received (truncated) */
  value: z.string().optional(),
  /** the resource URL the finding is about */
  url: z.string().optional(),
});
export type Evidence = z.infer<typeof evidenceSchema>;

export const fixSchema = z.object({
  patchType: patchTypeSchema,
  /** the concrete change to make */
  change: z.string(),
  /** how a re-check will know the finding is fixed */
  acceptance: z.string(),
  roleHint: roleHintSchema,
});
export type Fix = z.infer<typeof fixSchema>;

/** How many instances a finding lists at most; `count` says how many there are. */
export const MAX_LISTED_INSTANCES = 20;

export const findingSchema = z.object({
  /** stable across runs, never a hash of text: the rule's in its category (ruleFindingId) */
  findingId: z.string(),
  rule: z.string(),
  category: categorySchema,
  /** the most severe of its instances */
  severity: severitySchema,
  title: z.string(),
  detail: z.string(),
  /** the first instance's */
  evidence: evidenceSchema,
  /** one fix for every instance: its acceptance is the rule's, not one element's */
  fix: fixSchema,
  /**
   * How many places on the page the rule failed at (1 for a single one). Set on every finding of a
   * report buildReport makes; optional for findings made elsewhere (text checks, job steps).
   */
  count: z.number().int().min(1).optional(),
  /** the first MAX_LISTED_INSTANCES instances' evidence, in page order */
  instances: z.array(evidenceSchema).max(MAX_LISTED_INSTANCES).optional(),
});
export type Finding = z.infer<typeof findingSchema>;

/** One rule's outcome on a page: what the scores are computed from. */
export const checkSchema = z.object({
  rule: z.string(),
  category: categorySchema,
  /** relative weight in its category's weighted mean */
  weight: z.number().min(0),
  /** not_applicable: nothing on the page for the rule to judge; unknown: the facts it needs are missing */
  result: z.enum(['pass', 'fail', 'unknown', 'not_applicable']),
  /** 0..1 for pass and fail, null otherwise */
  score: z.number().min(0).max(1).nullable(),
  /** the Lighthouse SEO audit the rule stands for: the SEO score is per audit (seo-audits.ts) */
  audit: z.enum(SEO_AUDITS).optional(),
});
export type Check = z.infer<typeof checkSchema>;

export const summarySchema = z.object({
  findings: z.number().int().min(0),
  high: z.number().int().min(0),
  medium: z.number().int().min(0),
  low: z.number().int().min(0),
  info: z.number().int().min(0),
  checks: z.number().int().min(0),
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  unknown: z.number().int().min(0),
});
export type Summary = z.infer<typeof summarySchema>;

export const reportSchema = z.object({
  /** 0-100 per category the report covers (absent when unknown), and overall */
  scores: z.partialRecord(scoreKeySchema, z.number().int().min(0).max(100)),
  /** a status for every category the report covers, and overall */
  statuses: z.partialRecord(scoreKeySchema, statusSchema),
  findings: z.array(findingSchema),
  checks: z.array(checkSchema),
  summary: summarySchema,
  /**
   * true when something could not be judged (facts missing, a check not made): never a gate pass.
   * A long list shortened is not that: `count` says how many there are.
   */
  incomplete: z.boolean(),
  /** what could not be analysed and why, and remarks on how the page was read (those leave incomplete false) */
  notes: z.array(z.string()),
  /** analyzer-specific measurements (outline, pixel widths, header grade); each analyzer documents its own */
  details: z.record(z.string(), z.unknown()),
});
export type Report = z.infer<typeof reportSchema>;

/** A short, stable id: the same rule at the same normalised location always gets the same id. */
export function findingIdFor(rule: string, location: string): string {
  const digest = createHash('sha256').update(`${rule}\u0000${location}`).digest('hex');
  return `${rule}:${digest.slice(0, 10)}`;
}

/**
 * The id of a rule's finding in a category: a report holds one finding per rule (finding-groups.ts),
 * so the id holds while the rule fails, whatever its instances and however many are fixed.
 */
export function ruleFindingId(rule: string, category: Category): string {
  return findingIdFor(rule, `rule:${category}`);
}

// Where each instance made here is, for the fold to count places: not part of the wire form.
const PLACES = new WeakMap<Finding, string>();

/** The normalised place an instance was made at, while it is the object makeFinding returned. */
export function placeOf(finding: Finding): string | undefined {
  return PLACES.get(finding);
}

export interface FindingInput {
  rule: string;
  category: Category;
  severity: Severity;
  /**
   * The normalised place of this instance: a CSS-like path, `header:<name>`, `cookie:<name>`,
   * `document`. Two instances of a rule at one place are one (the fold counts places).
   */
  location: string;
  title: string;
  detail: string;
  evidence: Evidence;
  fix: Fix;
}

/** One instance of a rule, under its rule's id; buildReport folds a rule's instances into one finding. */
export function makeFinding(input: FindingInput): Finding {
  const { location, ...rest } = input;
  const finding: Finding = { findingId: ruleFindingId(input.rule, input.category), ...rest };
  PLACES.set(finding, location);
  return finding;
}

export const reportComparisonSchema = z.object({
  newFindings: z.array(findingSchema),
  resolvedFindings: z.array(findingSchema),
  remainingFindings: z.array(findingSchema),
  /** after minus before, per score key present in either; null when one side has no score */
  scoreDeltas: z.partialRecord(scoreKeySchema, z.number().nullable()),
});
export type ReportComparison = z.infer<typeof reportComparisonSchema>;

/** What changed between two runs on the same page, by findingId: the verify loop's delta. */
export function compareReports(
  before: Pick<Report, 'findings' | 'scores'>,
  after: Pick<Report, 'findings' | 'scores'>,
): ReportComparison {
  const beforeIds = new Set(before.findings.map((f) => f.findingId));
  const afterIds = new Set(after.findings.map((f) => f.findingId));
  const scoreDeltas: ReportComparison['scoreDeltas'] = {};
  const keys = new Set<ScoreKey>([
    ...(Object.keys(before.scores) as ScoreKey[]),
    ...(Object.keys(after.scores) as ScoreKey[]),
  ]);
  for (const key of scoreKeySchema.options) {
    if (!keys.has(key)) continue;
    const a = before.scores[key];
    const b = after.scores[key];
    scoreDeltas[key] = a === undefined || b === undefined ? null : b - a;
  }
  return {
    newFindings: after.findings.filter((f) => !beforeIds.has(f.findingId)),
    resolvedFindings: before.findings.filter((f) => !afterIds.has(f.findingId)),
    remainingFindings: after.findings.filter((f) => beforeIds.has(f.findingId)),
    scoreDeltas,
  };
}
