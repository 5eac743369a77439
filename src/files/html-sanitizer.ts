import { Worker } from 'node:worker_threads';
import sanitize from 'sanitize-html';
import { ServiceError } from '../core/errors.ts';

// Every HTML a conversion hands back goes through this allow-list, because the engines copy
// markup they were given: pandoc's gfm reader keeps raw HTML (2.17 ignores -raw_html), docx
// hyperlinks and PDF link annotations may point at javascript:, and pdftohtml writes PDF font
// names into its stylesheet unescaped. Whoever opens the result must get a document, never a
// program: what a document needs is kept, everything else (scripts, frames, objects, forms,
// event handlers, inline SVG, <base>, refresh) is dropped, not escaped.

const TEXT_TAGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div', 'span', 'br', 'hr', 'wbr', 'blockquote', 'pre', 'code', 'kbd', 'samp', 'var'];
const SECTION_TAGS = ['section', 'article', 'header', 'footer', 'nav', 'main', 'aside', 'figure', 'figcaption', 'details', 'summary'];
const INLINE_TAGS = ['a', 'em', 'strong', 'b', 'i', 'u', 's', 'del', 'ins', 'mark', 'small', 'sub', 'sup', 'abbr', 'cite', 'q', 'dfn', 'img'];
const LIST_TAGS = ['ul', 'ol', 'li', 'dl', 'dt', 'dd'];
const TABLE_TAGS = ['table', 'caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td'];
// A standalone page keeps its frame; `input` only as the disabled checkbox of a gfm task list.
const PAGE_TAGS = ['html', 'head', 'title', 'meta', 'style', 'body', 'input'];

/** Raster images only: an SVG data URL is a document that may carry scripts of its own. */
const RASTER_DATA_URL = /^data:image\/(png|jpe?g|gif|webp)[;,]/i;

