// The step every page-reading URL tool shares: fetch the page through the egress-safe fetcher,
// parse it once, run the tool's analyzers on the one parse, and combine their reports into one.
// A response that is not HTML (or an error status) is still reported: the header rules are
// judged, the page rules say why they could not be, and the report is marked incomplete.
import type { PageAccess, UrlReportResult } from './url-report.ts';
import { makeFinding, type Category, type Check, type Finding, type Report, type ScoreKey, type Status } from './findings.ts';
import { parseHtml, type HtmlDocument } from './html-document.ts';
import type { PageFacts } from './page-facts.ts';
import { analyzeOnWorker } from './analysis-pool.ts';
import { buildReport, categoryScore, failed, findingCounts, passed, statusForScore, type Analyzer, type PageReading, type RuleDefinition } from './scoring.ts';
import { isLocalPage, withoutLocalPlaceholder } from './local-page.ts';
import { firstPer } from './finding-groups.ts';

/** Whether a response's body can be read as a page. */
export function isHtmlResponse(facts: PageFacts): boolean {
  const type = facts.mediaType;
  if (type === null) return /^\s*(<!doctype html|<html|<head|<body)/i.test(facts.text.slice(0, 512));
  return type === 'text/html' || type === 'application/xhtml+xml';
}

/**
 * Lighthouse's http-status-code audit: a page answering 400 or more is not indexed, whatever its
 * HTML says. Every report that judges SEO gets it here, so no page-reading tool can forget it.
 */
export const HTTP_STATUS_RULE = {
  id: 'http-status-code', category: 'seo', weight: 1, severity: 'high', title: 'The page answers an HTTP error status', audit: 'http-status-code',
} as const satisfies RuleDefinition;

/** The notes a report gets for a page that was fetched but is not a readable HTML page. */
export function pageNotes(facts: PageFacts, statusJudged = false): string[] {
  const notes: string[] = [];
  // Where the status is a finding of its own, the report says it there, not as something unanalysed.
  if (facts.status >= 400 && !statusJudged) notes.push(`the server answered HTTP ${facts.status}: the page analysed is its error page`);
  if (!isHtmlResponse(facts)) notes.push(`the response is ${facts.mediaType ?? 'of no declared type'}, not HTML: the page's own rules were judged on an empty page`);
  return notes;
}

/** Runs analyzers on one fetched page (or on HTML alone when facts is null) and combines their reports. */
export function analyzeFetched(analyzers: readonly Analyzer[], html: string, facts: PageFacts | null, url: string): Report {
  return analyzeParsed(analyzers, parsePage(html, facts, url), facts, url);
}

/** analyzeFetched on a parse made already (parsePage of the same page): analyzers only read it, so one parse serves any number of them. */
export function analyzeParsed(analyzers: readonly Analyzer[], doc: HtmlDocument, facts: PageFacts | null, url: string): Report {
  return combineFetched(analyzers.map((a) => a.analyzeDocument(doc, facts, url)), analyzers, facts, url);
}

/** A report, and what each analyzer read of the page (null when one has no reading, or one too large to keep). */
export interface KeptAnalysis {
  report: Report;
  readings: unknown[] | null;
}

/**
 * What analyzeFetched answers, keeping each analyzer's reading of the parse (scoring.ts
 * PageReading) for a second analysis of the same page with more facts (analyzeReadings).
 */
export function analyzeFetchedKeepingReadings(analyzers: readonly Analyzer[], html: string, facts: PageFacts | null, url: string): KeptAnalysis {
  const doc = parsePage(html, facts, url);
  const readers = readersOf(analyzers);
  if (readers === null) return { report: combineFetched(analyzers.map((a) => a.analyzeDocument(doc, facts, url)), analyzers, facts, url), readings: null };
  const readings = readers.map((r) => r.read(doc, facts, url));
  const report = combineFetched(readers.map((r, i) => r.report(readings[i], facts, url)), analyzers, facts, url);
  return { report, readings: readers.every((r, i) => r.worthKeeping(readings[i])) ? readings : null };
}

/**
 * The report analyzeFetched gives with `facts` on the page `readings` were read of (by
 * analyzeFetchedKeepingReadings, with the same analyzers): the page is not parsed again.
 */
export function analyzeReadings(analyzers: readonly Analyzer[], readings: readonly unknown[], facts: PageFacts | null, url: string): Report {
  const readers = readersOf(analyzers);
  if (readers === null || readings.length !== readers.length) throw new Error('the readings are not those of these analyzers');
  return combineFetched(readers.map((r, i) => r.report(readings[i], facts, url)), analyzers, facts, url);
}

