// Text and the formats that are text: RTF (by its {\rtf signature), and UTF-8 text without NUL
// bytes, which the plain-text formats (txt, md, csv, html, json, xml, yaml) all accept; HTML is
// flagged (a whole document gets text/html). Anything else is `unknown`. Text kinds carry no
// up-front safety check: what an engine must not do with them (DTDs in XML, scripts in HTML) is
// the converting engine's or the sanitiser's.
import { defineContainer, sameKind, startsWith, type Detection } from './container-definition.ts';

/**
 * The head as text if it is valid UTF-8 without NUL bytes (a BOM is allowed). When the file goes
 * on past the head, a character cut at the boundary is not an error.
 */
export function decodeUtf8Head(head: Buffer, truncated: boolean): string | undefined {
  if (head.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: truncated });
  } catch {
    return undefined;
  }
}

const HTML_START = /^(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i;
const HTML_TAG =
  /<(?:p|div|span|h[1-6]|br|hr|img|a|ul|ol|li|table|thead|tbody|tr|td|th|b|i|em|strong|pre|code|blockquote|section|article|header|footer|nav|main|form|input|meta|title|link|style|script|iframe|svg)(?:\s[^<>]*)?\/?>/i;

/** Whether text looks like HTML: a whole document (doctype, html/head/body first) or a fragment with HTML tags. */
export function htmlShape(text: string): 'document' | 'fragment' | undefined {
  let rest = text.replace(/^\uFEFF/, '');
  // Leading whitespace, an XML declaration and comments.
  for (;;) {
    const trimmed = rest.replace(/^\s+/, '');
    if (trimmed.startsWith('<!--')) {
      const end = trimmed.indexOf('-->');
      if (end < 0) return undefined;
      rest = trimmed.slice(end + 3);
    } else if (trimmed.startsWith('<?xml')) {
      const end = trimmed.indexOf('?>');
      if (end < 0) return undefined;
      rest = trimmed.slice(end + 2);
    } else {
      rest = trimmed;
      break;
    }
  }
  if (HTML_START.test(rest)) return 'document';
  return HTML_TAG.test(text) ? 'fragment' : undefined;
}

// An SVG is XML text: the text formats take it as they took it before it had a kind of its own.
const isText = (detection: Detection): boolean => detection.kind === 'text' || detection.kind === 'svg';
const text = (mimeType: string, extensions: readonly string[]) => ({ mimeType, extensions, matches: isText });

export const textFiles = defineContainer({
  name: 'text',
  detected: {
    rtf: { mimeType: 'application/rtf', describedAs: 'RTF', noun: 'RTF document' },
    text: { mimeType: 'text/plain', describedAs: 'plain text', noun: 'text' },
  },
  accepted: {
    rtf: { mimeType: 'application/rtf', extensions: ['rtf'], matches: sameKind('rtf') },
    txt: text('text/plain; charset=utf-8', ['txt']),
    md: text('text/markdown; charset=utf-8', ['md', 'markdown']),
    html: text('text/html; charset=utf-8', ['html', 'htm']),
    csv: text('text/csv; charset=utf-8', ['csv']),
    json: text('application/json', ['json']),
    xml: text('application/xml', ['xml']),
    yaml: text('application/yaml', ['yaml', 'yml']),
  },
  detect({ head, size }): Detection<'rtf' | 'text'> | undefined {
    if (startsWith(head, '{\\rtf')) return { kind: 'rtf', mimeType: 'application/rtf' };
    const decoded = decodeUtf8Head(head, size > head.length);
    if (decoded === undefined) return undefined;
    const html = htmlShape(decoded);
    if (html === 'document') return { kind: 'text', mimeType: 'text/html', isHtml: true };
    return html === 'fragment' ? { kind: 'text', mimeType: 'text/plain', isHtml: true } : { kind: 'text', mimeType: 'text/plain' };
  },
});
