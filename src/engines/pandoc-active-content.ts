// The second check between pandoc's two passes: what a result could *run* rather than read.
// HTML results are sanitised after the writer (src/files/html-sanitizer.ts), but Markdown and the
// other markup writers pass some of the document through as HTML of their own: a link's target
// stays as given (`[x](javascript:…)`), an image's attributes become HTML attributes
// (`<img onerror=…>`), and raw HTML nodes are written out verbatim. Whoever renders such a
// result gets stored XSS, so, on the document as JSON:
// - a link whose scheme is not web, mail or phone keeps its text and loses its target;
// - element attributes are kept only from a short allow-list (no event handlers, no styles,
//   nothing that loads);
// - raw HTML and TeX are dropped.
// For HTML writers only the link rule applies here: their output goes through the sanitizer.
import { pandocNodes, type PandocNode } from './pandoc-ast.ts';
import { fullyDecoded } from './pandoc-resources.ts';

/** Attributes a writer may carry into its output. */
const SAFE_ATTRIBUTES = new Set(['width', 'height', 'lang', 'dir', 'title', 'alt']);
/** Link schemes a reader of the result may follow. */
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);
/** Node types whose first field is an Attr: [id, classes, [[key, value], ...]]. */
const WITH_ATTR = new Set(['Link', 'Image', 'Span', 'Div', 'Code', 'CodeBlock', 'Header', 'Table', 'Figure']);


/** Whether a link target is safe to keep: relative, a fragment, or an allowed scheme. */
export function safeLinkTarget(target: string): boolean {
  const decoded = fullyDecoded(target);
  if (decoded === null) return false;
  // Browsers skip ASCII whitespace and control characters inside a scheme ("java\tscript:").
  const squeezed = decoded.replace(/[\u0000-\u0020\u007f]/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(squeezed);
  return scheme === null || SAFE_SCHEMES.has(scheme[1]!.toLowerCase());
}

function cleanAttr(attr: unknown): void {
  if (!Array.isArray(attr) || !Array.isArray(attr[2])) return;
  attr[2] = (attr[2] as unknown[]).filter((pair) => Array.isArray(pair) && typeof pair[0] === 'string' && SAFE_ATTRIBUTES.has(pair[0].toLowerCase()));
}

/**
 * Applies the rules above to a pandoc JSON document in place and returns it. `writer` is the
 * target format.
 */
export function neutraliseActiveContent(document: PandocNode, writer: string): PandocNode {
  // HTML output goes through the sanitizer, which judges attributes and raw HTML as a browser would.
  const html = /^html/i.test(writer);
  for (const node of pandocNodes(document)) {
    if (typeof node.t !== 'string' || !Array.isArray(node.c)) continue;
    if (!html && WITH_ATTR.has(node.t)) cleanAttr(node.c[0]);
    if (node.t === 'Link') {
      const target = node.c[2];
      if (Array.isArray(target) && typeof target[0] === 'string' && !safeLinkTarget(target[0])) {
        node.t = 'Span';
        node.c = [node.c[0], node.c[1]];
      }
    } else if (!html && node.t === 'RawBlock') {
      node.t = 'Plain'; // an empty block: writers print nothing for it
      node.c = [];
    } else if (!html && node.t === 'RawInline') {
      node.t = 'Str';
      node.c = '';
    }
  }
  return document;
}
