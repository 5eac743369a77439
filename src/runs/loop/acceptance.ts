// A playbook's acceptance criteria, judged. Each criterion of `verification.evidence` says what
// must hold for the job to be done, and the gate passes only when every one of them holds: a
// playbook cannot answer `verified` while its own promise ("the page has one h1, a title and a
// meta description that fit a search result") is broken.
//
// A criterion names what it requires, so it can be judged from the report alone:
//   noSeverity: 'high'    no finding of that severity (or worse) remains;
//   noPoorCategory        no scored category is poor (below 50);
//   rulesPass: [...]      each rule was judged and passes (a rule not judged is not met: a skipped
//                         step cannot prove the promise), or did not apply to the page;
//   categoriesGood: [...] each category scores good (90 or more);
//   stepsOk               every step answered (a tool job: the call did not fail).
// A criterion written as plain text names nothing to judge: it holds when the rest of the gate
// does (no high finding, no poor category, a complete report), which is what such a sentence
// said before criteria were judged one by one.
//
// Each result names the findings behind an unmet criterion; the fix ranking puts the fixes an
// unmet criterion needs first, so the loop works on the promise before anything optional.
import { z } from 'zod';
import { categorySchema, type Category, type Check, type Finding, type ScoreKey, type Status } from '../../analysis/findings.ts';

export const criterionSchema = z
  .object({
    text: z.string().min(1).max(300),
    requires: z
      .object({
        noSeverity: z.enum(['high', 'medium']).optional(),
        noPoorCategory: z.literal(true).optional(),
        rulesPass: z.array(z.string().min(1).max(100)).min(1).max(50).optional(),
        categoriesGood: z.array(categorySchema).min(1).optional(),
        stepsOk: z.literal(true).optional(),
      })
      .strict()
      .refine((r) => Object.keys(r).length > 0, 'a criterion requires something: noSeverity, noPoorCategory, rulesPass, categoriesGood or stepsOk'),
  })
  .strict();
export type Criterion = z.infer<typeof criterionSchema>;

export const acceptanceItemSchema = z.union([z.string().min(1).max(300), criterionSchema]);
export type AcceptanceItem = z.infer<typeof acceptanceItemSchema>;

export function acceptanceText(item: AcceptanceItem): string {
  return typeof item === 'string' ? item : item.text;
}

export interface CriterionResult {
  text: string;
  met: boolean;
  /** the findings that keep it unmet (at most MAX_NAMED), by id */
  findings: string[];
  /** why it is met or not, in one sentence */
  detail: string;
}

/** Findings named per unmet criterion; the rest are counted in its detail. */
const MAX_NAMED = 10;

export interface CriteriaInput {
  findings: readonly Pick<Finding, 'findingId' | 'rule' | 'severity' | 'category'>[];
  checks?: readonly Pick<Check, 'rule' | 'result'>[];
  statuses: Partial<Record<ScoreKey, Status>>;
  categories?: readonly Category[];
  incomplete: boolean;
  steps?: readonly { status: string }[];
}

const SEVERITY_RANK: Record<string, number> = { high: 0, medium: 1, low: 2, info: 3 };

/** The criteria judged: each one's result, and every finding the unmet ones need fixed. */
export interface AcceptanceJudgement {
  criteria: CriterionResult[];
  /** the findings behind the unmet criteria, all of them (a result names at most MAX_NAMED): what the fix ranking puts first */
  needed: Set<string>;
}

/**
 * Judges each criterion once. The gate reports the results and the loop's ranking reads `needed`
 * from the same judgement (gate.ts acceptanceJudged), so a solve or verify judges its criteria once.
 */
export function judgeAcceptance(report: CriteriaInput, acceptance: readonly AcceptanceItem[]): AcceptanceJudgement {
  const poor = poorCategories(report);
  const poorSet = new Set(poor);
  const needed = new Set<string>();
  const criteria = acceptance.map((item) => {
    const behind = behindOf(report, item, poorSet);
    const judged = judge(report, item, behind, poor);
    if (!judged.met) for (const f of behind) needed.add(f.findingId);
    return judged;
  });
  return { criteria, needed };
}

export function evaluateCriteria(report: CriteriaInput, acceptance: readonly AcceptanceItem[]): CriterionResult[] {
  return judgeAcceptance(report, acceptance).criteria;
}

