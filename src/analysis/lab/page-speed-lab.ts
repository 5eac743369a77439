// page-speed-analyzer's lab mode: the page fetched once, analysed by the proxy's HTML rules, and the
// same response loaded in the warm Chromium and measured (lab-run.ts); the report's performance
// score and its LCP, CLS and TBT findings are the lab's (lab-report.ts), the proxy's findings stay.
import { z } from 'zod';
import { standardMarkdown, urlReportResultSchema, type PageAccess, type UrlReportResult } from '../url-report.ts';
import { ServiceError } from '../../core/errors.ts';
import { analyzeFetched } from '../page-analysis.ts';
import { code, escapeText } from '../report-markdown.ts';
import type { Analyzer } from '../scoring.ts';
import { labResultSchema, type LabResult } from './lab-result.ts';
import { runLab } from './lab-run.ts';
import { labReport } from './lab-report.ts';

/** The run's own limit: with the page's fetch before it, it stays inside LAB_TOOL_TIMEOUT_MS. */
const LAB_TIME_LIMIT_MS = 20_000;
/** What a page-speed call may take in all: the page's fetch (15 s at most), the lab run, the browser's start. */
export const LAB_TOOL_TIMEOUT_MS = 60_000;

export const pageSpeedResultSchema = urlReportResultSchema.extend({
  lab: labResultSchema
    .optional()
    .describe(
      "mode=lab only: the page loaded in headless Chromium (1350x940, no throttling), every request through the egress-safe fetcher; its estimate (Lighthouse's desktop simulation) is the report's performance score",
    ),
});
export type PageSpeedResult = z.infer<typeof pageSpeedResultSchema>;

/** Fetches the page once, analyses it as proxy mode does, and measures the same response in the browser. */
export async function proxyAndLab(ctx: PageAccess, url: string, analyzers: readonly Analyzer[]): Promise<UrlReportResult & { lab: LabResult }> {
  const chromium = ctx.engines?.chromium;
  if (chromium === undefined) {
    throw new ServiceError(503, 'engine_unavailable', 'Lab mode needs the Chromium engine, which this server does not run; use mode=proxy', {
      extra: { engine: 'chromium' },
    });
  }
  const facts = await ctx.fetchPage(url);
  const proxy = analyzeFetched(analyzers, facts.text, facts, facts.finalUrl);
  const lab = await runLab(chromium, ctx.fetchPage, url, { prefetched: facts, signal: ctx.signal, timeLimitMs: LAB_TIME_LIMIT_MS });
  return { url, finalUrl: facts.finalUrl, status: facts.status, report: labReport(proxy, lab), lab };
}

/** format=markdown: the standard report, then the lab figures when there are some. */
export function pageSpeedMarkdown(result: PageSpeedResult, title: string): string {
  const base = standardMarkdown(result, title);
  const lab = result.lab;
  if (lab === undefined) return base;
  const ms = (v: number | null): string => (v === null ? 'not measured' : `${Math.round(v)} ms`);
  const lines = [
    '',
    '## Lab measurement (headless Chromium)',
    '',
    '| Metric | Value |',
    '| --- | --- |',
    `| First Contentful Paint | ${ms(lab.fcpMs)} |`,
    `| Largest Contentful Paint | ${ms(lab.lcpMs)} |`,
    `| Cumulative Layout Shift | ${lab.cls} |`,
    `| Total Blocking Time | ${ms(lab.tbtMs)} |`,
    `| Estimated as Lighthouse desktop | FCP ${ms(lab.estimate?.fcpMs ?? null)}, LCP ${ms(lab.estimate?.lcpMs ?? null)}, SI ${ms(lab.estimate?.siMs ?? null)}, score ${lab.estimate?.score ?? 'n/a'} |`,
    `| Requests | ${lab.requests} (${lab.bytes} bytes) |`,
    `| Blocked / failed | ${lab.blocked.length} / ${lab.failed.length} |`,
    '',
    ...[...lab.blocked.map((b) => ({ ...b, kind: 'blocked' })), ...lab.failed.map((f) => ({ ...f, kind: 'failed' }))].map(
      (entry) => `- ${entry.kind}: ${code(entry.url)}: ${escapeText(entry.reason)}`,
    ),
    ...lab.notes.map((note) => `- note: ${escapeText(note)}`),
  ];
  return `${base.replace(/\n+$/, '')}\n${lines.join('\n')}\n`;
}
