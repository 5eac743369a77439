// The ranked fix list of the verify loop. The host applies only the rank-1 item per round, so the
// order decides what gets fixed first; it is explained in each item's `why` and is deterministic.
//
// Order (first difference wins):
//   0. a fix an unmet acceptance criterion needs (acceptance.ts) before any other: the playbook's
//      promise is what the gate waits for, so an optional improvement never goes first;
//   0b. the playbook's own category (its first scored one: seo for an SEO audit) before others:
//      an SEO audit whose rounds went to accessibility fixes left the SEO score where it was;
//   1. severity: high, medium, low, info. A high finding always blocks the gate, so gate-blocking
//      fixes come first without a separate rule;
//   2. ship policy only: a finding in a requireGood category (tls, security-headers, http-status,
//      mixed-content, plus the playbook's own) before one of the same severity elsewhere, because
//      under a ship gate those categories block while they are merely needs_improvement;
//   3. expected score gain, larger first (below);
//   4. effort, smaller first (EFFORT_BY_PATCH_TYPE);
//   5. findingId, by code unit (not locale), so equal fixes keep one order everywhere.
//
// Every finding carries a fix (the findings model requires one), so every finding is listed.
// info findings are kept, ranked last by rule 1: they never block a gate, but after a pass the host
// may still want them, and dropping them would make remainingFixes lie about what is left.
//
// expectedScoreGain estimates the points the finding's category score gains when the finding is
// fixed, from the check weights of scoring.ts: the category score is the weighted mean of its
// judged checks, so a failing rule costs 100 * weight * (1 - score) / (sum of judged weights);
// several findings of one rule share that evenly (fixing one of three unsized images does not
// flip the check). One decimal. For security-headers, scored Observatory-style, it is an estimate
// of the same kind, not the grader's modifier. 0 when the report carries no check for the rule.
import { seoScoreExact } from '../../analysis/seo-audits.ts';
import { z } from 'zod';
import {
  categorySchema,
  evidenceSchema,
  patchTypeSchema,
  roleHintSchema,
  severitySchema,
  type Category,
  type Check,
  type Finding,
  type PatchType,
  type Severity,
} from '../../analysis/findings.ts';
import { SHIP_GATE_CATEGORIES } from '../playbooks/playbook-schema.ts';
import type { GatePolicy } from './gate.ts';

export const EFFORTS = ['small', 'medium', 'large'] as const;
export type Effort = (typeof EFFORTS)[number];

/**
 * Effort by patch type: a header or a config line is one edit in one place (small); an html or
 * content change touches the page and may need review (medium); a file to produce or a problem to
 * investigate has no known edit yet (large).
 */
export const EFFORT_BY_PATCH_TYPE: Readonly<Record<PatchType, Effort>> = {
  'http-header': 'small',
  config: 'small',
  html: 'medium',
  content: 'medium',
  file: 'large',
  investigate: 'large',
};

export const fixItemSchema = z.object({
  findingId: z.string(),
  patchType: patchTypeSchema,
  acceptance: z.string().describe('How the next verify will know the fix worked'),
  roleHint: roleHintSchema,
  change: z.string().describe('What to change'),
  rank: z.number().int().min(1),
  rule: z.string(),
  category: categorySchema,
  severity: severitySchema,
  title: z.string(),
  evidence: evidenceSchema.describe('Where the finding is (selector, line, header, url)'),
  expectedScoreGain: z.number().min(0).describe("Estimated points the category score gains (an estimate from the check weights)"),
  effort: z.enum(EFFORTS),
  why: z.string().describe('Why it ranks where it does'),
});
export type FixItem = z.infer<typeof fixItemSchema>;

/** What ranking reads of a report. */
export interface RankInput {
  findings: readonly Finding[];
  checks?: readonly Check[];
}

const SEVERITY_ORDER: Record<Severity, number> = { high: 0, medium: 1, low: 2, info: 3 };
const EFFORT_ORDER: Record<Effort, number> = { small: 0, medium: 1, large: 2 };

/** What else orders the fixes: the findings unmet criteria need, and the playbook's own category. */
export interface RankContext {
  needed?: ReadonlySet<string>;
  ownCategory?: Category | undefined;
}

