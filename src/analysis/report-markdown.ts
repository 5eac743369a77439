// `format=markdown`: a report as text/markdown from one fixed template of scores and findings,
// no generated prose. Everything taken from the page (titles, snippets, header values) is either
// escaped or put in a code span, so a page cannot inject links, images or layout into the report.
import { CATEGORIES, type Finding, type Report, type ScoreKey } from './findings.ts';

export function reportToMarkdown(title: string, url: string, report: Report): string {
  const lines: string[] = [];
  lines.push(`# ${escapeText(title)}`, '', `URL: ${code(url)}`, '');

  lines.push('## Scores', '', '| Category | Score | Status |', '|---|---|---|');
  const keys: ScoreKey[] = ['overall', ...CATEGORIES];
  for (const key of keys) {
    const status = report.statuses[key];
    if (status === undefined) continue;
    const score = report.scores[key];
    lines.push(`| ${key} | ${score === undefined ? '-' : String(score)} | ${status} |`);
  }
  lines.push('');

  const s = report.summary;
  lines.push(
    '## Summary',
    '',
    `- Findings: ${s.findings} (high ${s.high}, medium ${s.medium}, low ${s.low}, info ${s.info})`,
    `- Checks: ${s.checks} (passed ${s.passed}, failed ${s.failed}, unknown ${s.unknown})`,
    `- Complete: ${report.incomplete ? 'no' : 'yes'}`,
    '',
  );

  lines.push('## Findings', '');
  if (report.findings.length === 0) lines.push('None.', '');
  report.findings.forEach((finding, i) => lines.push(...findingLines(finding, i + 1), ''));

  if (report.notes.length > 0) {
    lines.push('## Not analysed', '');
    for (const note of report.notes) lines.push(`- ${escapeText(note)}`);
    lines.push('');
  }
  return lines.join('\n');
}

function findingLines(finding: Finding, n: number): string[] {
  const out = [
    `### ${n}. [${finding.severity}] ${escapeText(finding.title)}`,
    '',
    `- Rule: ${code(finding.rule)} (${finding.category})`,
    `- Finding: ${code(finding.findingId)}`,
    `- Detail: ${escapeText(finding.detail)}`,
  ];
  const evidence = evidenceParts(finding);
  if (evidence.length > 0) out.push(`- Evidence: ${evidence.join(', ')}`);
  out.push(
    `- Fix (${finding.fix.patchType}, ${finding.fix.roleHint}): ${escapeText(finding.fix.change)}`,
    `- Acceptance: ${escapeText(finding.fix.acceptance)}`,
  );
  return out;
}

function evidenceParts(finding: Finding): string[] {
  const e = finding.evidence;
  const parts: string[] = [];
  if (e.selector !== undefined) parts.push(`selector ${code(e.selector)}`);
  if (e.line !== undefined) parts.push(`line ${e.line}`);
  if (e.header !== undefined) parts.push(`header ${code(e.header)}`);
  if (e.value !== undefined) parts.push(`value ${code(e.value)}`);
  if (e.url !== undefined) parts.push(`URL ${code(e.url)}`);
  if (e.snippet !== undefined) parts.push(code(e.snippet));
  return parts;
}

/**
 * Plain text on one line, with the characters escaped that would make emphasis, code, links,
 * images, HTML, entities or table cells of it. Always written after a prefix, so line-start
 * syntax (#, -, 1.) cannot take effect.
 */
export function escapeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[\\`*_[\]<>!|~&]/g, (c) => `\\${c}`);
}

/** A code span on one line, fenced with more backticks than the text holds in a row. */
export function code(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}
