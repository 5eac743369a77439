// Page speed, judged without a browser: a PROXY, not a lab or field measurement. The analyzer
// reads the HTML and the response, and the sizes of the few subresources the tool fetched (the
// render-blocking scripts and stylesheets, the other scripts, the likely LCP image:
// page-speed-subresources.ts); from them it estimates what each finding costs at Lighthouse's
// desktop simulation (page-speed-costs.ts) and the lab metrics FCP, LCP, TBT, CLS and Speed Index
// (page-speed-estimate.ts), scored on Lighthouse's curves, so the performance score reads on
// Lighthouse's scale. Severity and each check's score follow the estimated cost, so a finding
// that costs a second ranks above one that costs a millisecond. details.method is 'proxy', a note
// says so, and details.estimates says which sizes were assumed. The analysis is in two steps: what
// it reads of the parse (page-speed-read.ts), and the report from that reading with the sizes
// given, so the tool's second analysis, with the sizes its first asked for, needs no second parse.
import type { Check, Finding, Report } from '../findings.ts';
import { parseHtml, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, failed, passed, type Analyzer, type PageReading } from '../scoring.ts';
import { LONG_TASK_MS, downloadMs, formatBytes, formatMs, handshakeMs, scriptTaskMs, severityForCostMs } from './page-speed-costs.ts';
import { CLS_PER_LATE_INSERT } from './page-speed-estimate.ts';
import { judgeLcpImage } from './page-speed-images.ts';
import { pageSpeedModel, type BlockingCost } from './page-speed-model.ts';
import { evidenceAt, finder, readPageSpeed, worthKeeping, type PageSpeedReading, type ReadBlocking } from './page-speed-read.ts';
import { MAX_LISTED } from './page-speed-resources.ts';
import { PAGE_SPEED_RULES, PROXY_NOTE, graded, rules } from './page-speed-rules.ts';

export {
  COMPRESSION_MIN_BYTES,
  DOM_FAIL_ELEMENTS,
  DOM_MAX_DEPTH,
  DOM_WARN_ELEMENTS,
  HTML_DECODED_BUDGET,
  HTML_TRANSFER_BUDGET,
  PAGE_SPEED_RULES,
  PROXY_NOTE,
  REQUEST_BUDGET,
  TTFB_BUDGET_MS,
  rules,
} from './page-speed-rules.ts';

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, facts: PageFacts | null, url: string): Report {
  return reportOf(readPageSpeed(doc, facts, url), facts, url);
}

