// Small readers over a report, so analyzer tests assert exact rule ids, severities and ids.
import assert from 'node:assert/strict';
import { reportSchema, type Finding, type Report } from '../../../src/analysis/findings.ts';

/** The rules that produced findings, sorted, one entry per finding. */
export function firedRules(report: Report): string[] {
  return report.findings.map((f) => f.rule).sort();
}

export function findingsOf(report: Report, rule: string): Finding[] {
  return report.findings.filter((f) => f.rule === rule);
}

export function onlyFinding(report: Report, rule: string): Finding {
  const found = findingsOf(report, rule);
  assert.equal(found.length, 1, `exactly one ${rule} finding, got ${found.length}`);
  return found[0] as Finding;
}

export function findingIds(report: Report): string[] {
  return report.findings.map((f) => f.findingId).sort();
}

export function checkResult(report: Report, rule: string): string | undefined {
  return report.checks.find((c) => c.rule === rule)?.result;
}

/** Every report an analyzer returns matches the published schema. */
export function assertValid(report: Report): void {
  assert.deepEqual(reportSchema.parse(report), report);
}
