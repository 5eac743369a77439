// Bounds checked before pandoc runs, because pandoc 2.17 has none of its own: its readers are
// superlinear in nesting (50,000 `>` levels in 200 KB of markdown take ~54 s; ten nested `[` take
// the `markdown` reader over 20 s) and it converts ~100 KB of text a second here. The measures are
// cheap single passes over the text that err on the high side: an estimate can refuse a contrived
// file, never let a deep one through. Each refusal is 422 `document_too_complex` naming the limit.
import { readFile } from 'node:fs/promises';
import { tooComplex, type ServiceError } from '../core/errors.ts';

export interface PandocLimits {
  /** text input (markdown, HTML, LaTeX, ...) in bytes (default 4 MiB) */
  maxInputBytes?: number;
  /** block nesting (quotes, lists, HTML elements) and inline nesting (default 200) */
  maxDepth?: number;
  /** nested brackets in one paragraph for pandoc's own markdown reader (default 8) */
  maxBracketDepth?: number;
}

/** Readers whose input is text (the rest are zip containers, bounded by the zip guard). */
const TEXT_READERS = new Set(['markdown', 'markdown_strict', 'markdown_phpextra', 'markdown_mmd', 'gfm', 'commonmark', 'commonmark_x', 'html', 'html4', 'html5', 'latex', 'rst', 'org', 'textile', 'mediawiki', 'dokuwiki', 'tikiwiki', 'twiki', 'vimwiki', 'creole', 'jira', 'muse', 'haddock', 'man', 'opml', 'docbook', 'jats', 'fb2', 't2t', 'rtf', 'csv', 'tsv', 'json', 'native', 'ipynb', 'bibtex', 'biblatex', 'csljson', 'endnotexml', 'ris']);
/** pandoc's own markdown readers: exponential in nested brackets. */
const PANDOC_MARKDOWN = new Set(['markdown', 'markdown_strict', 'markdown_phpextra', 'markdown_mmd']);
const MARKDOWN = new Set([...PANDOC_MARKDOWN, 'gfm', 'commonmark', 'commonmark_x']);
const HTML = new Set(['html', 'html4', 'html5']);

/** Elements that hold nothing, or whose end tag may be left out (so they never nest deeply). */
const NOT_NESTING = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen', 'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'option', 'optgroup', 'colgroup', 'caption', 'rb', 'rt', 'rp', 'rtc', 'html', 'head', 'body', '!doctype']);


/** Throws 422 document_too_complex when the input of `reader` is over the limits. */
export async function checkPandocInput(file: string, reader: string, size: number, limits: PandocLimits = {}): Promise<void> {
  const base = reader.replace(/[+-].*$/, '');
  if (!TEXT_READERS.has(base)) return;
  const maxBytes = limits.maxInputBytes ?? 4 * 1024 * 1024;
  if (size > maxBytes) {
    throw tooComplex(
      `The document is too large for this conversion (at most ${formatBytes(maxBytes)} of text)`,
      `The file holds ${size} bytes of ${base}; the limit for text converted by pandoc is ${maxBytes} bytes`,
    );
  }
  if (!MARKDOWN.has(base) && !HTML.has(base)) return;
  const text = await readFile(file, 'utf8');
  const maxDepth = limits.maxDepth ?? 200;
  if (HTML.has(base)) {
    const depth = htmlDepth(text, maxDepth);
    if (depth > maxDepth) throw nestedTooDeeply('HTML elements', maxDepth);
    return;
  }
  const measured = markdownDepths(text, maxDepth);
  if (measured.blocks > maxDepth) throw nestedTooDeeply('quotes and lists', maxDepth);
  if (measured.html > maxDepth) throw nestedTooDeeply('HTML elements', maxDepth);
  if (measured.emphasis > maxDepth) throw nestedTooDeeply('emphasis', maxDepth);
  const maxBrackets = PANDOC_MARKDOWN.has(base) ? (limits.maxBracketDepth ?? 8) : maxDepth;
  if (measured.brackets > maxBrackets) throw nestedTooDeeply('brackets (links and images)', maxBrackets);
}

function nestedTooDeeply(what: string, limit: number): ServiceError {
  return tooComplex(`The document nests ${what} too deeply to convert (at most ${limit} levels)`, `${what} nested over ${limit} levels deep; flatten the document or split it`);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

/**
 * Depth of open HTML elements, stopping once over `limit`. Comments, scripts and styles are
 * skipped; a closing tag closes back to its element when it is open and is ignored otherwise.
 */
export function htmlDepth(text: string, limit: number, stack: string[] = []): number {
  let max = stack.length;
  let lower: string | null = null;
  const tag = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z!][\w:-]*)((?:"[^"]*"|'[^']*'|[^'">])*)>/g;
  let match: RegExpExecArray | null;
  while ((match = tag.exec(text)) !== null) {
    const name = match[2]?.toLowerCase();
    if (name === undefined) continue; // a comment
    if (match[1] === '/') {
      const at = stack.lastIndexOf(name);
      if (at !== -1) stack.length = at;
      continue;
    }
    if (name === 'script' || name === 'style' || name === 'textarea' || name === 'title') {
      lower ??= text.toLowerCase();
      const end = lower.indexOf(`</${name}`, tag.lastIndex);
      tag.lastIndex = end === -1 ? text.length : end;
      continue;
    }
    if (NOT_NESTING.has(name) || match[3]?.trimEnd().endsWith('/')) continue;
    stack.push(name);
    if (stack.length > max) max = stack.length;
    if (max > limit) return max;
  }
  return max;
}

