// One parse of a page for every analyzer, and the helpers they share.
//
// Bounded by construction. Everything here walks the tree with loops, never recursion (domutils'
// textContent recurses, so 100,000 nested elements would overflow the stack through it). The parse
// itself is bounded too: htmlparser2 keeps its open-element stack with unshift/shift, so its cost
// grows with the square of the nesting depth (100,000 nested divs take seconds). The page is fed
// in small chunks and parsing stops once the nesting passes MAX_DEPTH (Blink's parser stops
// nesting at 512 as well) or the element count passes MAX_ELEMENTS; the report then says where.
import { Parser } from 'htmlparser2';
import { DomHandler, isTag, isText, type AnyNode, type Document, type Element } from 'domhandler';

export const MAX_DEPTH = 512;
export const MAX_ELEMENTS = 200_000;
/** Small enough that one chunk past the limit adds little to the parser's stack. */
const CHUNK_CHARS = 8192;

const MAX_PATH_SEGMENTS = 12;
const MAX_SNIPPET = 200;
const MAX_KEY_VALUE = 200;

/** The attribute that names an element for its location, when it has one (its target, its name). */
const KEY_ATTRIBUTES: Record<string, readonly string[]> = {
  a: ['href'],
  area: ['href'],
  audio: ['src'],
  embed: ['src'],
  form: ['action'],
  iframe: ['src'],
  img: ['src', 'srcset'],
  input: ['name', 'src'],
  link: ['href'],
  meta: ['name', 'property', 'http-equiv', 'charset'],
  object: ['data'],
  script: ['src'],
  source: ['src', 'srcset'],
  track: ['src'],
  video: ['src', 'poster'],
};

export interface HtmlDocument {
  root: Document;
  /** what was not analysed and why (parsing stopped at a limit); analyzers pass these on as notes */
  notes: readonly string[];
  /** every element in document order */
  elements: readonly Element[];
  /** the URL relative references resolve against (<base href> when given), or null when unusable */
  baseUrl: URL | null;
  byTag(name: string): Element[];
  /** a normalised CSS-like location that unrelated edits elsewhere on the page leave unchanged */
  locate(element: Element): string;
  /** 1-based line of the element's start tag */
  lineOf(element: Element): number;
}

export function parseHtml(html: string, url: string): HtmlDocument {
  const { root, stoppedAt } = parseBounded(html);
  const elements = collectElements(root);
  const tags = new Map<string, Element[]>();
  for (const element of elements) {
    const list = tags.get(element.name);
    if (list) list.push(element);
    else tags.set(element.name, [element]);
  }
  const pageUrl = parseUrl(url, undefined);
  const baseHref = tags.get('base')?.find((b) => attr(b, 'href') !== undefined);
  const baseUrl = (baseHref && pageUrl ? parseUrl(attr(baseHref, 'href') ?? '', pageUrl) : null) ?? pageUrl;
  let lineStarts: number[] | null = null;
  // An element's place among the elements with its key, counted once for the page on first use.
  let keyPlace: Map<Element, number> | null = null;

  const keyOf = (element: Element): string | null => {
    for (const name of KEY_ATTRIBUTES[element.name] ?? []) {
      const value = attr(element, name);
      if (value !== undefined && value.trim() !== '') {
        return `${element.name}[${name}="${value.trim().slice(0, MAX_KEY_VALUE)}"]`;
      }
    }
    return null;
  };

  const notes: string[] = [];
  if (stoppedAt) {
    lineStarts = newlineOffsets(html);
    notes.push(`${stoppedAt.reason}: the page was analysed up to line ${lineFor(lineStarts, stoppedAt.index)} only`);
  }

  return {
    root,
    notes,
    elements,
    baseUrl,
    byTag: (name) => tags.get(name) ?? [],
    locate(element) {
      const id = attr(element, 'id')?.trim();
      if (id) return `${element.name}#${id.slice(0, MAX_KEY_VALUE)}`;
      const key = keyOf(element);
      if (key === null) return pathOf(element);
      if (keyPlace === null) {
        keyPlace = new Map();
        const counts = new Map<string, number>();
        for (const e of elements) {
          const k = keyOf(e);
          if (k === null) continue;
          const n = (counts.get(k) ?? 0) + 1;
          counts.set(k, n);
          keyPlace.set(e, n);
        }
      }
      const n = keyPlace.get(element) ?? 1;
      return n > 1 ? `${key}:nth-match(${n})` : key;
    },
    lineOf(element) {
      lineStarts ??= newlineOffsets(html);
      return lineFor(lineStarts, element.startIndex ?? 0);
    },
  };
}

interface Stop {
  reason: string;
  index: number;
}

/** DomHandler that counts open elements and the depth, and records where a limit was passed. */
class BoundedHandler extends DomHandler {
  depth = 0;
  opened = 0;
  stoppedAt: Stop | null = null;
  private source: Parser | null = null;

  override onparserinit(parser: Parser): void {
    super.onparserinit(parser);
    this.source = parser;
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    super.onopentag(name, attribs);
    this.depth++;
    this.opened++;
    if (this.stoppedAt) return;
    const index = this.source?.startIndex ?? 0;
    if (this.depth > MAX_DEPTH) this.stoppedAt = { reason: `elements nested deeper than ${MAX_DEPTH}`, index };
    else if (this.opened > MAX_ELEMENTS) this.stoppedAt = { reason: `more than ${MAX_ELEMENTS} elements`, index };
  }

