// The resource check between pandoc's two passes, on the document as JSON: every image and every
// raw-HTML reference a writer could read is resolved the way pandoc would resolve it (percent-
// decoded, repeatedly so that double encoding is caught; backslashes as slashes; `file:` URLs;
// relative to the job's folder; symlinks followed) and judged afterwards. Only a regular file
// inside the job's own folder stays, rewritten to its real path so the writer reads exactly what
// was judged; anything else is dropped, keeping an image's caption. Raw HTML keeps `data:` URIs
// only: its attributes go through entity decoding in pandoc's HTML parser, which this check does
// not try to mirror. The sandbox (src/engines/sandbox.ts) is the second layer: even a reference
// this check missed could only reach the job's folder.
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { pandocNodes, type PandocNode } from './pandoc-ast.ts';

/** Metadata a writer reads as a file name (the EPUB cover and stylesheets, a reference doc). */
const FILE_METADATA = ['cover-image', 'epub-cover-image', 'stylesheet', 'css', 'reference-doc', 'epub-fonts', 'epub-embed-font', 'bibliography', 'csl', 'citation-abbreviations'];

/** Attributes through which an HTML element loads something (links of <a>/<area> are not loads). */
const LOADING_ATTRIBUTE = /(\s)((?:xlink:)?href|src|srcset|data|poster|background|lowsrc|dynsrc|longdesc|codebase|action|formaction|manifest|cite)(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'>]+)/gi;
const TAG = /<([a-zA-Z][\w:-]*)(\s[^>]*)?>/g;


/** Percent-decodes until nothing changes; null when it keeps changing or is malformed. */
export function fullyDecoded(value: string): string | null {
  let current = value;
  for (let round = 0; round < 8; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      // A lone % that is not an escape: decode the valid escapes only.
      next = current.replace(/%[0-9a-fA-F]{2}/g, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
    }
    if (next === current) return current;
    current = next;
  }
  return null;
}

/**
 * The real path of the file `src` names when it is a regular file inside `jobDir` (itself a real
 * path), else null. Data URIs are the caller's business.
 */
export async function resolveInside(src: string, jobDir: string): Promise<string | null> {
  const decoded = fullyDecoded(src.trim());
  if (decoded === null || decoded.includes('\0')) return null;
  let name = decoded.replace(/\\/g, '/');
  if (/^file:/i.test(name)) {
    name = name.replace(/^file:(\/\/[^/]*)?/i, '');
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(name)) {
    return null; // http:, ftp:, a drive letter, ...: never a file of this job
  }
  if (name === '' || name.startsWith('~')) return null;
  // pandoc reads "img.png?x" and "img.png#y" as the file "img.png": judge that file.
  name = name.replace(/[?#].*$/, '');
  const candidate = path.resolve(jobDir, name);
  let real: string;
  try {
    real = await realpath(candidate);
    if (!(await stat(real)).isFile()) return null;
  } catch {
    return null;
  }
  if (!real.startsWith(jobDir + path.sep)) return null;
  // The writer percent-decodes what it is given: a real path must mean itself.
  if (/[%\\]/.test(real)) return null;
  return real;
}

/** Blanks every loading reference in raw HTML but `data:` URIs (see the file comment). */
export function neutraliseRawHtml(html: string): string {
  return html.replace(TAG, (tag: string, name: string) => {
    if (/^(a|area)$/i.test(name)) return tag;
    return tag.replace(LOADING_ATTRIBUTE, (whole, space: string, attribute: string, equals: string, value: string) => {
      const bare = value.replace(/^["']|["']$/g, '').trim();
      return /^data:/i.test(bare) && !/[<>]/.test(bare) ? whole : `${space}${attribute}${equals}""`;
    });
  });
}

function isHtmlFormat(format: unknown): boolean {
  return typeof format === 'string' && /^html/i.test(format);
}

/**
 * Applies the check to a pandoc JSON document in place and returns it.
 */
export async function confineResources(document: PandocNode, jobDir: string): Promise<PandocNode> {
  const root = await realpath(jobDir);
  const meta = document.meta;
  if (meta && typeof meta === 'object') {
    for (const key of FILE_METADATA) delete (meta as Record<string, unknown>)[key];
  }
  for (const node of pandocNodes(document)) {
    if (node.t === 'Image' && Array.isArray(node.c)) {
      const [, caption, target] = node.c as [unknown, unknown, unknown];
      const src = Array.isArray(target) && typeof target[0] === 'string' ? target[0] : '';
      if (/^data:/i.test(src.trim())) {
        // Inline data: nothing to read from disk.
      } else {
        const real = await resolveInside(src, root);
        if (real === null) {
          node.t = 'Span';
          node.c = [['', [], []], Array.isArray(caption) ? caption : []];
        } else {
          (target as unknown[])[0] = real;
        }
      }
    } else if ((node.t === 'RawInline' || node.t === 'RawBlock') && Array.isArray(node.c) && isHtmlFormat(node.c[0]) && typeof node.c[1] === 'string') {
      node.c[1] = neutraliseRawHtml(node.c[1]);
    }
  }
  return document;
}