const SPACE = 32;
const TAB = 9;

/**
 * Markdown nesting: per line, container markers (`>`, list markers) at its start plus half its
 * leading whitespace (a nested list item is indented at least two columns per level); outside
 * fenced code, brackets and emphasis per paragraph and raw HTML elements over the document.
 */
export function markdownDepths(text: string, limit: number): { blocks: number; html: number; brackets: number; emphasis: number } {
  const result = { blocks: 0, html: 0, brackets: 0, emphasis: 0 };
  const htmlStack: string[] = [];
  // An open fence: its marker, and the quote depth and indentation a line needs to stay inside.
  let fence: { marker: string; quotes: number; indent: number } | null = null;
  let brackets = 0;
  let emphasis = 0;
  for (const line of text.split('\n')) {
    const prefix = /^[ \t>]*/.exec(line)![0];
    const quotes = prefix.split('>').length - 1;
    const indent = prefix.replace(/>/g, '').replace(/\t/g, '    ').length;
    const fenceMatch = /^(`{3,}|~{3,})/.exec(line.slice(prefix.length));
    if (fence !== null) {
      // Code ends at its closing fence, or where its container (a quote, a list item) ends: a
      // "fence" pandoc reads as something else cannot hide the rest of the file from this check.
      const inside = line.trim() === '' || (quotes >= fence.quotes && indent >= fence.indent);
      if (inside) {
        if (fenceMatch && fenceMatch[1]![0] === fence.marker[0] && fenceMatch[1]!.length >= fence.marker.length) fence = null;
        const blocks = lineDepth(line);
        if (blocks > result.blocks) result.blocks = blocks;
        continue;
      }
      fence = null;
    }
    if (fenceMatch) {
      fence = { marker: fenceMatch[1]!, quotes, indent };
      const blocks = lineDepth(line);
      if (blocks > result.blocks) result.blocks = blocks;
      continue;
    }
    if (line.trim() === '') {
      brackets = 0;
      emphasis = 0;
      continue;
    }
    const blocks = lineDepth(line);
    if (blocks > result.blocks) result.blocks = blocks;
    if (line.includes('<')) result.html = Math.max(result.html, htmlDepth(line, limit, htmlStack));
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (c === '[') {
        brackets++;
        if (brackets > result.brackets) result.brackets = brackets;
      } else if (c === ']') {
        if (brackets > 0) brackets--;
      } else if (c === '*' || c === '_' || c === '~') {
        let end = i;
        while (line[end + 1] === c) end++;
        const before = i === 0 ? ' ' : line[i - 1]!;
        const after = end + 1 >= line.length ? ' ' : line[end + 1]!;
        emphasis += delimiterEffect(before, after);
        if (emphasis < 0) emphasis = 0;
        if (emphasis > result.emphasis) result.emphasis = emphasis;
        i = end;
      }
    }
    if (result.blocks > limit || result.html > limit) break;
  }
  return result;
}

function lineDepth(line: string): number {
  let depth = 0;
  let columns = 0;
  let i = 0;
  while (i < line.length) {
    const code = line.charCodeAt(i);
    if (code === SPACE) {
      columns++;
      i++;
    } else if (code === TAB) {
      columns += 4;
      i++;
    } else if (line[i] === '>') {
      depth++;
      i++;
    } else {
      const marker = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/.exec(line.slice(i, i + 11));
      if (marker === null) break;
      depth++;
      i += marker[0].length;
    }
  }
  return depth + Math.floor(columns / 2);
}

const WORD = /[\p{L}\p{N}]/u;
const BLANK = /\s/;

/**
 * +1 for a delimiter run that can open emphasis, -1 for one that can only close it, 0 inside a
 * word (snake_case). A run that can do both counts as opening: the estimate errs high.
 */
function delimiterEffect(before: string, after: string): number {
  const beforeBlank = BLANK.test(before);
  const afterBlank = BLANK.test(after);
  const beforePunct = !beforeBlank && !WORD.test(before);
  const afterPunct = !afterBlank && !WORD.test(after);
  const left = !afterBlank && (!afterPunct || beforeBlank || beforePunct);
  const right = !beforeBlank && (!beforePunct || afterBlank || afterPunct);
  if (left && right) return WORD.test(before) && WORD.test(after) ? 0 : 1;
  if (left) return 1;
  if (right) return -1;
  return 0;
}