function judge(report: CriteriaInput, item: AcceptanceItem, behind: readonly CriteriaInput['findings'][number][], poor: readonly Category[]): CriterionResult {
  if (typeof item === 'string') {
    const met = !report.incomplete && behind.length === 0 && poor.length === 0;
    return result(item, met, behind, met ? 'Holds: no high-severity finding, no poor category, a complete report.' : 'Judged with the gate: a high-severity finding, a poor category or an incomplete report remains.');
  }
  const r = item.requires;
  const problems: string[] = [];
  if (r.noSeverity !== undefined) {
    const limit = SEVERITY_RANK[r.noSeverity] ?? 0;
    const hits = report.findings.filter((f) => (SEVERITY_RANK[f.severity] ?? 9) <= limit).length;
    if (hits > 0) problems.push(`${hits} ${r.noSeverity}-severity finding${hits === 1 ? '' : 's'} remain`);
  }
  if (r.noPoorCategory && poor.length > 0) problems.push(`${poor.join(', ')} ${poor.length === 1 ? 'scores' : 'score'} poor`);
  const short = (r.categoriesGood ?? []).filter((c) => report.statuses[c] !== 'good');
  if (short.length > 0) problems.push(`${short.join(', ')} ${short.length === 1 ? 'is' : 'are'} not good`);
  if (r.rulesPass) {
    const failing = [...new Set(report.findings.filter((f) => r.rulesPass?.includes(f.rule)).map((f) => f.rule))];
    if (failing.length > 0) problems.push(`${failing.join(', ')} ${failing.length === 1 ? 'fails' : 'fail'}`);
    const judged = new Map((report.checks ?? []).map((c) => [c.rule, c.result]));
    const unjudged = r.rulesPass.filter((rule) => !failing.includes(rule) && (judged.get(rule) === undefined || judged.get(rule) === 'unknown'));
    if (unjudged.length > 0) problems.push(`${unjudged.join(', ')} could not be judged`);
  }
  if (r.stepsOk) {
    const failed = (report.steps ?? []).filter((s) => s.status === 'error').length;
    if (failed > 0) problems.push(`${failed} step${failed === 1 ? '' : 's'} failed`);
  }
  const met = problems.length === 0;
  return result(item.text, met, behind, met ? 'Holds.' : `Not met: ${problems.join('; ')}.`);
}

function poorCategories(report: CriteriaInput): Category[] {
  const categories = report.categories ?? (Object.keys(report.statuses).filter((k) => k !== 'overall') as Category[]);
  return categories.filter((c) => report.statuses[c] === 'poor');
}

function result(text: string, met: boolean, behind: readonly CriteriaInput['findings'][number][], detail: string): CriterionResult {
  const sorted = [...behind].sort((a, b) => (SEVERITY_RANK[a.severity] ?? 9) - (SEVERITY_RANK[b.severity] ?? 9));
  const more = sorted.length > MAX_NAMED ? ` (${sorted.length - MAX_NAMED} more findings behind it)` : '';
  return { text, met, findings: met ? [] : sorted.slice(0, MAX_NAMED).map((f) => f.findingId), detail: `${detail}${met ? '' : more}` };
}

/** The findings an unmet criterion needs fixed (all of them, not only the named ones): what the fix ranking puts first. */
export function findingsNeeded(report: CriteriaInput, acceptance: readonly AcceptanceItem[]): Set<string> {
  return judgeAcceptance(report, acceptance).needed;
}

/** The findings that stand between a criterion and its being met. */
function behindOf(report: CriteriaInput, item: AcceptanceItem, poor: ReadonlySet<Category>): CriteriaInput['findings'][number][] {
  if (typeof item === 'string') return report.findings.filter((f) => f.severity === 'high' || poor.has(f.category));
  const r = item.requires;
  const limit = r.noSeverity === undefined ? -1 : (SEVERITY_RANK[r.noSeverity] ?? 0);
  const short = new Set((r.categoriesGood ?? []).filter((c) => report.statuses[c] !== 'good'));
  return report.findings.filter(
    (f) => (SEVERITY_RANK[f.severity] ?? 9) <= limit || (r.noPoorCategory === true && poor.has(f.category)) || short.has(f.category) || (r.rulesPass?.includes(f.rule) ?? false),
  );
}
