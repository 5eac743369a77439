// Two pages side by side: the same analyzers on both, and per category which page wins and why.
// "Why" is made of facts, not prose: the scores, and the rules the losing page fails that the
// winning page passes (by rule id and title), so a reader knows what to change to catch up.
import { z } from 'zod';
import { CATEGORIES, categorySchema, type Category, type Report } from './findings.ts';
import { code, escapeText, reportToMarkdown } from './report-markdown.ts';
import type { UrlReportResult } from './url-report.ts';

export const sideSchema = z.enum(['yours', 'competitor', 'tie', 'unknown']);

export const categoryComparisonSchema = z.object({
  category: categorySchema,
  yours: z.number().int().nullable().describe('Your page\'s score in the category, null when it could not be judged'),
  competitor: z.number().int().nullable(),
  winner: sideSchema,
  /** rules the losing page fails that the winner passes, as `rule: title` */
  why: z.array(z.string()),
});
export type CategoryComparison = z.infer<typeof categoryComparisonSchema>;

export function compareCategories(yours: Report, competitor: Report): CategoryComparison[] {
  const covered = CATEGORIES.filter((c) => yours.statuses[c] !== undefined || competitor.statuses[c] !== undefined);
  return covered.map((category) => compareCategory(category, yours, competitor));
}

function compareCategory(category: Category, yours: Report, competitor: Report): CategoryComparison {
  const a = yours.scores[category] ?? null;
  const b = competitor.scores[category] ?? null;
  const winner = a === null || b === null ? 'unknown' : a > b ? 'yours' : b > a ? 'competitor' : 'tie';
  const loser = winner === 'yours' ? competitor : winner === 'competitor' ? yours : null;
  const other = loser === yours ? competitor : yours;
  const why: string[] = [];
  if (loser !== null) {
    const passedByWinner = new Set(other.checks.filter((c) => c.category === category && c.result === 'pass').map((c) => c.rule));
    const seen = new Set<string>();
    for (const finding of loser.findings) {
      if (finding.category !== category || !passedByWinner.has(finding.rule) || seen.has(finding.rule)) continue;
      seen.add(finding.rule);
      why.push(`${finding.rule}: ${finding.title}`);
    }
  }
  return { category, yours: a, competitor: b, winner, why };
}

export interface PageComparison {
  yours: UrlReportResult;
  competitor: UrlReportResult;
  categories: CategoryComparison[];
  overall: { yours: number | null; competitor: number | null; winner: z.infer<typeof sideSchema> };
}

export function comparePages(yours: UrlReportResult, competitor: UrlReportResult): PageComparison {
  const a = yours.report.scores.overall ?? null;
  const b = competitor.report.scores.overall ?? null;
  const winner = a === null || b === null ? 'unknown' : a > b ? 'yours' : b > a ? 'competitor' : 'tie';
  return { yours, competitor, categories: compareCategories(yours.report, competitor.report), overall: { yours: a, competitor: b, winner } };
}

export function comparisonToMarkdown(comparison: PageComparison, title: string): string {
  const score = (n: number | null) => (n === null ? '-' : String(n));
  const lines = [
    `# ${escapeText(title)}`,
    '',
    `Yours: ${code(comparison.yours.finalUrl)}`,
    `Competitor: ${code(comparison.competitor.finalUrl)}`,
    '',
    '## Side by side',
    '',
    '| Category | Yours | Competitor | Winner |',
    '|---|---|---|---|',
    `| overall | ${score(comparison.overall.yours)} | ${score(comparison.overall.competitor)} | ${comparison.overall.winner} |`,
    ...comparison.categories.map((c) => `| ${c.category} | ${score(c.yours)} | ${score(c.competitor)} | ${c.winner} |`),
    '',
    '## Why',
    '',
  ];
  const explained = comparison.categories.filter((c) => c.why.length > 0);
  if (explained.length === 0) lines.push('No rule failed on one page and passed on the other.', '');
  for (const c of explained) {
    lines.push(`- ${c.category} (${c.winner} wins): the other page fails ${c.why.map((w) => code(w.split(':')[0] ?? w)).join(', ')}`);
  }
  lines.push('');
  // Each page's full report, one heading level down.
  const demote = (md: string) => md.split('\n').map((line) => (line.startsWith('#') ? `#${line}` : line)).join('\n');
  lines.push(demote(reportToMarkdown('Your page', comparison.yours.finalUrl, comparison.yours.report)));
  lines.push(demote(reportToMarkdown('Competitor page', comparison.competitor.finalUrl, comparison.competitor.report)));
  return lines.join('\n');
}