/** The report from what was read of the page, with the subresource sizes facts carries (if any). */
export function reportOf(reading: PageSpeedReading, facts: PageFacts | null, url: string): Report {
  const findings: Finding[] = [];
  const checks: Check[] = [];
  const add = finder(findings);
  const m = pageSpeedModel(reading, facts, url);
  const { estimates } = m;

  // Render-blocking: each resource's own cost (its download, and for a script its run), the
  // costliest listed first; severity and the check's grade from how long they hold the first
  // paint back together.
  const blockingCosts = m.blocking.map((b) => ({ b, ms: ownBlockingMs(b) })).sort((x, y) => y.ms - x.ms);
  for (const { b, ms } of blockingCosts) {
    const selector = b.at.selector;
    const { detail, change } = blockingText(b, selector);
    add(PAGE_SPEED_RULES.renderBlocking, b.location, `${detail} ${costText(b, ms)}`, { ...evidenceAt(b.at, b.url), value: `about ${formatMs(ms)}` }, {
      patchType: 'html', change, acceptance: `${b.url} no longer blocks the render (async, defer, type=module, a non-screen media, or removed).`, roleHint: 'edit',
    }, severityForCostMs(estimates.blockingMs));
  }
  checks.push(graded(PAGE_SPEED_RULES.renderBlocking, m.blocking.length === 0 ? null : estimates.blockingMs));

  checks.push(...judgeLcpImage(m, add), ...reading.settled.imageChecks);
  const lcpUrl = m.lcpImage === null ? null : m.lcpImage.url;

  // Scripts: their bytes stand for the main-thread work they bring; a run over 50 ms blocks. A
  // render-blocking script's run is before the first paint, charged to render-blocking instead.
  const heavyScripts = [...m.scriptSizes]
    .filter(([script]) => script.blocking === null)
    .map(([script, size]) => ({ script, size, task: scriptTaskMs(size.decodedBytes) }))
    .filter((s) => s.task > LONG_TASK_MS)
    .sort((x, y) => y.task - x.task);
  for (const { script, size, task } of heavyScripts) {
    const name = script.url ?? `the inline script at ${script.at.selector}`;
    add(PAGE_SPEED_RULES.scriptWork, script.at.selector, `${name} is ${formatBytes(size.decodedBytes)} of JavaScript${size.known ? '' : ' (size not fetched: assumed)'}: about ${formatMs(task)} of main-thread work at CPU 1x, ${formatMs(task - LONG_TASK_MS)} of it blocking input (an estimate from its size: the proxy runs no script).`, { ...evidenceAt(script.at, script.url ?? undefined), value: formatBytes(size.decodedBytes) }, {
      patchType: 'html', change: `Reduce ${name}: split it, drop what the page does not use, or load it after the page is interactive.`, acceptance: `${name} is small enough not to run a long task (estimated under ${LONG_TASK_MS} ms).`, roleHint: 'edit',
    }, severityForCostMs(estimates.tbtMs));
  }
  checks.push(graded(PAGE_SPEED_RULES.scriptWork, heavyScripts.length === 0 ? null : estimates.tbtMs));

  // Content a script puts above what was painted: the layout shift the HTML shows.
  for (const script of m.lateInserts) {
    const selector = script.at.selector;
    const name = script.url ?? `The inline script at ${selector}`;
    add(PAGE_SPEED_RULES.lateContent, selector, `${name} inserts or resizes content after the page painted (from a timer, the load event or a promise): what is below it moves, a layout shift of about ${CLS_PER_LATE_INSERT} estimated.`, evidenceAt(script.at), {
      patchType: 'html', change: `Reserve the space ${script.url ?? `the script at ${selector}`} fills (a min-height on the container), or show its content as an overlay or below the viewport.`, acceptance: `${script.url ?? `The script at ${selector}`} no longer shifts content after the first paint.`, roleHint: 'edit',
    });
  }
  checks.push(m.lateInserts.length === 0 ? passed(PAGE_SPEED_RULES.lateContent) : failed(PAGE_SPEED_RULES.lateContent));

  // The rules no size changes (DOM, bytes, response headers, requests) were judged with the reading.
  checks.push(...reading.settled.pageChecks);

  return buildReport({
    categories: ['performance'],
    checks,
    findings: [...findings, ...reading.settled.findings],
    rules,
    notes: reading.notes,
    // The label says how the page was judged, not that something could not be.
    info: [PROXY_NOTE],
    // The category reads on Lighthouse's scale: its curves over the estimated metrics.
    scoreOverrides: { performance: estimates.score },
    details: {
      method: 'proxy',
      estimates: {
        basis: 'estimated, not measured: the HTML, the response and the fetched sizes at Lighthouse\'s desktop simulation (40 ms round trip, 10 Mbps, CPU 1x), scored on its desktop curves',
        fcpMs: Math.round(estimates.fcpMs),
        lcpMs: Math.round(estimates.lcpMs),
        tbtMs: Math.round(estimates.tbtMs),
        cls: Math.round(estimates.cls * 1000) / 1000,
        siMs: Math.round(estimates.siMs),
        documentMs: Math.round(estimates.documentMs),
        renderBlockingMs: Math.round(estimates.blockingMs),
        score: estimates.score,
        lcpElement: lcpUrl === null ? 'text (no large image among the first images)' : lcpUrl,
      },
      // What the tool fetched the sizes of (the plan it is given is this analysis's own), and what was assumed.
      sizes: {
        plan: m.plan,
        fetched: m.fetched.slice(0, MAX_LISTED).map((f) => ({ url: f.url, kind: f.kind, bytes: f.transferBytes, ...(f.atLeast ? { atLeast: true } : {}) })),
        assumed: m.assumed.slice(0, MAX_LISTED),
      },
      renderBlocking: blockingCosts.slice(0, MAX_LISTED).map(({ b, ms }) => ({ kind: b.kind, url: b.url, selector: b.at.selector, line: b.at.line, bytes: b.size.known ? b.size.bytes : null, costMs: Math.round(ms) })),
      ...reading.settled.details,
    },
  });
}

/** What one render-blocking resource costs alone: a new origin's handshake, its download, a script's run. */
function ownBlockingMs(b: BlockingCost): number {
  const network = (b.size.sameOrigin ? 0 : handshakeMs(b.url)) + downloadMs(b.size.bytes);
  return network + (b.kind === 'script' ? scriptTaskMs(b.size.decodedBytes) : 0);
}

function costText(b: BlockingCost, ms: number): string {
  const size = b.size.known ? formatBytes(b.size.bytes) : `${formatBytes(b.size.bytes)} assumed (its size was not fetched)`;
  const runMs = b.kind === 'script' ? scriptTaskMs(b.size.decodedBytes) : 0;
  const run = runMs >= 5 ? `, then about ${formatMs(runMs)} to run` : '';
  return `It blocks render for about ${formatMs(ms)}: ${size} at 10 Mbps${run} (an estimate at Lighthouse's desktop settings).`;
}

/** What a render-blocking resource does, and its fix, by kind. */
function blockingText(resource: ReadBlocking, selector: string): { detail: string; change: string } {
  const { kind, url } = resource;
  if (kind === 'script') {
    return {
      detail: `The script ${url} in the head has no async or defer: the parser stops until it is downloaded and run.`,
      change: `Add defer to the <script> at ${selector} (or async if it depends on nothing), or move it to the end of <body>.`,
    };
  }
  if (kind === 'stylesheet') {
    return {
      detail: `The stylesheet ${url} applies to screens: nothing is painted until it is downloaded.`,
      change:
        `Inline the critical CSS and load ${url} without blocking (media="print" onload swap, or rel="preload" as="style"), ` +
        'or give it a media query that excludes screens if it is for print.',
    };
  }
  return {
    detail: `The <style> at ${selector} imports ${url}: an @import is fetched only after the style is parsed, and blocks the render.`,
    change: `Replace the @import of ${url} with a <link rel="stylesheet"> (or inline it).`,
  };
}

/** The analysis in two steps (scoring.ts PageReading): the tool judges the reading again once it has the sizes. */
export const pageSpeedReading: PageReading<PageSpeedReading> = { read: readPageSpeed, worthKeeping, report: reportOf };

export const pageSpeedAnalyzer: Analyzer = {
  id: 'page-speed',
  categories: ['performance'],
  rules,
  analyze,
  analyzeDocument,
  reading: pageSpeedReading,
};
