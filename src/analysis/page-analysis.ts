// The step every page-reading URL tool shares: fetch the page through the egress-safe fetcher,
// parse it once, run the tool's analyzers on the one parse, and combine their reports into one.
// A response that is not HTML (or an error status) is still reported: the header rules are
// judged, the page rules say why they could not be, and the report is marked incomplete.
import type { PageAccess, UrlReportResult } from './url-report.ts';
import type { Category, Check, Finding, Report, ScoreKey, Status } from './findings.ts';
import { parseHtml, type HtmlDocument } from './html-document.ts';
import type { PageFacts } from './page-facts.ts';
import { analyzeOnWorker } from './analysis-pool.ts';
import { buildReport, categoryScore, statusForScore, type Analyzer } from './scoring.ts';
import { isLocalPage, withoutLocalPlaceholder } from './local-page.ts';
import { firstPer } from './finding-groups.ts';

/** Whether a response's body can be read as a page. */
export function isHtmlResponse(facts: PageFacts): boolean {
  const type = facts.mediaType;
  if (type === null) return /^\s*(<!doctype html|<html|<head|<body)/i.test(facts.text.slice(0, 512));
  return type === 'text/html' || type === 'application/xhtml+xml';
}

/** The notes a report gets for a page that was fetched but is not a readable HTML page. */
export function pageNotes(facts: PageFacts): string[] {
  const notes: string[] = [];
  if (facts.status >= 400) notes.push(`the server answered HTTP ${facts.status}: the page analysed is its error page`);
  if (!isHtmlResponse(facts)) notes.push(`the response is ${facts.mediaType ?? 'of no declared type'}, not HTML: the page's own rules were judged on an empty page`);
  return notes;
}

/** Runs analyzers on one fetched page (or on HTML alone when facts is null) and combines their reports. */
export function analyzeFetched(analyzers: readonly Analyzer[], html: string, facts: PageFacts | null, url: string): Report {
  const readable = facts === null || isHtmlResponse(facts);
  const doc: HtmlDocument = parseHtml(readable ? html : '', url);
  const reports = analyzers.map((a) => a.analyzeDocument(doc, facts, url));
  const combined = combineReports(reports, analyzers.map((a) => a.id));
  const extra = facts === null ? [] : pageNotes(facts);
  const report = extra.length === 0 ? combined : { ...combined, notes: [...extra, ...combined.notes], incomplete: true };
  // HTML passed in is read under a placeholder address: no fix may tell the agent to paste it.
  return facts === null && isLocalPage(url) ? withoutLocalPlaceholder(report) : report;
}

/**
 * Fetches `url` and analyses it on an analysis worker (analysis-pool.ts): what a GET URL tool
 * answers. The page keeps its fetch slot until it is analysed, so the fetch limits bound how
 * many pages are in memory at once.
 */
export function fetchAndAnalyze(ctx: Pick<PageAccess, 'withPage' | 'signal'>, url: string, analyzers: readonly Analyzer[]): Promise<UrlReportResult> {
  return ctx.withPage(url, async (facts) => {
    const { finalUrl, status } = facts;
    const report = await analyzeOnWorker(analyzers, facts.text, facts, finalUrl, ctx.signal);
    return { url, finalUrl, status, report };
  });
}

/**
 * One report from several analyzers' reports on the same page. A category only one report covers
 * keeps that report's score (the security headers grade is not a weighted mean); a category
 * several cover is scored again from all their checks. details are keyed by analyzer id.
 */
export function combineReports(reports: readonly Report[], ids: readonly string[]): Report {
  if (reports.length === 1 && reports[0] !== undefined) return reports[0];
  // Two analyzers that judge the same defect report it under the same rule (one finding, one fix):
  // the first report's finding stands for it, and the check that says most (a fail over a pass).
  const checks = oneCheckPerRule(reports.flatMap((r) => r.checks));
  const findings: Finding[] = firstPer(reports.flatMap((r) => r.findings), (f) => f.findingId);
  const covering = new Map<Category, Report[]>();
  for (const report of reports) {
    for (const key of Object.keys(report.statuses) as ScoreKey[]) {
      if (key === 'overall') continue;
      covering.set(key, [...(covering.get(key) ?? []), report]);
    }
  }
  const overrides: Partial<Record<Category, number>> = {};
  for (const [category, covers] of covering) {
    const only = covers.length === 1 ? covers[0] : undefined;
    const score = only ? only.scores[category] : categoryScore(checks, category);
    if (score !== undefined) overrides[category] = score;
  }
  const combined = buildReport({
    categories: [...covering.keys()],
    checks,
    findings,
    // Each report already said whether it is complete; its notes are carried as they are.
    info: [...new Set(reports.flatMap((r) => r.notes))],
    incomplete: reports.some((r) => r.incomplete),
    details: Object.fromEntries(reports.map((r, i) => [ids[i] ?? `analyzer${i + 1}`, r.details])),
    scoreOverrides: overrides,
  });
  // A category no analyzer could score stays unknown (buildReport reads a missing override as "score it").
  const statuses: Partial<Record<ScoreKey, Status>> = { ...combined.statuses };
  const scores = { ...combined.scores };
  for (const category of covering.keys()) {
    if (overrides[category] === undefined) {
      statuses[category] = 'unknown';
      delete scores[category];
    }
  }
  const known = Object.entries(scores).filter(([k]) => k !== 'overall').map(([, v]) => v);
  if (known.length > 0) scores.overall = Math.round(known.reduce((a, b) => a + b, 0) / known.length);
  else delete scores.overall;
  statuses.overall = statusForScore(scores.overall);
  return { ...combined, scores, statuses };
}

const SAYS: Record<Check['result'], number> = { fail: 3, pass: 2, unknown: 1, not_applicable: 0 };

function oneCheckPerRule(checks: readonly Check[]): Check[] {
  const byRule = new Map<string, Check>();
  for (const check of checks) {
    const key = `${check.rule}\u0000${check.category}`;
    const held = byRule.get(key);
    if (held === undefined || SAYS[check.result] > SAYS[held.result]) byRule.set(key, check);
  }
  return [...byRule.values()];
}
