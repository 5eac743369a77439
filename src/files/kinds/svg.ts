// SVG: UTF-8 XML whose root element is <svg> (after an XML declaration, comments, processing
// instructions and a DOCTYPE, which may hold an internal subset: a hostile SVG is still typed as
// SVG, so that its safety check refuses it rather than a 415 calling it text). Tried before
// text-like; the text formats still take an SVG as text (text-like.ts), as they did before SVG
// had a kind of its own.
// Safety: the header check (image-header.ts) refuses entity declarations (XXE, billion laughs)
// and a declared size past the pixel limit; what rendering may read (external images, XInclude,
// CSS imports) is the image engine's to strip (engines/image-svg.ts).
import { defineContainer, sameKind, startsWith, type Detection } from './container-definition.ts';
import { assertImageHeaderSafe } from './image-header.ts';
import { decodeUtf8Head } from './text-like.ts';

const MIME = 'image/svg+xml';

/** The text after the prolog (declaration, comments, PIs, DOCTYPE), or undefined when the head ends inside it. */
function afterProlog(text: string): string | undefined {
  let rest = text.replace(/^\uFEFF/, '');
  // Each step consumes one construct; a head of 64 KB holds few of them.
  for (let step = 0; step < 10_000; step++) {
    rest = rest.replace(/^\s+/, '');
    let end: number;
    if (rest.startsWith('<?')) end = rest.indexOf('?>') + 2;
    else if (rest.startsWith('<!--')) end = rest.indexOf('-->') + 3;
    else if (/^<!DOCTYPE\b/i.test(rest)) end = doctypeEnd(rest);
    else return rest;
    if (end <= 2) return undefined;
    rest = rest.slice(end);
  }
  return undefined;
}

/** Where a DOCTYPE ends: after its '>', or after ']>' when it has an internal subset (quoted strings skipped). */
function doctypeEnd(text: string): number {
  let quote: string | null = null;
  let inSubset = false;
  for (let i = 9; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') inSubset = true;
    else if (c === ']') inSubset = false;
    else if (c === '>' && !inSubset) return i + 1;
  }
  return -1;
}

/** The root element is svg (with or without a namespace prefix). */
const SVG_ROOT = /^<(?:[A-Za-z_][\w.-]*:)?svg[\s/>]/;

export const svgFiles = defineContainer({
  name: 'svg',
  detected: {
    svg: { mimeType: MIME, describedAs: 'SVG', noun: 'SVG image' },
  },
  accepted: {
    svg: { mimeType: MIME, extensions: ['svg'], matches: sameKind('svg') },
  },
  detect({ head, size }): Detection<'svg'> | undefined {
    // Most files are ruled out by their first byte that is not a BOM or whitespace.
    let first = startsWith(head, [0xef, 0xbb, 0xbf]) ? 3 : 0;
    while (first < head.length && (head[first] === 0x20 || head[first] === 0x09 || head[first] === 0x0a || head[first] === 0x0d)) first++;
    if (head[first] !== 0x3c) return undefined;
    const text = decodeUtf8Head(head, size > head.length);
    if (text === undefined) return undefined;
    const rest = afterProlog(text);
    return rest !== undefined && SVG_ROOT.test(rest) ? { kind: 'svg', mimeType: MIME } : undefined;
  },
  async assertSafe(path, kind, limits) {
    await assertImageHeaderSafe(path, kind, limits.image);
  },
});