// Inline style values may not call anything: no parentheses (url(), expression(), image-set()),
// no backslash escapes, no colons; keeps lengths, keywords, colours and font names.
const PLAIN_VALUE = /^[-\w\s#%.,'"]+$/;
const STYLE_PROPERTIES = [
  'text-align', 'vertical-align', 'width', 'height', 'min-width', 'max-width', 'top', 'left', 'right', 'bottom', 'white-space',
  'font-size', 'font-weight', 'font-style', 'font-family', 'color', 'background-color', 'text-decoration', 'line-height', 'text-indent',
  'margin', 'margin-top', 'margin-right', 'margin-bottom', 'margin-left', 'padding', 'padding-top', 'padding-right', 'padding-bottom',
  'padding-left', 'border', 'border-collapse', 'list-style-type', 'display', 'float', 'clear',
];
const ALLOWED_STYLES: Record<string, RegExp[]> = Object.fromEntries(STYLE_PROPERTIES.map((property) => [property, [PLAIN_VALUE]]));
// pdftohtml places each line absolutely inside its page box; fixed or sticky could cover a host page.
ALLOWED_STYLES.position = [/^(absolute|relative|static)$/i];

/**
 * A `<style>` block is kept (pandoc's typography, pdftohtml's font classes) only when it can load
 * nothing and run nothing: no url()/image-set()/src(), no @import/@font-face/@namespace, no
 * expression()/behavior/-moz-binding, no CSS escapes (a backslash could spell any of these) and no
 * `<` (so no markup can hide in it). Otherwise the whole block is dropped: the text stays readable.
 */
const UNSAFE_CSS = /[\\<]|@import|@font-face|@namespace|url\s*\(|image-set|image\s*\(|src\s*\(|element\s*\(|expression|behavio(u)?r|binding|javascript|vbscript/i;

function isSafeCss(css: string): boolean {
  const bare = css.replace(/<!--|-->/g, ' ').replace(/\/\*[\s\S]*?(\*\/|$)/g, ' ');
  return !UNSAFE_CSS.test(bare);
}

/** The characters a browser ignores inside a URL scheme (`java\tscript:`, `\x01data:`). */
function compactUrl(url: string): string {
  // eslint-disable-next-line no-control-regex
  return url.replace(/[\x00-\x20\x7f]+/g, '');
}

// allowedEmptyAttributes is a sanitize-html 2.x option its type definitions do not list yet.
const OPTIONS: sanitize.IOptions & { allowedEmptyAttributes: string[] } = {
  allowedTags: [...PAGE_TAGS, ...TEXT_TAGS, ...SECTION_TAGS, ...INLINE_TAGS, ...LIST_TAGS, ...TABLE_TAGS],
  allowedAttributes: {
    '*': ['id', 'class', 'title', 'lang', 'dir', 'style'],
    html: ['xmlns', 'xml:lang'],
    meta: ['charset', 'name', 'content', 'http-equiv'],
    style: ['type', 'media'],
    body: ['bgcolor', 'link', 'vlink'],
    a: ['href', 'name'],
    img: ['src', 'alt', 'width', 'height'],
    td: ['colspan', 'rowspan', 'align'],
    th: ['colspan', 'rowspan', 'align', 'scope'],
    col: ['span', 'width'],
    ol: ['start', 'type', 'reversed'],
    li: ['value'],
    q: ['cite'],
    blockquote: ['cite'],
    input: ['type', 'checked', 'disabled'],
  },
  allowedEmptyAttributes: ['alt', 'checked', 'disabled', 'reversed'],
  // Links: the web, mail, and relative or #fragment targets (those have no scheme). Images also
  // data: URLs, narrowed to raster types in transformTags.
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  // `//host/x` is a network address in disguise; a document's relative links have no host.
  allowProtocolRelative: false,
  allowedStyles: { '*': ALLOWED_STYLES },
  allowVulnerableTags: true,
  disallowedTagsMode: 'discard',
  transformTags: {
    img: (tagName, attribs) => {
      const src = attribs.src === undefined ? '' : compactUrl(attribs.src);
      if (/^data:/i.test(src) && !RASTER_DATA_URL.test(src)) {
        const { src: _dropped, ...rest } = attribs;
        return { tagName, attribs: rest };
      }
      return { tagName, attribs };
    },
    // Task-list boxes show a state; they are never a control that submits anything.
    input: (tagName, attribs) => ({
      tagName,
      attribs: { type: attribs.type ?? '', disabled: '', ...(attribs.checked === undefined ? {} : { checked: '' }) },
    }),
  },
  exclusiveFilter: (frame) => {
    if (frame.tag === 'style') return !isSafeCss(frame.text);
    if (frame.tag === 'input') return frame.attribs.type?.toLowerCase() !== 'checkbox';
    // Only the charset may be said by http-equiv: refresh, set-cookie and CSP changes are behaviour.
    if (frame.tag === 'meta') {
      const equiv = frame.attribs['http-equiv'];
      return equiv !== undefined && equiv.trim().toLowerCase() !== 'content-type';
    }
    return false;
  },
};

/** An HTML page or fragment with everything but the document taken out. */
export function sanitizeHtml(html: string): string {
  const clean = sanitize(html, OPTIONS);
  // sanitize-html drops the doctype; without it a browser lays the page out in quirks mode.
  return /^\uFEFF?\s*<!doctype html/i.test(html) ? `<!DOCTYPE html>\n${clean}` : clean;
}

const WORKER_URL = new URL('./html-sanitizer-worker.ts', import.meta.url);
/** The heap a sanitiser thread may use: an HTML result is at most the output limit, held a few times. */
const WORKER_HEAP_MB = 1536;

/**
 * Sanitises the HTML file at `inputPath` into `outputPath` (they may be the same) on a worker
 * thread, so the event loop stays free; an abort ends the thread at once.
 */
export function sanitizeHtmlFile(inputPath: string, outputPath: string, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, { workerData: { inputPath, outputPath }, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    let finished = false;
    let failure: unknown;
    const onAbort = () => void worker.terminate();
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', () => {
      finished = true;
    });
    worker.once('error', (error) => {
      failure = error;
    });
    worker.once('exit', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (finished) resolve();
      else if (signal.aborted) reject(signal.reason);
      else if ((failure as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        reject(new ServiceError(422, 'output_too_large', 'The HTML result is too large to make safe', {
          detail: `Removing scripts and active content from the HTML result needed more than ${WORKER_HEAP_MB} MB of memory; convert a smaller document`,
        }));
      } else reject(failure ?? new Error(`the HTML sanitiser thread exited with code ${code}`));
    });
  });
}
