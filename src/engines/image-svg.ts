// An uploaded SVG is rewritten before librsvg sees it, so that rendering reads nothing but the
// upload itself. What librsvg (2.63, in sharp's libvips) does on its own, found by test
// (test/convertors/image-svg.test.ts): from a file path it loads images and XInclude targets
// under the file's folder (`file:///...` and relative hrefs); from a buffer with no base it loads
// none; external entities are left undefined and a billion-laughs DTD stops at libxml2's
// amplification limit. We render from a buffer AND rewrite the document, so neither layer alone
// is trusted:
// - a DTD internal subset (entity declarations) is refused: no legitimate SVG needs one;
// - a DOCTYPE without one, processing instructions (xml-stylesheet) and comments are dropped;
// - script, foreignObject and XInclude elements are dropped;
// - an href/src that is not a same-document fragment (#id) or an inline raster data: URL is
//   removed, as is any CSS url() that is not a fragment, and every @import.
import { Parser } from 'htmlparser2';
import { DomHandler, isCDATA, isTag, isText, type AnyNode, type Element } from 'domhandler';

export class UnsafeSvgError extends Error {}

/** Names of elements removed with their content (local names, lower-case). */
const DROPPED_ELEMENTS = new Set(['script', 'foreignobject', 'include', 'iframe', 'audio', 'video', 'canvas', 'handler', 'listener']);
const SAFE_HREF = /^\s*(?:#|data:image\/(?:png|jpeg|gif|webp);base64,)/i;
const CSS_URL = /url\(\s*(['"]?)([^'")]*)\1\s*\)/gi;
const CSS_IMPORT = /@import[^;]*;?/gi;
const MAX_SVG_DEPTH = 256;

/** Refuses a DTD internal subset before any parsing: entities are where XXE and billion laughs live. */
export function assertNoInternalSubset(text: string): void {
  if (/<!ENTITY/i.test(text)) throw new UnsafeSvgError('The SVG declares XML entities; entity declarations are refused');
  const doctype = /<!DOCTYPE[^>[]*\[/i.exec(text);
  if (doctype) throw new UnsafeSvgError('The SVG has a DTD internal subset; it is refused');
}

function localName(name: string): string {
  const colon = name.lastIndexOf(':');
  return (colon >= 0 ? name.slice(colon + 1) : name).toLowerCase();
}

function cleanCss(css: string): string {
  return css.replace(CSS_IMPORT, '').replace(CSS_URL, (whole, _q: string, target: string) => (target.trim().startsWith('#') ? whole : 'none'));
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}

/** The cleaned element as XML, or '' when it is dropped. Iterative-safe depth: refused past MAX_SVG_DEPTH. */
function serialize(node: AnyNode, depth: number): string {
  if (depth > MAX_SVG_DEPTH) throw new UnsafeSvgError(`The SVG nests elements deeper than ${MAX_SVG_DEPTH} levels`);
  if (isText(node)) return escapeText(node.data);
  if (isCDATA(node)) return node.children.map((child) => (isText(child) ? escapeText(child.data) : '')).join('');
  if (!isTag(node)) return ''; // comments, processing instructions, the DOCTYPE
  const element = node as Element;
  const local = localName(element.name);
  if (DROPPED_ELEMENTS.has(local)) return '';
  const attributes: string[] = [];
  for (const [name, value] of Object.entries(element.attribs)) {
    const attr = localName(name);
    if (attr.startsWith('on')) continue; // event handlers
    if ((attr === 'href' || attr === 'src') && !SAFE_HREF.test(value)) continue;
    attributes.push(`${name}="${escapeAttribute(value.includes('url(') || attr === 'style' ? cleanCss(value) : value)}"`);
  }
  const inner = element.children
    .map((child) => (local === 'style' && (isText(child) || isCDATA(child)) ? escapeText(cleanCss(isText(child) ? child.data : child.children.map((c) => (isText(c) ? c.data : '')).join(''))) : serialize(child, depth + 1)))
    .join('');
  const open = [element.name, ...attributes].join(' ');
  return inner === '' ? `<${open}/>` : `<${open}>${inner}</${element.name}>`;
}

/**
 * The SVG rewritten so that rendering it reads nothing outside it (see the file comment).
 * Throws UnsafeSvgError for entity declarations and for a document with no <svg> root.
 */
export function sanitizeSvg(text: string): string {
  assertNoInternalSubset(text);
  const handler = new DomHandler();
  const parser = new Parser(handler, { xmlMode: true, decodeEntities: true, recognizeCDATA: true });
  parser.end(text.replace(/^\uFEFF/, ''));
  const root = handler.root.children.find((node): node is Element => isTag(node));
  if (!root || localName(root.name) !== 'svg') throw new UnsafeSvgError('The file has no <svg> root element');
  return serialize(root, 0);
}
