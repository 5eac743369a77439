// Page speed, judged without a browser: a PROXY, not a lab or field measurement. The analyzer
// reads the HTML and the response, and the sizes of the few subresources the tool fetched (the
// render-blocking scripts and stylesheets, the other scripts, the likely LCP image:
// page-speed-subresources.ts); from them it estimates what each finding costs at Lighthouse's
// desktop simulation (page-speed-costs.ts) and the lab metrics FCP, LCP, TBT, CLS and Speed Index
// (page-speed-estimate.ts), scored on Lighthouse's curves, so the performance score reads on
// Lighthouse's scale. Severity and each check's score follow the estimated cost, so a finding
// that costs a second ranks above one that costs a millisecond. details.method is 'proxy', a note
// says so, and details.estimates says which sizes were assumed.
import { gzipSync } from 'node:zlib';
import type { Element } from 'domhandler';
import { makeFinding, type Check, type Evidence, type Finding, type Fix, type Report, type Severity } from '../findings.ts';
import { parseHtml, snippetOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, failed, notApplicable, passed, unknown, type Analyzer, type RuleDefinition } from '../scoring.ts';
import { LONG_TASK_MS, bandwidthMs, downloadMs, formatBytes, formatMs, handshakeMs, scriptTaskMs, severityForCostMs } from './page-speed-costs.ts';
import { CLS_PER_LATE_INSERT } from './page-speed-estimate.ts';
import { judgeImages } from './page-speed-images.ts';
import { pageSpeedModel, type BlockingCost } from './page-speed-model.ts';
import { EAGER_IMAGE_BUDGET, MAX_LISTED, imageUrl, referencedRequests, type BlockingResource } from './page-speed-resources.ts';
import {
  COMPRESSION_MIN_BYTES,
  COMPRESSION_MIN_SAVING,
  DOM_FAIL_ELEMENTS,
  DOM_MAX_DEPTH,
  DOM_WARN_ELEMENTS,
  HTML_DECODED_BUDGET,
  HTML_TRANSFER_BUDGET,
  PAGE_SPEED_RULES,
  PROXY_NOTE,
  REQUEST_BUDGET,
  TEXT_TYPE,
  TTFB_BUDGET_MS,
  graded,
  rules,
} from './page-speed-rules.ts';

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
  const findings: Finding[] = [];
  const checks: Check[] = [];
  const add = (r: RuleDefinition, location: string, detail: string, evidence: Evidence, fix: Fix, severity: Severity = r.severity) =>
    findings.push(makeFinding({ rule: r.id, category: 'performance', severity, location, title: r.title, detail, evidence, fix }));
  const at = (element: Element, url?: string): Evidence => ({ selector: doc.locate(element), snippet: snippetOf(element), line: doc.lineOf(element), ...(url ? { url } : {}) });
  const m = pageSpeedModel(doc, facts, url);
  const { estimates } = m;

  // Render-blocking: each resource's own cost (its download, and for a script its run), the
  // costliest listed first; severity and the check's grade from how long they hold the first
  // paint back together.
  const blockingCosts = m.blocking.map((b) => ({ b, ms: ownBlockingMs(b) })).sort((x, y) => y.ms - x.ms);
  for (const { b, ms } of blockingCosts) {
    const selector = doc.locate(b.element);
    const { detail, change } = blockingText(b, selector);
    add(PAGE_SPEED_RULES.renderBlocking, b.location, `${detail} ${costText(b, ms)}`, { ...at(b.element, b.url), value: `about ${formatMs(ms)}` }, {
      patchType: 'html', change, acceptance: `${b.url} no longer blocks the render (async, defer, type=module, a non-screen media, or removed).`, roleHint: 'edit',
    }, severityForCostMs(estimates.blockingMs));
  }
  checks.push(graded(PAGE_SPEED_RULES.renderBlocking, m.blocking.length === 0 ? null : estimates.blockingMs));

  checks.push(...judgeImages(doc, m, add, at));
  const lcpUrl = m.lcpImage === null ? null : imageUrl(doc, m.lcpImage);

  // Scripts: their bytes stand for the main-thread work they bring; a run over 50 ms blocks. A
  // render-blocking script's run is before the first paint, charged to render-blocking instead.
  const heavyScripts = [...m.scriptSizes]
    .filter(([script]) => !script.blocking)
    .map(([script, size]) => ({ script, size, task: scriptTaskMs(size.decodedBytes) }))
    .filter((s) => s.task > LONG_TASK_MS)
    .sort((x, y) => y.task - x.task);
  for (const { script, size, task } of heavyScripts) {
    const name = script.url ?? `the inline script at ${doc.locate(script.element)}`;
    add(PAGE_SPEED_RULES.scriptWork, doc.locate(script.element), `${name} is ${formatBytes(size.decodedBytes)} of JavaScript${size.known ? '' : ' (size not fetched: assumed)'}: about ${formatMs(task)} of main-thread work at CPU 1x, ${formatMs(task - LONG_TASK_MS)} of it blocking input (an estimate from its size: the proxy runs no script).`, { ...at(script.element, script.url ?? undefined), value: formatBytes(size.decodedBytes) }, {
      patchType: 'html', change: `Reduce ${name}: split it, drop what the page does not use, or load it after the page is interactive.`, acceptance: `${name} is small enough not to run a long task (estimated under ${LONG_TASK_MS} ms).`, roleHint: 'edit',
    }, severityForCostMs(estimates.tbtMs));
  }
  checks.push(graded(PAGE_SPEED_RULES.scriptWork, heavyScripts.length === 0 ? null : estimates.tbtMs));

  // Content a script puts above what was painted: the layout shift the HTML shows.
  for (const script of m.lateInserts) {
    const selector = doc.locate(script.element);
    const name = script.url ?? `The inline script at ${selector}`;
    add(PAGE_SPEED_RULES.lateContent, selector, `${name} inserts or resizes content after the page painted (from a timer, the load event or a promise): what is below it moves, a layout shift of about ${CLS_PER_LATE_INSERT} estimated.`, at(script.element), {
      patchType: 'html', change: `Reserve the space ${script.url ?? `the script at ${selector}`} fills (a min-height on the container), or show its content as an overlay or below the viewport.`, acceptance: `${script.url ?? `The script at ${selector}`} no longer shifts content after the first paint.`, roleHint: 'edit',
    });
  }
  checks.push(m.lateInserts.length === 0 ? passed(PAGE_SPEED_RULES.lateContent) : failed(PAGE_SPEED_RULES.lateContent));

  // DOM size: between the warning and failure bands the check is worth half (Lighthouse's "average").
  const shape = m.shape;
  if (shape.elements > DOM_WARN_ELEMENTS) {
    const fail = shape.elements > DOM_FAIL_ELEMENTS;
    add(PAGE_SPEED_RULES.domSize, 'document', `The page has ${shape.elements} elements (Lighthouse warns above ${DOM_WARN_ELEMENTS} and fails above ${DOM_FAIL_ELEMENTS}): style recalculation and layout grow with every one.`, { value: `${shape.elements} elements` }, {
      patchType: 'html', change: 'Render fewer elements: paginate or virtualise long lists, drop wrapper elements, load hidden content (menus, tabs) when it is opened.', acceptance: `The page has at most ${DOM_WARN_ELEMENTS} elements.`, roleHint: 'edit',
    }, fail ? 'medium' : 'low');
    checks.push(fail ? failed(PAGE_SPEED_RULES.domSize) : { ...failed(PAGE_SPEED_RULES.domSize), score: 0.5 });
  } else checks.push(passed(PAGE_SPEED_RULES.domSize));
  if (shape.maxDepth > DOM_MAX_DEPTH && shape.deepest) {
    add(PAGE_SPEED_RULES.domDepth, 'document', `Elements are nested ${shape.maxDepth} deep (Lighthouse flags more than ${DOM_MAX_DEPTH}); deep trees make style and layout work slower.`, { ...at(shape.deepest), value: `depth ${shape.maxDepth}` }, {
      patchType: 'html', change: `Flatten the markup around ${doc.locate(shape.deepest)}: remove wrapper elements that only nest others.`, acceptance: `No element is nested more than ${DOM_MAX_DEPTH} deep.`, roleHint: 'edit',
    });
    checks.push(failed(PAGE_SPEED_RULES.domDepth));
  } else checks.push(passed(PAGE_SPEED_RULES.domDepth));

  // Bytes: what crossed the wire and what the browser had to parse (the body the server sent, so
  // HTML passed in directly leaves the rule unknown).
  const decodedBytes = facts ? facts.body.length : null;
  const transferBytes = facts ? facts.transferBytes : null;
  if (facts === null || decodedBytes === null || transferBytes === null) checks.push(unknown(PAGE_SPEED_RULES.htmlBytes));
  else if (transferBytes > HTML_TRANSFER_BUDGET || decodedBytes > HTML_DECODED_BUDGET) {
    const ms = Math.max(bandwidthMs(transferBytes - HTML_TRANSFER_BUDGET), 0) + downloadMs(transferBytes) - downloadMs(Math.min(transferBytes, HTML_TRANSFER_BUDGET));
    const sizes = `${kib(transferBytes)} on the wire, ${kib(decodedBytes)} decoded`;
    add(PAGE_SPEED_RULES.htmlBytes, 'document', `The HTML is ${sizes} (budgets: ${kib(HTML_TRANSFER_BUDGET)} on the wire, ${kib(HTML_DECODED_BUDGET)} decoded); the bytes over budget take about ${formatMs(ms)} at 10 Mbps before anything paints.`, { value: sizes }, {
      patchType: 'html', change: 'Move inline data, SVG sprites, CSS and scripts into cached files, and paginate long content.', acceptance: `The HTML is at most ${kib(HTML_TRANSFER_BUDGET)} on the wire and ${kib(HTML_DECODED_BUDGET)} decoded.`, roleHint: 'edit',
    }, severityForCostMs(ms));
    checks.push(graded(PAGE_SPEED_RULES.htmlBytes, ms));
  } else checks.push(passed(PAGE_SPEED_RULES.htmlBytes));

  // Response rules: judged only on a fetched response.
  const compression = compressionFacts(facts);
  if (facts === null) checks.push(unknown(PAGE_SPEED_RULES.compression), unknown(PAGE_SPEED_RULES.caching), unknown(PAGE_SPEED_RULES.ttfb));
  else {
    if (compression.applicable === false) checks.push(notApplicable(PAGE_SPEED_RULES.compression));
    else if (compression.worthIt && compression.gzipBytes !== null) {
      // What compression saves: the round trips slow start spends on the extra bytes, or their time on the link.
      const saved = facts.transferBytes - compression.gzipBytes;
      const ms = Math.max(downloadMs(facts.transferBytes) - downloadMs(compression.gzipBytes), bandwidthMs(saved));
      add(PAGE_SPEED_RULES.compression, 'header:content-encoding', `The ${facts.mediaType ?? 'response'} body is ${kib(facts.body.length)} and sent uncompressed; gzip makes it ${kib(compression.gzipBytes)}, saving ${kib(saved)}: about ${formatMs(ms)} at 10 Mbps.`, { header: 'content-encoding', value: `saves about ${formatMs(ms)}` }, {
        patchType: 'config', change: 'Enable gzip or Brotli for text responses on the server or CDN (they are asked for with Accept-Encoding).', acceptance: 'The page answers with Content-Encoding gzip, br or zstd to a request that accepts it.', roleHint: 'config',
      }, severityForCostMs(ms));
      checks.push(graded(PAGE_SPEED_RULES.compression, ms));
    } else checks.push(passed(PAGE_SPEED_RULES.compression));
    const h = facts.headers;
    const caching = ['cache-control', 'etag', 'last-modified', 'expires'].filter((name) => h[name] !== undefined);
    if (caching.length === 0) {
      add(PAGE_SPEED_RULES.caching, 'header:cache-control', 'The response has no Cache-Control, ETag, Last-Modified or Expires: a browser or CDN cannot reuse or revalidate it, so every visit downloads it whole (a first visit costs the same).', { header: 'cache-control' }, {
        patchType: 'http-header', change: 'Send Cache-Control (e.g. "max-age=0, must-revalidate" for HTML that changes, or "no-store" if it must never be kept) and an ETag or Last-Modified for revalidation.', acceptance: 'The response carries Cache-Control, ETag or Last-Modified.', roleHint: 'config',
      });
      checks.push(failed(PAGE_SPEED_RULES.caching));
    } else checks.push(passed(PAGE_SPEED_RULES.caching));
    const ttfb = facts.timings.ttfbMs;
    if (ttfb === null) checks.push(unknown(PAGE_SPEED_RULES.ttfb));
    else if (ttfb > TTFB_BUDGET_MS) {
      add(PAGE_SPEED_RULES.ttfb, 'document', `The first byte came ${Math.round(ttfb)} ms after the request (Lighthouse's budget is ${TTFB_BUDGET_MS} ms), measured from this service, not from your visitors: every paint waits for it.`, { value: `${Math.round(ttfb)} ms` }, {
        patchType: 'investigate', change: 'Find what the server does before answering (slow queries, no page cache, a cold start) and cache or speed it up; a CDN close to visitors helps too.', acceptance: `The server answers the first byte within ${TTFB_BUDGET_MS} ms.`, roleHint: 'config',
      }, ttfb >= 1000 ? 'high' : 'medium');
      checks.push(failed(PAGE_SPEED_RULES.ttfb));
    } else checks.push(passed(PAGE_SPEED_RULES.ttfb));
  }

  // Requests the HTML references directly (those of CSS and scripts cannot be seen without a browser).
  const blockingFound = m.blocking;
  const requests = referencedRequests(doc, blockingFound);
  if (requests.length > REQUEST_BUDGET) {
    add(PAGE_SPEED_RULES.requests, 'document', `The HTML references ${requests.length} distinct resources (budget ${REQUEST_BUDGET}); each one costs a request, and the ones from CSS and scripts come on top.`, { value: `${requests.length} resources` }, {
      patchType: 'html', change: 'Bundle scripts and stylesheets, lazy-load images below the fold, and drop resources the page does not use.', acceptance: `The HTML references at most ${REQUEST_BUDGET} resources.`, roleHint: 'edit',
    });
    checks.push(failed(PAGE_SPEED_RULES.requests));
  } else checks.push(passed(PAGE_SPEED_RULES.requests));

  return buildReport({
    categories: ['performance'],
    checks,
    findings,
    rules,
    notes: doc.notes,
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
      renderBlocking: blockingCosts.slice(0, MAX_LISTED).map(({ b, ms }) => ({ kind: b.kind, url: b.url, selector: doc.locate(b.element), line: doc.lineOf(b.element), bytes: b.size.known ? b.size.bytes : null, costMs: Math.round(ms) })),
      images: { count: m.images.length, eagerBudget: EAGER_IMAGE_BUDGET, unsized: listed(doc, m.unsized), notLazy: listed(doc, m.eager) },
      dom: { elements: shape.elements, maxDepth: shape.maxDepth, maxChildren: shape.maxChildren, deepest: shape.deepest ? doc.locate(shape.deepest) : null },
      bytes: { transfer: transferBytes, decoded: decodedBytes, contentEncoding: facts ? (facts.headers['content-encoding'] ?? null) : null, gzipEstimate: compression.gzipBytes },
      caching: facts ? pick(facts.headers, ['cache-control', 'etag', 'last-modified', 'expires']) : null,
      ttfbMs: facts?.timings.ttfbMs ?? null,
      redirects: facts?.redirects.length ?? null,
      requests: { count: requests.length, byKind: countBy(requests.map((r) => r.kind)), urls: requests.slice(0, MAX_LISTED) },
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
function blockingText(resource: BlockingResource, selector: string): { detail: string; change: string } {
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

interface CompressionFacts {
  applicable: boolean;
  worthIt: boolean;
  gzipBytes: number | null;
}

/**
 * Whether the text body should have been compressed: it is text, not already encoded, at least
 * COMPRESSION_MIN_BYTES, and gzip (level 6, what servers use) saves at least 10%.
 */
function compressionFacts(facts: PageFacts | null): CompressionFacts {
  if (facts === null) return { applicable: false, worthIt: false, gzipBytes: null };
  if (facts.mediaType !== null && !TEXT_TYPE.test(facts.mediaType)) return { applicable: false, worthIt: false, gzipBytes: null };
  const encoding = (facts.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (facts.contentEncoding !== null || (encoding !== '' && encoding !== 'identity')) return { applicable: true, worthIt: false, gzipBytes: null };
  if (facts.body.length < COMPRESSION_MIN_BYTES) return { applicable: true, worthIt: false, gzipBytes: null };
  const gzipBytes = gzipSync(facts.body, { level: 6 }).length;
  return { applicable: true, worthIt: gzipBytes <= facts.body.length * (1 - COMPRESSION_MIN_SAVING), gzipBytes };
}

function listed(doc: HtmlDocument, elements: readonly Element[]): { selector: string; url: string; line: number }[] {
  return elements.slice(0, MAX_LISTED).map((img) => ({ selector: doc.locate(img), url: imageUrl(doc, img), line: doc.lineOf(img) }));
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function pick(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => headers[n] !== undefined).map((n) => [n, headers[n] as string]));
}

function countBy(kinds: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

export const pageSpeedAnalyzer: Analyzer = {
  id: 'page-speed',
  categories: ['performance'],
  rules,
  analyze,
  analyzeDocument,
};
