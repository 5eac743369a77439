// Page speed, judged from the HTML and the response alone: a PROXY, not a lab or field
// measurement. No browser runs and nothing the page references is fetched, so LCP, CLS and TBT
// are not measured; the rules look for what usually makes them bad (render-blocking resources,
// unsized and eagerly loaded images, a large DOM, a heavy or uncompressed document, no caching
// headers, a slow first byte, many requests). details.method is 'proxy' and a note says so.
import { gzipSync } from 'node:zlib';
import type { Element } from 'domhandler';
import { makeFinding, type Check, type Evidence, type Finding, type Fix, type Report, type Severity } from '../findings.ts';
import { parseHtml, snippetOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import {
  buildReport,
  checkFrom,
  failed,
  notApplicable,
  passed,
  unknown,
  type Analyzer,
  type RuleDefinition,
} from '../scoring.ts';
import {
  EAGER_IMAGE_BUDGET,
  MAX_LISTED,
  domShape,
  eagerOffscreenImages,
  imageUrl,
  isSized,
  loadedImages,
  referencedRequests,
  renderBlockingResources,
  type BlockingResource,
} from './page-speed-resources.ts';

const rule = (id: string, weight: number, severity: Severity, title: string, many?: RuleDefinition['many']): RuleDefinition => ({
  id, category: 'performance', weight, severity, title, ...(many ? { many } : {}),
});

export const PAGE_SPEED_RULES = {
  renderBlocking: rule('page-speed-render-blocking', 8, 'medium', 'A resource blocks the first render', {
    title: '{count} resources block the first render',
    change: 'Make each of the {count} render-blocking resources non-blocking: defer (or async) on scripts in the head, non-blocking loading for screen stylesheets, a <link> instead of an @import.',
    acceptance: 'No script or stylesheet blocks the first render (each has async, defer, type=module, a non-screen media, or is gone).',
  }),
  unsizedImages: rule('page-speed-unsized-images', 5, 'medium', 'An image has no width and height (layout shift risk)', {
    title: '{count} images have no width and height (layout shift risk)',
    change: 'Add width and height attributes (the intrinsic size in pixels) to each of the {count} images without them; CSS can still scale them.',
    acceptance: 'Every image the page loads has numeric width and height attributes, or an inline size.',
  }),
  offscreenImages: rule('page-speed-offscreen-images', 4, 'low', 'An image below the fold is not lazy-loaded', {
    title: '{count} images below the fold are not lazy-loaded',
    change: `Add loading="lazy" to each of the {count} images past the first ${EAGER_IMAGE_BUDGET} (keep the first images of the page eager).`,
    acceptance: `No image past the first ${EAGER_IMAGE_BUDGET} loads eagerly.`,
  }),
  domSize: rule('page-speed-dom-size', 4, 'medium', 'The DOM has too many elements'),
  domDepth: rule('page-speed-dom-depth', 2, 'low', 'The DOM is nested too deep'),
  htmlBytes: rule('page-speed-html-bytes', 3, 'medium', 'The HTML document is heavy'),
  compression: rule('page-speed-compression', 5, 'medium', 'The HTML is sent without compression'),
  caching: rule('page-speed-caching-headers', 3, 'low', 'The page has no caching headers'),
  ttfb: rule('page-speed-ttfb', 8, 'high', 'The server is slow to send the first byte'),
  requests: rule('page-speed-request-count', 3, 'low', 'The page references too many resources'),
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(PAGE_SPEED_RULES);

/** Lighthouse's dom-size bands: above 800 body elements is a warning, above 1,400 a failure. */
export const DOM_WARN_ELEMENTS = 800;
export const DOM_FAIL_ELEMENTS = 1400;
/** Lighthouse flags a DOM depth above 32. */
export const DOM_MAX_DEPTH = 32;
/** Wire size of the HTML alone; above this the document is slow on a mobile connection. */
export const HTML_TRANSFER_BUDGET = 100 * 1024;
/** Decoded size; above this the parse itself costs (and Googlebot truncates far above it). */
export const HTML_DECODED_BUDGET = 500 * 1024;
/** Lighthouse's uses-text-compression ignores responses smaller than this, and savings under 10%. */
export const COMPRESSION_MIN_BYTES = 1400;
const COMPRESSION_MIN_SAVING = 0.1;
/** Lighthouse's server-response-time threshold. */
export const TTFB_BUDGET_MS = 600;
/** Distinct subresources the HTML references directly (a budget: Lighthouse does not score the count). */
export const REQUEST_BUDGET = 50;

export const PROXY_NOTE =
  'page speed here is an HTML-based proxy: no browser loaded the page, so LCP, CLS and TBT were not measured; ' +
  'the rules judge what usually slows a page (render-blocking resources, unsized and eager images, DOM size, bytes, compression, caching, TTFB, requests)';

const TEXT_TYPE = /^(?:text\/|application\/(?:xhtml\+xml|xml|json|javascript))/;

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, facts: PageFacts | null, _url: string): Report {
  const findings: Finding[] = [];
  const checks: Check[] = [];
  const add = (r: RuleDefinition, location: string, detail: string, evidence: Evidence, fix: Fix, severity: Severity = r.severity) =>
    findings.push(makeFinding({ rule: r.id, category: 'performance', severity, location, title: r.title, detail, evidence, fix }));
  const at = (element: Element, url?: string): Evidence => ({ selector: doc.locate(element), snippet: snippetOf(element), line: doc.lineOf(element), ...(url ? { url } : {}) });

  // Per-element rules report every element; buildReport folds them into one finding per rule that
  // lists the first few and counts them all, so the answer's size does not grow with the page.
  // Render-blocking resources, each its own finding.
  const blocking = renderBlockingResources(doc);
  for (const resource of blocking) {
    const selector = doc.locate(resource.element);
    const { detail, change } = blockingText(resource, selector);
    add(PAGE_SPEED_RULES.renderBlocking, resource.location, detail, at(resource.element, resource.url), {
      patchType: 'html', change, acceptance: `${resource.url} no longer blocks the render (async, defer, type=module, a non-screen media, or removed).`, roleHint: 'edit',
    });
  }
  checks.push(checkFrom(PAGE_SPEED_RULES.renderBlocking, findings));

  // Images: unsized ones shift the layout when they arrive; eager ones below the fold compete with what is seen.
  const images = loadedImages(doc);
  const unsized = images.filter((img) => !isSized(img));
  for (const img of unsized) {
    const selector = doc.locate(img);
    add(PAGE_SPEED_RULES.unsizedImages, selector, `The image ${imageUrl(doc, img)} has no width and height: the browser reserves no space, and the content below jumps when it loads (CLS).`, at(img, imageUrl(doc, img)), {
      patchType: 'html', change: `Add width and height attributes (the image's intrinsic size in pixels) to the <img> at ${selector}; CSS can still scale it.`, acceptance: `The <img> at ${selector} has numeric width and height attributes, or an inline size.`, roleHint: 'edit',
    });
  }
  checks.push(images.length === 0 ? notApplicable(PAGE_SPEED_RULES.unsizedImages) : checkFrom(PAGE_SPEED_RULES.unsizedImages, findings));
  const eager = eagerOffscreenImages(images);
  const position = new Map(images.map((img, i) => [img, i + 1]));
  for (const img of eager) {
    const selector = doc.locate(img);
    add(PAGE_SPEED_RULES.offscreenImages, selector, `The image ${imageUrl(doc, img)} is image ${position.get(img) ?? 0} of ${images.length}; past the first ${EAGER_IMAGE_BUDGET} it is presumed below the fold, yet it loads with the page.`, at(img, imageUrl(doc, img)), {
      patchType: 'html', change: `Add loading="lazy" to the <img> at ${selector} (keep the first images of the page eager).`, acceptance: `The <img> at ${selector} has loading="lazy".`, roleHint: 'edit',
    });
  }
  checks.push(images.length <= EAGER_IMAGE_BUDGET ? notApplicable(PAGE_SPEED_RULES.offscreenImages) : checkFrom(PAGE_SPEED_RULES.offscreenImages, findings));

  // DOM size: between the warning and failure bands the check is worth half (Lighthouse's "average").
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
  }
  checks.push(checkFrom(PAGE_SPEED_RULES.domDepth, findings));

  // Bytes: what crossed the wire and what the browser had to parse (the body the server sent, so
  // HTML passed in directly leaves the rule unknown).
  const decodedBytes = facts ? facts.body.length : null;
  const transferBytes = facts ? facts.transferBytes : null;
  if (facts === null || decodedBytes === null || transferBytes === null) checks.push(unknown(PAGE_SPEED_RULES.htmlBytes));
  else {
    if (transferBytes > HTML_TRANSFER_BUDGET || decodedBytes > HTML_DECODED_BUDGET) {
      const sizes = `${kib(transferBytes)} on the wire, ${kib(decodedBytes)} decoded`;
      add(PAGE_SPEED_RULES.htmlBytes, 'document', `The HTML is ${sizes} (budgets: ${kib(HTML_TRANSFER_BUDGET)} on the wire, ${kib(HTML_DECODED_BUDGET)} decoded).`, { value: sizes }, {
        patchType: 'html', change: 'Move inline data, SVG sprites, CSS and scripts into cached files, and paginate long content.', acceptance: `The HTML is at most ${kib(HTML_TRANSFER_BUDGET)} on the wire and ${kib(HTML_DECODED_BUDGET)} decoded.`, roleHint: 'edit',
      });
    }
    checks.push(checkFrom(PAGE_SPEED_RULES.htmlBytes, findings));
  }

  // Response rules: judged only on a fetched response.
  const compression = compressionFacts(facts);
  if (facts === null) checks.push(unknown(PAGE_SPEED_RULES.compression), unknown(PAGE_SPEED_RULES.caching), unknown(PAGE_SPEED_RULES.ttfb));
  else {
    if (compression.applicable === false) checks.push(notApplicable(PAGE_SPEED_RULES.compression));
    else {
      if (compression.worthIt) {
        add(PAGE_SPEED_RULES.compression, 'header:content-encoding', `The ${facts.mediaType ?? 'response'} body is ${kib(facts.body.length)} and sent uncompressed; gzip makes it ${kib(compression.gzipBytes ?? 0)}.`, { header: 'content-encoding' }, {
          patchType: 'config', change: 'Enable gzip or Brotli for text responses on the server or CDN (they are asked for with Accept-Encoding).', acceptance: 'The page answers with Content-Encoding gzip, br or zstd to a request that accepts it.', roleHint: 'config',
        });
      }
      checks.push(checkFrom(PAGE_SPEED_RULES.compression, findings));
    }
    const h = facts.headers;
    const caching = ['cache-control', 'etag', 'last-modified', 'expires'].filter((name) => h[name] !== undefined);
    if (caching.length === 0) {
      add(PAGE_SPEED_RULES.caching, 'header:cache-control', 'The response has no Cache-Control, ETag, Last-Modified or Expires: a browser or CDN cannot reuse or revalidate it, so every visit downloads it whole.', { header: 'cache-control' }, {
        patchType: 'http-header', change: 'Send Cache-Control (e.g. "max-age=0, must-revalidate" for HTML that changes, or "no-store" if it must never be kept) and an ETag or Last-Modified for revalidation.', acceptance: 'The response carries Cache-Control, ETag or Last-Modified.', roleHint: 'config',
      });
    }
    checks.push(checkFrom(PAGE_SPEED_RULES.caching, findings));
    const ttfb = facts.timings.ttfbMs;
    if (ttfb === null) checks.push(unknown(PAGE_SPEED_RULES.ttfb));
    else {
      if (ttfb > TTFB_BUDGET_MS) {
        add(PAGE_SPEED_RULES.ttfb, 'document', `The first byte came ${Math.round(ttfb)} ms after the request (Lighthouse's budget is ${TTFB_BUDGET_MS} ms), measured from this service, not from your visitors.`, { value: `${Math.round(ttfb)} ms` }, {
          patchType: 'investigate', change: 'Find what the server does before answering (slow queries, no page cache, a cold start) and cache or speed it up; a CDN close to visitors helps too.', acceptance: `The server answers the first byte within ${TTFB_BUDGET_MS} ms.`, roleHint: 'config',
        });
      }
      checks.push(checkFrom(PAGE_SPEED_RULES.ttfb, findings));
    }
  }

  // Requests the HTML references directly (those of CSS and scripts cannot be seen without a browser).
  const requests = referencedRequests(doc, blocking);
  if (requests.length > REQUEST_BUDGET) {
    add(PAGE_SPEED_RULES.requests, 'document', `The HTML references ${requests.length} distinct resources (budget ${REQUEST_BUDGET}); each one costs a request, and the ones from CSS and scripts come on top.`, { value: `${requests.length} resources` }, {
      patchType: 'html', change: 'Bundle scripts and stylesheets, lazy-load images below the fold, and drop resources the page does not use.', acceptance: `The HTML references at most ${REQUEST_BUDGET} resources.`, roleHint: 'edit',
    });
  }
  checks.push(checkFrom(PAGE_SPEED_RULES.requests, findings));

  return buildReport({
    categories: ['performance'],
    checks,
    findings,
    rules,
    notes: doc.notes,
    // The label says how the page was judged, not that something could not be.
    info: [PROXY_NOTE],
    details: {
      method: 'proxy',
      renderBlocking: blocking.slice(0, MAX_LISTED).map((r) => ({ kind: r.kind, url: r.url, selector: doc.locate(r.element), line: doc.lineOf(r.element) })),
      images: { count: images.length, eagerBudget: EAGER_IMAGE_BUDGET, unsized: listed(doc, unsized), notLazy: listed(doc, eager) },
      dom: { elements: shape.elements, maxDepth: shape.maxDepth, maxChildren: shape.maxChildren, deepest: shape.deepest ? doc.locate(shape.deepest) : null },
      bytes: { transfer: transferBytes, decoded: decodedBytes, contentEncoding: facts ? (facts.headers['content-encoding'] ?? null) : null, gzipEstimate: compression.gzipBytes },
      caching: facts ? pick(facts.headers, ['cache-control', 'etag', 'last-modified', 'expires']) : null,
      ttfbMs: facts?.timings.ttfbMs ?? null,
      redirects: facts?.redirects.length ?? null,
      requests: { count: requests.length, byKind: countBy(requests.map((r) => r.kind)), urls: requests.slice(0, MAX_LISTED) },
    },
  });
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
