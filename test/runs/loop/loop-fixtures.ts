// Fixtures for the loop tests: the shipped playbooks read from their data files, findings made with
// the real makeFinding, step outcomes wrapping real analyzer reports as a URL tool answers them.
import { readFileSync } from 'node:fs';
import { makeFinding, type Category, type Finding, type PatchType, type Report, type Severity } from '../../../src/analysis/findings.ts';
import { buildReport, type RuleDefinition } from '../../../src/analysis/scoring.ts';
import { playbookSchema, type Playbook } from '../../../src/runs/playbooks/playbook-schema.ts';
import { buildJobReport, type JobReport, type StepOutcome } from '../../../src/runs/loop/job-report.ts';
import { jobReportKey, type SigningKey } from '../../../src/runs/loop/report-signature.ts';

export const SECRET = 'service-secret-for-tests';
export const KEY = jobReportKey(SECRET, 'acct_one');
export const OTHER_ACCOUNT_KEY = jobReportKey(SECRET, 'acct_two');
export const CREATED_AT = new Date('2025-03-01T10:00:00.000Z');

export function playbook(id: string): Playbook {
  const url = new URL(`../../../src/runs/playbooks/data/${id}.json`, import.meta.url);
  return playbookSchema.parse(JSON.parse(readFileSync(url, 'utf8')));
}

const ROLE: Record<PatchType, 'config' | 'edit'> = { 'http-header': 'config', config: 'config', html: 'edit', content: 'edit', file: 'edit', investigate: 'edit' };

/** A finding of `rule` at `location`, with a fix of the given patch type. */
export function finding(rule: string, category: Category, severity: Severity, location = 'document', patchType: PatchType = 'html'): Finding {
  return makeFinding({
    rule,
    category,
    severity,
    location,
    title: `${rule} title`,
    detail: `${rule} detail`,
    evidence: { selector: location },
    fix: { patchType, change: `change for ${rule}`, acceptance: `${rule} no longer reported`, roleHint: ROLE[patchType] },
  });
}

/** A report over `categories` where each finding's rule is a failing check (weight from `weights`, default 1). */
export function reportOf(categories: readonly Category[], findings: readonly Finding[], extra: { passing?: RuleDefinition[]; weights?: Record<string, number>; notes?: string[] } = {}): Report {
  const rules = new Map<string, RuleDefinition>();
  for (const f of findings) rules.set(f.rule, { id: f.rule, category: f.category, weight: extra.weights?.[f.rule] ?? 1, severity: f.severity, title: f.title });
  const checks = [
    ...[...rules.values()].map((r) => ({ rule: r.id, category: r.category, weight: r.weight, result: 'fail' as const, score: 0 })),
    ...(extra.passing ?? []).map((r) => ({ rule: r.id, category: r.category, weight: r.weight, result: 'pass' as const, score: 1 })),
  ];
  return buildReport({ categories, checks, findings, ...(extra.notes ? { notes: extra.notes } : {}) });
}

export function passingRule(id: string, category: Category, weight = 1): RuleDefinition {
  return { id, category, weight, severity: 'medium', title: id };
}

/** An ok step as a URL tool answers it: { url, finalUrl, status, report }. */
export function okStep(stepId: string, operationId: string, report: Report, credits = 1): StepOutcome {
  return { stepId, operationId, status: 'ok', creditsCharged: credits, result: { url: 'https://shop.test/', finalUrl: 'https://shop.test/', status: 200, report } };
}

export function jobReportOf(playbookId: string, steps: readonly StepOutcome[], options: { goalKey?: string; key?: SigningKey; form?: 'compact' | 'full'; reportId?: string } = {}): JobReport {
  return buildJobReport({
    playbook: playbook(playbookId),
    goalKey: options.goalKey ?? `${playbookId}|https://shop.test/`,
    steps,
    key: options.key ?? KEY,
    reportId: options.reportId ?? 'jr_test_1',
    createdAt: CREATED_AT,
    ...(options.form ? { form: options.form } : {}),
  });
}

export const ids = (items: readonly { findingId: string }[]): string[] => items.map((i) => i.findingId);
