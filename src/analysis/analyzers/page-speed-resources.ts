// What the page-speed proxy reads from the HTML: the resources that block the first render, the
// images (sized or not, lazy or not), the subresources the page references and the shape of the
// DOM. Pure helpers over one parse; the rules and their thresholds are in page-speed.ts.
import { isTag, type Element } from 'domhandler';
import { attr, closest, hasAttr, rawTextOf, resolveUrl, type HtmlDocument } from '../html-document.ts';
import { MAX_LISTED_INSTANCES } from '../findings.ts';

/**
 * How many <img> elements, in document order, are presumed to be in or near the first viewport.
 * The HTML gives no layout, so the proxy takes the first few images as the ones a browser needs
 * at once (a logo, a hero, a first product) and every later one as below the fold.
 */
export const EAGER_IMAGE_BUDGET = 3;
/** Lists in details stop where a finding's instances do; the counts beside them stay exact. */
export const MAX_LISTED = MAX_LISTED_INSTANCES;

// Classic script types a browser runs (HTML's "JavaScript MIME type essence match"); a script of
// any other type (JSON-LD, templates) is not fetched, so it cannot block anything.
const JS_TYPE = /^(?:(?:text|application)\/(?:x-)?(?:java|ecma)script(?:1\.[0-5])?|text\/(?:jscript|livescript))$/;
const IMPORT = /@import\s+(?:url\(\s*)?["']?([^"')\s;]+)/gi;
/** The elements whose attributes make a request (ancestors are only walked for these). */
const REQUEST_TAGS = new Set(['script', 'link', 'img', 'input', 'iframe', 'frame', 'video', 'audio', 'track', 'embed', 'source', 'object']);
const NO_REQUEST = /^(?:data|blob|javascript|about):/i;

export interface BlockingResource {
  kind: 'script' | 'stylesheet' | 'css-import';
  url: string;
  element: Element;
  /** the place a finding is named by: the element, plus the imported URL for an @import */
  location: string;
}

export interface ReferencedRequest {
  kind: string;
  url: string;
}

export interface DomShape {
  elements: number;
  maxDepth: number;
  deepest: Element | null;
  maxChildren: number;
  widest: Element | null;
}

function lower(element: Element, name: string): string {
  return (attr(element, name) ?? '').trim().toLowerCase();
}

function relTokens(element: Element): string[] {
  return lower(element, 'rel').split(/\s+/).filter(Boolean);
}

const inertByDoc = new WeakMap<HtmlDocument, Set<Element>>();

/**
 * Inside <template> or <noscript>: markup a scripting browser never loads from. Worked out once
 * per parse (parents come before children in document order), so a deep page is not walked up
 * from every element.
 */
function inert(doc: HtmlDocument, element: Element): boolean {
  let set = inertByDoc.get(doc);
  if (set === undefined) {
    set = new Set();
    for (const e of doc.elements) {
      const parent = e.parent;
      if (parent && isTag(parent) && (set.has(parent) || parent.name === 'template' || parent.name === 'noscript')) set.add(e);
    }
    inertByDoc.set(doc, set);
  }
  return set.has(element);
}

/**
 * Before the body starts: inside <head>, or (htmlparser2 does not build implied elements) written
 * before the <body> tag. A page with neither tag has no head to block.
 */
function inHead(doc: HtmlDocument, element: Element): boolean {
  if (closest(element, 'head') !== null) return true;
  const body = doc.byTag('body')[0];
  return body !== undefined && closest(element, 'body') === null && (element.startIndex ?? 0) < (body.startIndex ?? 0);
}

export function isClassicScript(element: Element): boolean {
  const type = lower(element, 'type');
  return type === '' || JS_TYPE.test(type.split(';')[0]?.trim() ?? '');
}

/**
 * Whether a media attribute lets a stylesheet apply to a screen. Media types decide; media
 * features (min-width and the like) are taken to match, since the proxy knows no viewport.
 */
export function mediaMatchesScreen(media: string | undefined): boolean {
  if (media === undefined || media.trim() === '') return true;
  return media.split(',').some((part) => {
    const query = part.trim().toLowerCase();
    if (query === '') return false;
    const match = /^(?:(not|only)\s+)?([a-z-]+)?/.exec(query);
    const negated = match?.[1] === 'not';
    const type = query.startsWith('(') ? 'all' : (match?.[2] ?? 'all');
    const screen = type === 'all' || type === 'screen';
    return negated ? !screen : screen;
  });
}

function absolute(doc: HtmlDocument, ref: string | undefined): string | null {
  if (ref === undefined || ref.trim() === '' || NO_REQUEST.test(ref.trim())) return null;
  const url = resolveUrl(ref, doc.baseUrl);
  if (url === null) return null;
  url.hash = '';
  return url.href;
}

/**
 * Resources that hold the first render back: classic <script src> in the head without async or
 * defer, stylesheets in the head whose media applies to screens (not disabled, not alternate),
 * and @import rules of <style> elements in the head.
 */
export function renderBlockingResources(doc: HtmlDocument): BlockingResource[] {
  const found: BlockingResource[] = [];
  for (const element of doc.elements) {
    if (element.name !== 'script' && element.name !== 'link' && element.name !== 'style') continue;
    if (inert(doc, element) || !inHead(doc, element)) continue;
    if (element.name === 'script') {
      const url = absolute(doc, attr(element, 'src'));
      if (url === null || hasAttr(element, 'async') || hasAttr(element, 'defer') || hasAttr(element, 'nomodule')) continue;
      if (!isClassicScript(element)) continue; // type=module is deferred; other types never run
      found.push({ kind: 'script', url, element, location: doc.locate(element) });
    } else if (element.name === 'link') {
      const rel = relTokens(element);
      if (!rel.includes('stylesheet') || rel.includes('alternate') || hasAttr(element, 'disabled')) continue;
      const url = absolute(doc, attr(element, 'href'));
      if (url === null || !mediaMatchesScreen(attr(element, 'media'))) continue;
      found.push({ kind: 'stylesheet', url, element, location: doc.locate(element) });
    } else {
      if (!mediaMatchesScreen(attr(element, 'media'))) continue;
      for (const match of rawTextOf(element, 100_000).matchAll(IMPORT)) {
        const url = absolute(doc, match[1]);
        if (url !== null) found.push({ kind: 'css-import', url, element, location: `${doc.locate(element)}@import(${url})` });
      }
    }
  }
  return found;
}

/** <img> elements a browser would load: not inert, and with a src or srcset that makes a request. */
export function loadedImages(doc: HtmlDocument): Element[] {
  return doc.byTag('img').filter((img) => !inert(doc, img) && (absolute(doc, attr(img, 'src')) ?? firstSrcset(doc, img)) !== null);
}

function firstSrcset(doc: HtmlDocument, img: Element): string | null {
  const first = (attr(img, 'srcset') ?? '').split(',')[0]?.trim().split(/\s+/)[0];
  return absolute(doc, first);
}

export function imageUrl(doc: HtmlDocument, img: Element): string {
  return absolute(doc, attr(img, 'src')) ?? firstSrcset(doc, img) ?? '';
}

// An inline declaration of the property with a value other than auto.
const STYLE_PROPERTY = {
  width: /(?:^|;)\s*width\s*:\s*(?!auto\b)[^;\s]/,
  height: /(?:^|;)\s*height\s*:\s*(?!auto\b)[^;\s]/,
  'aspect-ratio': /(?:^|;)\s*aspect-ratio\s*:\s*(?!auto\b)[^;\s]/,
} as const;

function styleDeclares(element: Element, property: keyof typeof STYLE_PROPERTY): boolean {
  return STYLE_PROPERTY[property].test(lower(element, 'style'));
}

/**
 * Whether the browser can reserve the image's box before it loads (Lighthouse's unsized-images
 * test): width and height attributes holding numbers, or both set in the inline style, or an
 * aspect-ratio with one of them. Hidden images take no space, so they cannot shift the layout.
 */
export function isSized(img: Element): boolean {
  if (hasAttr(img, 'hidden')) return true;
  const number = (name: string) => /^\s*\d/.test(attr(img, name) ?? '');
  const width = number('width') || styleDeclares(img, 'width');
  const height = number('height') || styleDeclares(img, 'height');
  return (width && height) || ((width || height) && styleDeclares(img, 'aspect-ratio'));
}

/**
 * Images past the eager budget that load at once: the first EAGER_IMAGE_BUDGET loaded images are
 * presumed above the fold; each later one without loading="lazy" (and not marked
 * fetchpriority="high", a deliberate eager image) is loaded with the page though nobody sees it yet.
 */
export function eagerOffscreenImages(images: readonly Element[]): Element[] {
  return images
    .slice(EAGER_IMAGE_BUDGET)
    .filter((img) => lower(img, 'loading') !== 'lazy' && lower(img, 'fetchpriority') !== 'high');
}

/** Each distinct subresource URL the HTML itself makes the browser request, with its kind. */
export function referencedRequests(doc: HtmlDocument, blocking: readonly BlockingResource[]): ReferencedRequest[] {
  const seen = new Map<string, string>();
  const add = (kind: string, url: string | null) => {
    if (url !== null && !seen.has(url)) seen.set(url, kind);
  };
  for (const resource of blocking) add(resource.kind === 'script' ? 'script' : 'stylesheet', resource.url);
  for (const element of doc.elements) {
    if (!REQUEST_TAGS.has(element.name) || inert(doc, element)) continue;
    switch (element.name) {
      case 'script':
        if (isClassicScript(element) || lower(element, 'type') === 'module') add('script', absolute(doc, attr(element, 'src')));
        break;
      case 'link': {
        const rel = relTokens(element);
        if (rel.includes('stylesheet') && !rel.includes('alternate')) add('stylesheet', absolute(doc, attr(element, 'href')));
        else if (rel.includes('preload') || rel.includes('modulepreload')) add('preload', absolute(doc, attr(element, 'href')));
        else if (rel.some((r) => r === 'icon' || r === 'apple-touch-icon' || r === 'manifest')) add('icon', absolute(doc, attr(element, 'href')));
        break;
      }
      case 'img':
        add('image', absolute(doc, attr(element, 'src')) ?? firstSrcset(doc, element));
        break;
      case 'input':
        if (lower(element, 'type') === 'image') add('image', absolute(doc, attr(element, 'src')));
        break;
      case 'iframe':
      case 'frame':
        add('frame', absolute(doc, attr(element, 'src')));
        break;
      case 'video':
        add('media', absolute(doc, attr(element, 'src')));
        add('image', absolute(doc, attr(element, 'poster')));
        break;
      case 'audio':
      case 'track':
      case 'embed':
        add('media', absolute(doc, attr(element, 'src')));
        break;
      case 'source': {
        // a <picture> loads one of its sources (or its <img>), so its alternatives are not requests
        const parent = element.parent;
        if (parent && isTag(parent) && parent.name !== 'picture') add('media', absolute(doc, attr(element, 'src')));
        break;
      }
      case 'object':
        add('media', absolute(doc, attr(element, 'data')));
        break;
    }
  }
  return [...seen].map(([url, kind]) => ({ kind, url }));
}

/** Element count, the deepest nesting (the root element is depth 1) and the most children of one element. */
export function domShape(doc: HtmlDocument): DomShape {
  // Parents come before their children in document order, so one pass knows every parent's depth.
  const depth = new Map<Element, number>();
  const shape: DomShape = { elements: doc.elements.length, maxDepth: 0, deepest: null, maxChildren: 0, widest: null };
  for (const element of doc.elements) {
    const parent = element.parent;
    const d = (parent && isTag(parent) ? (depth.get(parent) ?? 0) : 0) + 1;
    depth.set(element, d);
    if (d > shape.maxDepth) {
      shape.maxDepth = d;
      shape.deepest = element;
    }
    let children = 0;
    for (const child of element.children) if (isTag(child)) children++;
    if (children > shape.maxChildren) {
      shape.maxChildren = children;
      shape.widest = element;
    }
  }
  return shape;
}

/** Below this declared area (px) an image is an icon or a logo, not a candidate for LCP. */
const LCP_MIN_AREA = 60_000;
const SMALL_IMAGE_NAME = /logo|icon|avatar|sprite|badge|spinner|pixel/i;

/** The image's declared size in CSS pixels (attributes only), or null when it does not say. */
export function declaredSize(img: Element): { width: number; height: number } | null {
  const width = Number.parseInt(attr(img, 'width') ?? '', 10);
  const height = Number.parseInt(attr(img, 'height') ?? '', 10);
  return Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0 ? { width, height } : null;
}

/**
 * The image most likely to be the page's Largest Contentful Paint: the first large image among
 * those presumed in the first viewport (the first EAGER_IMAGE_BUDGET loaded images). Large means a
 * declared area of at least LCP_MIN_AREA, or no declared size and nothing marking it small (in the
 * header or nav, or named like a logo or an icon). Null when the page's LCP is presumably text.
 */
export function likelyLcpImage(doc: HtmlDocument, images: readonly Element[]): Element | null {
  for (const img of images.slice(0, EAGER_IMAGE_BUDGET)) {
    const size = declaredSize(img);
    if (size !== null) {
      if (size.width * size.height >= LCP_MIN_AREA) return img;
      continue;
    }
    const named = `${attr(img, 'src') ?? ''} ${attr(img, 'alt') ?? ''} ${attr(img, 'class') ?? ''} ${attr(img, 'id') ?? ''}`;
    if (closest(img, 'header') !== null || closest(img, 'nav') !== null || SMALL_IMAGE_NAME.test(named)) continue;
    if (imageUrl(doc, img) !== '') return img;
  }
  return null;
}

export function isLazy(img: Element): boolean {
  return lower(img, 'loading') === 'lazy';
}

export interface PageScript {
  /** null for an inline script */
  url: string | null;
  element: Element;
  /** blocks the first render (a classic script in the head without async or defer) */
  blocking: boolean;
  /** the inline script's length; null for an external one */
  inlineBytes: number | null;
}

/** Every script the browser runs: external ones (classic or module) and inline classic ones, in document order. */
export function pageScripts(doc: HtmlDocument, blocking: readonly BlockingResource[]): PageScript[] {
  const blockingElements = new Set(blocking.filter((b) => b.kind === 'script').map((b) => b.element));
  const scripts: PageScript[] = [];
  for (const element of doc.byTag('script')) {
    if (inert(doc, element) || hasAttr(element, 'nomodule')) continue;
    if (!isClassicScript(element) && lower(element, 'type') !== 'module') continue;
    const src = attr(element, 'src');
    if (src !== undefined) {
      const url = absolute(doc, src);
      if (url !== null) scripts.push({ url, element, blocking: blockingElements.has(element), inlineBytes: null });
    } else {
      scripts.push({ url: null, element, blocking: false, inlineBytes: Buffer.byteLength(rawTextOf(element, 1_000_000)) });
    }
  }
  return scripts;
}

// A callback that runs after the first paint (a timer, the load event, a promise), and a DOM write
// that puts content above what is already laid out or resizes it: together, a late layout shift.
const LATER = /setTimeout|requestAnimationFrame|requestIdleCallback|addEventListener\(\s*['"](?:load|DOMContentLoaded)|onload\s*=|\.then\(/;
const SHIFTING_WRITE = /insertBefore\(|\.prepend\(|\.before\(|insertAdjacent(?:HTML|Element|Text)\(\s*['"](?:beforebegin|afterbegin)|\.style\.(?:height|minHeight|paddingTop|marginTop|display)\s*=|\.innerHTML\s*=/;

/** Whether a script's text inserts or resizes content after the first paint (a late banner). */
export function insertsLate(text: string): boolean {
  return LATER.test(text) && SHIFTING_WRITE.test(text);
}