/** Every analyzer's reading, or null when one has none (the page is then analysed from a parse). */
function readersOf(analyzers: readonly Analyzer[]): PageReading[] | null {
  const readers = analyzers.map((a) => a.reading);
  return readers.every((r): r is PageReading => r !== undefined) ? readers : null;
}

/** The one parse of a page: a response that is not HTML is read as an empty page. */
export function parsePage(html: string, facts: PageFacts | null, url: string): HtmlDocument {
  const readable = facts === null || isHtmlResponse(facts);
  return parseHtml(readable ? html : '', url);
}

/** The analyzers' reports as one, with the response's own verdicts (its status, a page that is not HTML). */
function combineFetched(reports: readonly Report[], analyzers: readonly Analyzer[], facts: PageFacts | null, url: string): Report {
  const merged = combineReports(reports, analyzers.map((a) => a.id));
  const judgesStatus = facts !== null && merged.statuses.seo !== undefined;
  const combined = judgesStatus ? withHttpStatus(merged, facts) : merged;
  const extra = facts === null ? [] : pageNotes(facts, judgesStatus);
  const report = extra.length === 0 ? combined : { ...combined, notes: [...extra, ...combined.notes], incomplete: true };
  // HTML passed in is read under a placeholder address: no fix may tell the agent to paste it.
  return facts === null && isLocalPage(url) ? withoutLocalPlaceholder(report) : report;
}

/**
 * Adds the http-status-code check (and, on an error status, its finding first in the list) to a
 * report that judges SEO, and scores SEO again. A failing status outweighs every other audit
 * judged (seo-audits.ts), so an error page's SEO is at most 50, never "good" (Lighthouse's 404
 * page scores 96 when only the audit's weight of 1 counts, as ours did).
 */
export function withHttpStatus(report: Report, facts: Pick<PageFacts, 'status' | 'finalUrl'>): Report {
  const rule = HTTP_STATUS_RULE;
  const others = report.checks.filter((c) => c.rule !== rule.id);
  const failing = facts.status >= 400;
  const check: Check = failing ? failed(rule) : passed(rule);
  const checks = [...others, check];
  const what = facts.status >= 500 ? 'a server error' : facts.status === 404 || facts.status === 410 ? 'not found' : 'a client error';
  const finding: Finding[] = failing
    ? [{
        ...makeFinding({
          rule: rule.id,
          category: rule.category,
          severity: rule.severity,
          location: 'response:status',
          title: `${rule.title} (${facts.status})`,
          detail: `${facts.finalUrl} answers HTTP ${facts.status} (${what}): search engines do not index a page that answers 400 or more, whatever its HTML says, and drop it if it was indexed.`,
          evidence: { value: `HTTP ${facts.status}`, url: facts.finalUrl },
          fix: {
            patchType: 'investigate',
            change: facts.status >= 500
              ? `Find why the server fails on ${facts.finalUrl} (its error log, the application behind it) and make it answer 200.`
              : `Check that ${facts.finalUrl} is the right address: if the page should exist, make it answer 200 (a missing route, file or permission); if it moved, redirect it with 301 to its new URL; link to the working URL instead.`,
            acceptance: 'The page answers HTTP 200.',
            roleHint: 'config',
          },
        }),
        count: 1,
        instances: [{ value: `HTTP ${facts.status}`, url: facts.finalUrl }],
      }]
    : [];
  const findings = [...finding, ...report.findings.filter((f) => f.rule !== rule.id)];
  const scores = { ...report.scores };
  const statuses: Partial<Record<ScoreKey, Status>> = { ...report.statuses };
  const seo = categoryScore(checks, 'seo');
  if (seo === undefined) delete scores.seo;
  else scores.seo = seo;
  statuses.seo = statusForScore(seo);
  const known = Object.entries(scores).filter(([k]) => k !== 'overall').map(([, v]) => v);
  if (known.length > 0) scores.overall = Math.round(known.reduce((a, b) => a + b, 0) / known.length);
  else delete scores.overall;
  statuses.overall = statusForScore(scores.overall);
  const summary = {
    ...report.summary,
    ...findingCounts(findings),
    checks: checks.length,
    passed: checks.filter((c) => c.result === 'pass').length,
    failed: checks.filter((c) => c.result === 'fail').length,
  };
  return { ...report, scores, statuses, findings, checks, summary };
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
    // SEO is always scored again: a report of another category may hold a check standing for one
    // of its audits (image-alt).
    const only = covers.length === 1 && category !== 'seo' ? covers[0] : undefined;
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
