// The page-speed proxy's extra facts: the sizes of the few subresources that decide its estimates
// (the likely LCP image, the render-blocking scripts and stylesheets, then the other scripts),
// fetched through the same egress-safe fetcher as the page, bounded in count, bytes and time. The
// analysis itself stays pure: it runs once to name what it would like to know (details.sizes.plan),
// the sizes are fetched here, and it runs again with them on the page's facts. The second run
// judges what the first read of the page (scoring.ts PageReading), so the page is parsed once.
import { isServiceError } from '../core/errors.ts';
import { analyzeOnWorker, analyzeOnWorkerKeepingReadings, analyzeReadingsOnWorker } from './analysis-pool.ts';
import { insertsLate } from './analyzers/page-speed-resources.ts';
import { MAX_SUBRESOURCE_FETCHES, type FactsWithSubresources, type SizePlanEntry, type SubresourceSize } from './analyzers/page-speed-costs.ts';
import type { Report } from './findings.ts';
import type { PageFacts } from './page-facts.ts';
import type { Analyzer } from './scoring.ts';
import type { PageAccess, PageFetcher, UrlReportResult } from './url-report.ts';

/** Fetched at once: within the account's fetch slots, leaving room for its other calls. */
const PARALLEL = 3;
/** Byte caps: a script or stylesheet past 2 MiB, or an image past 4 MiB, is reported as at least that. */
const CAPS: Record<SubresourceSize['kind'], number> = { script: 2 * 1024 * 1024, stylesheet: 2 * 1024 * 1024, image: 4 * 1024 * 1024 };
const EACH_TIMEOUT_MS = 8000;
/** No batch starts after this long: the rest keep assumed sizes. */
const TOTAL_BUDGET_MS = 15_000;

/** What the analyzer asked to know (details['page-speed' or flat].sizes.plan), read defensively. */
export function sizePlanOf(report: Report): SizePlanEntry[] {
  const details = report.details as Record<string, unknown>;
  const own = (details['page-speed'] ?? details) as { sizes?: { plan?: unknown } };
  const plan = own.sizes?.plan;
  if (!Array.isArray(plan)) return [];
  return plan
    .filter((p): p is SizePlanEntry => typeof p === 'object' && p !== null && typeof (p as SizePlanEntry).url === 'string' && ['script', 'stylesheet', 'image'].includes((p as SizePlanEntry).kind))
    .slice(0, MAX_SUBRESOURCE_FETCHES);
}

/**
 * One subresource's size; a failure leaves it unknown (the analyzer then assumes one and says so).
 * A busy fetcher too: the page itself was read, and an estimate with an assumed size beats no
 * answer. Only the call's own end (its abort) stops the tool.
 */
export async function fetchSize(fetchPage: PageFetcher, entry: SizePlanEntry): Promise<SubresourceSize> {
  const cap = CAPS[entry.kind];
  try {
    const facts = await fetchPage(entry.url, { limits: { maxBytes: cap, totalTimeoutMs: EACH_TIMEOUT_MS } });
    const size: SubresourceSize = { url: entry.url, kind: entry.kind, transferBytes: facts.transferBytes, decodedBytes: facts.body.length };
    // A script is read for one thing only: whether it pushes content in after the first paint.
    return entry.kind === 'script' && insertsLate(facts.text) ? { ...size, insertsLate: true } : size;
  } catch (error) {
    if (!isServiceError(error)) throw error;
    if (error.extra['phase'] === 'size') return { url: entry.url, kind: entry.kind, transferBytes: cap, decodedBytes: cap, atLeast: true };
    return { url: entry.url, kind: entry.kind, transferBytes: null, decodedBytes: null };
  }
}

export async function fetchSizes(fetchPage: PageFetcher, plan: readonly SizePlanEntry[]): Promise<SubresourceSize[]> {
  const started = performance.now();
  const sizes: SubresourceSize[] = [];
  for (let i = 0; i < plan.length && performance.now() - started < TOTAL_BUDGET_MS; i += PARALLEL) {
    sizes.push(...(await Promise.all(plan.slice(i, i + PARALLEL).map((entry) => fetchSize(fetchPage, entry)))));
  }
  return sizes;
}

/**
 * Proxy mode: the page fetched and analysed, then, when the analysis names subresources whose
 * sizes matter, those fetched and the page analysed again with them. The page keeps its fetch
 * slot throughout, as fetchAndAnalyze has it.
 */
export function fetchAndAnalyzeWithSizes(ctx: Pick<PageAccess, 'withPage' | 'fetchPage' | 'signal'>, url: string, analyzers: readonly Analyzer[]): Promise<UrlReportResult> {
  return ctx.withPage(url, async (facts) => {
    const { finalUrl, status } = facts;
    const report = await analyzeWithSizes(ctx, facts, analyzers);
    return { url, finalUrl, status, report };
  });
}

export async function analyzeWithSizes(ctx: Pick<PageAccess, 'fetchPage' | 'signal'>, facts: PageFacts, analyzers: readonly Analyzer[]): Promise<Report> {
  // The worker takes the body's memory when it can: the first run gets a copy, the second the original.
  const first = await analyzeOnWorkerKeepingReadings(analyzers, facts.text, { ...facts, body: Buffer.from(facts.body) }, facts.finalUrl, ctx.signal);
  const plan = sizePlanOf(first.report);
  if (plan.length === 0) return first.report;
  const subresources = await fetchSizes(ctx.fetchPage, plan);
  const withSizes: FactsWithSubresources = { ...facts, subresources };
  // The page was read once: the second run judges the first's readings with the sizes. Without
  // them (an analyzer with no reading, or one too large to keep) it parses the page again.
  return first.readings === null
    ? analyzeOnWorker(analyzers, facts.text, withSizes, facts.finalUrl, ctx.signal)
    : analyzeReadingsOnWorker(analyzers, first.readings, withSizes, facts.finalUrl, ctx.signal);
}