export function rankFixes(report: RankInput, policy: GatePolicy, context: RankContext = {}): FixItem[] {
  const gain = gainEstimator(report);
  const required = new Set<Category>(policy.policy === 'ship' ? [...SHIP_GATE_CATEGORIES, ...(policy.requireGood ?? [])] : []);
  const needed = context.needed ?? new Set<string>();
  const items = report.findings.map((f) => ({
    finding: f,
    gain: gain(f),
    effort: EFFORT_BY_PATCH_TYPE[f.fix.patchType],
    shipRequired: required.has(f.category),
    needed: needed.has(f.findingId),
    own: f.category === context.ownCategory,
  }));
  items.sort(
    (a, b) =>
      Number(b.needed) - Number(a.needed) ||
      Number(b.own) - Number(a.own) ||
      SEVERITY_ORDER[a.finding.severity] - SEVERITY_ORDER[b.finding.severity] ||
      Number(b.shipRequired) - Number(a.shipRequired) ||
      b.gain - a.gain ||
      EFFORT_ORDER[a.effort] - EFFORT_ORDER[b.effort] ||
      (a.finding.findingId < b.finding.findingId ? -1 : a.finding.findingId > b.finding.findingId ? 1 : 0),
  );
  return items.map(({ finding: f, gain: points, effort, shipRequired, needed: isNeeded }, index) => ({
    findingId: f.findingId,
    patchType: f.fix.patchType,
    acceptance: f.fix.acceptance,
    roleHint: f.fix.roleHint,
    change: f.fix.change,
    rank: index + 1,
    rule: f.rule,
    category: f.category,
    severity: f.severity,
    title: f.title,
    evidence: f.evidence,
    expectedScoreGain: points,
    effort,
    why: `${isNeeded ? 'An unmet acceptance criterion needs it. ' : ''}${whyText(f, points, effort, shipRequired)}`,
  }));
}

function whyText(f: Finding, points: number, effort: Effort, shipRequired: boolean): string {
  const severity = f.severity === 'high' ? 'high severity (it blocks the gate)' : f.severity === 'info' ? 'info only (it never blocks the gate)' : `${f.severity} severity`;
  const ship = shipRequired ? `, in ${f.category}, which the ship gate requires good` : '';
  return `Ranked by ${severity}${ship}, then an estimated +${points} points on ${f.category}, then ${effort} effort (${f.fix.patchType}).`;
}

/** The per-finding gain estimate described in the header, with the sums computed once. */
export function gainEstimator(report: RankInput): (finding: Finding) => number {
  const judgedWeight = new Map<Category, number>();
  const lostByRule = new Map<string, number>();
  for (const c of report.checks ?? []) {
    if (c.score === null || c.weight <= 0) continue;
    judgedWeight.set(c.category, (judgedWeight.get(c.category) ?? 0) + c.weight);
    const key = `${c.category}\u0000${c.rule}`;
    lostByRule.set(key, (lostByRule.get(key) ?? 0) + c.weight * (1 - c.score));
  }
  const siblings = new Map<string, number>();
  for (const f of report.findings) {
    const key = `${f.category}\u0000${f.rule}`;
    siblings.set(key, (siblings.get(key) ?? 0) + 1);
  }
  const checks = report.checks ?? [];
  const seoNow = seoScoreExact(checks);
  return (f) => {
    const key = `${f.category}\u0000${f.rule}`;
    // SEO is scored per Lighthouse audit (seo-audits.ts): the gain is the score with the rule passing.
    if (f.category === 'seo' && seoNow !== undefined) {
      const fixed = seoScoreExact(checks.map((c) => (c.rule === f.rule && c.score !== null ? { ...c, result: 'pass' as const, score: 1 } : c))) ?? seoNow;
      return Math.round((10 * Math.max(0, fixed - seoNow)) / (siblings.get(key) ?? 1)) / 10;
    }
    const total = judgedWeight.get(f.category) ?? 0;
    const lost = lostByRule.get(key) ?? 0;
    if (total === 0 || lost === 0) return 0;
    return Math.round((1000 * lost) / total / (siblings.get(key) ?? 1)) / 10;
  };
}