  override onclosetag(): void {
    super.onclosetag();
    this.depth--;
  }
}

function parseBounded(html: string): { root: Document; stoppedAt: Stop | null } {
  const handler = new BoundedHandler(undefined, { withStartIndices: true });
  const parser = new Parser(handler, { lowerCaseTags: true, lowerCaseAttributeNames: true });
  for (let at = 0; at < html.length && handler.stoppedAt === null; at += CHUNK_CHARS) {
    parser.write(html.slice(at, at + CHUNK_CHARS));
  }
  parser.end();
  return { root: handler.root, stoppedAt: handler.stoppedAt };
}

function collectElements(root: Document): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return out;
}

export function attr(element: Element, name: string): string | undefined {
  return element.attribs[name];
}

export function hasAttr(element: Element, name: string): boolean {
  return Object.hasOwn(element.attribs, name);
}

/** The nearest ancestor (not the element itself) with the given tag name, or null. */
export function closest(element: Element, name: string): Element | null {
  let node = element.parent;
  while (node) {
    if (isTag(node) && node.name === name) return node;
    node = node.parent;
  }
  return null;
}

/**
 * The element's text, whitespace collapsed, at most max characters. With includeAlt, images count
 * with their alt text, as they do in an accessible name.
 */
export function textOf(element: Element, options: { max?: number; includeAlt?: boolean } = {}): string {
  const max = options.max ?? 1000;
  let text = '';
  const stack: AnyNode[] = [element];
  while (stack.length > 0 && text.length < max * 2) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) text += node.data;
    else if (isTag(node)) {
      if (node.name === 'script' || node.name === 'style' || node.name === 'template') continue;
      if (options.includeAlt && node.name === 'img') text += ` ${attr(node, 'alt') ?? ''} `;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
    }
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
}

/** The raw text of an element holding only text (<style>, <script>, <title>), at most max characters. */
export function rawTextOf(element: Element, max = 200_000): string {
  let text = '';
  for (const child of element.children) {
    if (isText(child)) text += child.data;
    if (text.length >= max) break;
  }
  return text.slice(0, max);
}

/** The element's opening tag as a string, attributes in source order, truncated. */
export function snippetOf(element: Element): string {
  const attrs = Object.entries(element.attribs)
    .map(([name, value]) => (value === '' ? ` ${name}` : ` ${name}="${value.replace(/"/g, '&quot;')}"`))
    .join('');
  const tag = `<${element.name}${attrs}>`;
  return tag.length > MAX_SNIPPET ? `${tag.slice(0, MAX_SNIPPET - 1)}…` : tag;
}

/** A URL relative to the document, or null when it does not parse. */
export function resolveUrl(ref: string, base: URL | null): URL | null {
  return parseUrl(ref.trim(), base ?? undefined);
}

function parseUrl(ref: string, base: URL | undefined): URL | null {
  try {
    return new URL(ref, base);
  } catch {
    return null;
  }
}

/**
 * tag:nth-of-type(k) segments up to the nearest ancestor with an id (or the root), at most
 * MAX_PATH_SEGMENTS; k is written only past 1, so a later sibling added leaves the path unchanged.
 */
function pathOf(element: Element): string {
  const segments: string[] = [];
  let node: Element | null = element;
  while (node && segments.length < MAX_PATH_SEGMENTS) {
    const id = attr(node, 'id')?.trim();
    if (id && node !== element) {
      segments.push(`${node.name}#${id.slice(0, MAX_KEY_VALUE)}`);
      return segments.reverse().join('>');
    }
    segments.push(segmentOf(node));
    const parent: AnyNode | null = node.parent;
    node = parent && isTag(parent) ? parent : null;
  }
  const path = segments.reverse().join('>');
  return node ? `…>${path}` : path;
}

// Headings are counted among all sibling headings, not their own level, so changing an <h4> to
// <h3> (the usual fix) leaves the places of the other headings beside it unchanged.
const HEADING_TAG = /^h[1-6]$/;

/** Each element's place among its like siblings, counted once per parent (so many siblings cost linear time, not quadratic). */
const siblingPlace = new WeakMap<Element, number>();

function placeAmongSiblings(element: Element): number {
  const known = siblingPlace.get(element);
  if (known !== undefined) return known;
  const counts = new Map<string, number>();
  for (const sibling of element.parent?.children ?? []) {
    if (!isTag(sibling)) continue;
    const kind = HEADING_TAG.test(sibling.name) ? 'h*' : sibling.name;
    const k = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, k);
    siblingPlace.set(sibling, k);
  }
  return siblingPlace.get(element) ?? 1;
}

function segmentOf(element: Element): string {
  if (!element.parent) return element.name;
  const heading = HEADING_TAG.test(element.name);
  const k = placeAmongSiblings(element);
  if (k <= 1) return element.name;
  return heading ? `${element.name}:nth-heading(${k})` : `${element.name}:nth-of-type(${k})`;
}

function newlineOffsets(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineFor(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
