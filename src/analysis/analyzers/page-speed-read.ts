// What the page-speed proxy reads of a parse, as plain data (a PageReading, scoring.ts): the
// resources whose sizes decide its estimates (render-blocking ones, scripts, the likely LCP image),
// each with its place on the page, and every rule no such size changes already judged (image
// sizes and lazy-loading, the DOM, the HTML's bytes, the response headers, the request count).
// page-speed.ts judges a reading with the sizes it is given. The tool analyses a page twice, the
// second time with the sizes its first report asked for (page-speed-subresources.ts), and the
// second analysis judges the first one's reading: the page is parsed once.
import { gzipSync } from 'node:zlib';
import type { Element } from 'domhandler';
import { groupFindings } from '../finding-groups.ts';
import { makeFinding, type Check, type Evidence, type Finding, type Fix, type Severity } from '../findings.ts';
import { rawTextOf, snippetOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { failed, notApplicable, passed, ruleWordings, unknown, type RuleDefinition } from '../scoring.ts';
import { EARLY_IMAGES, bandwidthMs, downloadMs, formatMs, severityForCostMs } from './page-speed-costs.ts';
import { ASSUMED_IMAGE_PIXELS, imageBytesFor } from './page-speed-estimate.ts';
import {
  EAGER_IMAGE_BUDGET,
  MAX_LISTED,
  declaredSize,
  domShape,
  eagerOffscreenImages,
  imageUrl,
  insertsLate,
  isLazy,
  isSized,
  likelyLcpImage,
  loadedImages,
  pageScripts,
  referencedRequests,
  renderBlockingResources,
  type BlockingResource,
} from './page-speed-resources.ts';
import {
  COMPRESSION_MIN_BYTES,
  COMPRESSION_MIN_SAVING,
  DOM_FAIL_ELEMENTS,
  DOM_MAX_DEPTH,
  DOM_WARN_ELEMENTS,
  HTML_DECODED_BUDGET,
  HTML_TRANSFER_BUDGET,
  PAGE_SPEED_RULES,
  REQUEST_BUDGET,
  TEXT_TYPE,
  TTFB_BUDGET_MS,
  graded,
  rules,
  type AddFinding,
} from './page-speed-rules.ts';

/** Where an element is, as a finding's evidence names it. */
export interface ElementRef {
  selector: string;
  snippet: string;
  line: number;
}

export interface ReadBlocking {
  kind: BlockingResource['kind'];
  url: string;
  /** the place a finding is named by: the element, plus the imported URL for an @import */
  location: string;
  at: ElementRef;
}

export interface ReadScript {
  /** null for an inline script */
  url: string | null;
  /** its entry in the reading's blocking list, for a script that blocks the first render */
  blocking: number | null;
  /** the inline script's length; null for an external one */
  inlineBytes: number | null;
  /** an inline script whose text inserts content after the first paint (an external one is known once fetched) */
  insertsLate: boolean;
  at: ElementRef;
}

export interface ReadImage {
  url: string;
  lazy: boolean;
  declared: { width: number; height: number } | null;
  at: ElementRef;
}

/** What the rules no subresource size changes concluded, in the places the report puts them. */
export interface SettledRules {
  /** unsized and offscreen images, in check order */
  imageChecks: Check[];
  /** DOM size and depth, HTML bytes, the response rules and the request count, in check order */
  pageChecks: Check[];
  /** their findings, one per rule already (groupFindings: grouping again changes nothing) */
  findings: Finding[];
  /** details.images, dom, bytes, caching, ttfbMs, redirects and requests */
  details: Record<string, unknown>;
}

export interface PageSpeedReading {
  blocking: ReadBlocking[];
  scripts: ReadScript[];
  lcpImage: ReadImage | null;
  elements: number;
  /** where the markup ends: the document's bytes when no response gave them (HTML passed in) */
  markupEnd: number;
  unsizedAboveFold: number;
  /** declared pixels of the first EARLY_IMAGES images (an undeclared one at a typical size) */
  earlyImagePixels: number;
  settled: SettledRules;
  notes: string[];
}

/**
 * A reading waits on the main thread while the sizes are fetched: past this many scripts and
 * render-blocking resources (a page made of script tags) it would park megabytes there, and the
 * page is parsed again instead.
 */
export const MAX_KEPT_RESOURCES = 2000;

export function worthKeeping(reading: PageSpeedReading): boolean {
  return reading.scripts.length + reading.blocking.length <= MAX_KEPT_RESOURCES;
}

export function refOf(doc: HtmlDocument, element: Element): ElementRef {
  return { selector: doc.locate(element), snippet: snippetOf(element), line: doc.lineOf(element) };
}

export function evidenceAt(ref: ElementRef, url?: string): Evidence {
  return { selector: ref.selector, snippet: ref.snippet, line: ref.line, ...(url ? { url } : {}) };
}

export function finder(findings: Finding[]): AddFinding {
  return (r: RuleDefinition, location: string, detail: string, evidence: Evidence, fix: Fix, severity: Severity = r.severity) =>
    findings.push(makeFinding({ rule: r.id, category: 'performance', severity, location, title: r.title, detail, evidence, fix }));
}

export function readPageSpeed(doc: HtmlDocument, facts: PageFacts | null, url: string): PageSpeedReading {
  const blockingFound = renderBlockingResources(doc);
  const blocking = blockingFound.map((b): ReadBlocking => ({ kind: b.kind, url: b.url, location: b.location, at: refOf(doc, b.element) }));
  const scripts = pageScripts(doc, blockingFound).map((s): ReadScript => {
    const blocked = s.blocking ? blockingFound.findIndex((b) => b.element === s.element) : -1;
    return {
      url: s.url,
      blocking: blocked < 0 ? null : blocked,
      inlineBytes: s.inlineBytes,
      insertsLate: s.url === null && insertsLate(rawTextOf(s.element, 100_000)),
      at: refOf(doc, s.element),
    };
  });
  const images = loadedImages(doc);
  const unsized = images.filter((img) => !isSized(img));
  const lcp = likelyLcpImage(doc, images);
  const aboveFold = new Set(images.slice(0, EAGER_IMAGE_BUDGET));
  return {
    blocking,
    scripts,
    lcpImage: lcp === null ? null : { url: imageUrl(doc, lcp), lazy: isLazy(lcp), declared: declaredSize(lcp), at: refOf(doc, lcp) },
    elements: doc.elements.length,
    markupEnd: doc.elements.at(-1)?.startIndex ?? 0,
    unsizedAboveFold: unsized.filter((img) => aboveFold.has(img)).length,
    earlyImagePixels: images.slice(0, EARLY_IMAGES).reduce((sum, img) => {
      const size = declaredSize(img);
      return sum + (size === null ? ASSUMED_IMAGE_PIXELS : size.width * size.height);
    }, 0),
    settled: settledRules(doc, facts, images, unsized, blockingFound),
    notes: [...doc.notes],
  };
}

function settledRules(doc: HtmlDocument, facts: PageFacts | null, images: readonly Element[], unsized: readonly Element[], blocking: readonly BlockingResource[]): SettledRules {
  const findings: Finding[] = [];
  const add = finder(findings);
  const at = (element: Element, url?: string): Evidence => evidenceAt(refOf(doc, element), url);
  const eager = eagerOffscreenImages(images);

  // Images: unsized ones shift the layout when they arrive (in the first viewport, the shift is
  // seen); eager ones below the fold take bandwidth from what is seen.
  const imageChecks: Check[] = [];
  const aboveFold = new Set(images.slice(0, EAGER_IMAGE_BUDGET));
  for (const img of unsized) {
    const selector = doc.locate(img);
    const seen = aboveFold.has(img);
    add(PAGE_SPEED_RULES.unsizedImages, selector, `The image ${imageUrl(doc, img)} has no width and height: the browser reserves no space, and the content below jumps when it loads (CLS)${seen ? '; it is among the first images, so the shift is in view' : ''}.`, at(img, imageUrl(doc, img)), {
      patchType: 'html', change: `Add width and height attributes (the image's intrinsic size in pixels) to the <img> at ${selector}; CSS can still scale it.`, acceptance: `The <img> at ${selector} has numeric width and height attributes, or an inline size.`, roleHint: 'edit',
    }, seen ? 'medium' : 'low');
  }
  imageChecks.push(images.length === 0 ? notApplicable(PAGE_SPEED_RULES.unsizedImages) : unsized.length === 0 ? passed(PAGE_SPEED_RULES.unsizedImages) : failed(PAGE_SPEED_RULES.unsizedImages));
  const position = new Map(images.map((img, i) => [img, i + 1]));
  const offscreenBytes = eager.map((img) => imageBytesFor(declaredSize(img)));
  const offscreenMs = bandwidthMs(offscreenBytes.reduce((a, b) => a + b, 0));
  for (const img of eager) {
    const selector = doc.locate(img);
    add(PAGE_SPEED_RULES.offscreenImages, selector, `The image ${imageUrl(doc, img)} is image ${position.get(img) ?? 0} of ${images.length}; past the first ${EAGER_IMAGE_BUDGET} it is presumed below the fold, yet it loads with the page (the ${eager.length} such images take about ${formatMs(offscreenMs)} of bandwidth at 10 Mbps, sizes estimated from their declared dimensions).`, at(img, imageUrl(doc, img)), {
      patchType: 'html', change: `Add loading="lazy" to the <img> at ${selector} (keep the first images of the page eager).`, acceptance: `The <img> at ${selector} has loading="lazy".`, roleHint: 'edit',
    }, severityForCostMs(offscreenMs));
  }
  imageChecks.push(images.length <= EAGER_IMAGE_BUDGET ? notApplicable(PAGE_SPEED_RULES.offscreenImages) : graded(PAGE_SPEED_RULES.offscreenImages, eager.length === 0 ? null : offscreenMs));

  // DOM size: between the warning and failure bands the check is worth half (Lighthouse's "average").
  const checks: Check[] = [];
  const shape = domShape(doc);
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
  const requests = referencedRequests(doc, blocking);
  if (requests.length > REQUEST_BUDGET) {
    add(PAGE_SPEED_RULES.requests, 'document', `The HTML references ${requests.length} distinct resources (budget ${REQUEST_BUDGET}); each one costs a request, and the ones from CSS and scripts come on top.`, { value: `${requests.length} resources` }, {
      patchType: 'html', change: 'Bundle scripts and stylesheets, lazy-load images below the fold, and drop resources the page does not use.', acceptance: `The HTML references at most ${REQUEST_BUDGET} resources.`, roleHint: 'edit',
    });
    checks.push(failed(PAGE_SPEED_RULES.requests));
  } else checks.push(passed(PAGE_SPEED_RULES.requests));

  return {
    imageChecks,
    pageChecks: checks,
    // Grouped here, where each instance's place is known (findings.ts placeOf): it does not cross threads.
    findings: groupFindings(findings, ruleWordings(rules)),
    details: {
      images: { count: images.length, eagerBudget: EAGER_IMAGE_BUDGET, unsized: listed(doc, unsized), notLazy: listed(doc, eager) },
      dom: { elements: shape.elements, maxDepth: shape.maxDepth, maxChildren: shape.maxChildren, deepest: shape.deepest ? doc.locate(shape.deepest) : null },
      bytes: { transfer: transferBytes, decoded: decodedBytes, contentEncoding: facts ? (facts.headers['content-encoding'] ?? null) : null, gzipEstimate: compression.gzipBytes },
      caching: facts ? pick(facts.headers, ['cache-control', 'etag', 'last-modified', 'expires']) : null,
      ttfbMs: facts?.timings.ttfbMs ?? null,
      redirects: facts?.redirects.length ?? null,
      requests: { count: requests.length, byKind: countBy(requests.map((r) => r.kind)), urls: requests.slice(0, MAX_LISTED) },
    },
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
