// The web family's conversions as pure functions of text: XML, JSON, YAML and CSV. Each parses
// with limits (XML: no DTD, no entities, bounded depth; YAML: a bounded alias count, the core
// schema, no custom tags; JSON: bounded depth) and answers 422 with the document's own fault.
import { parseAllDocuments, stringify as stringifyYaml, type Document } from 'yaml';
import { ServiceError } from '../../core/errors.ts';
import { parseXml, XML_NAME, type XmlElement, type XmlLimits, DEFAULT_XML_LIMITS } from './xml-parser.ts';

/** Nesting past this is refused: no real document needs it, and writers recurse. */
export const MAX_DEPTH = 256;
/** YAML aliases expanded per document (billion laughs needs millions). */
export const MAX_YAML_ALIASES = 100;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function corrupt(kind: string, detail: string): ServiceError {
  return new ServiceError(422, 'corrupt_document', `The file is not valid ${kind}`, { detail });
}

function tooDeep(kind: string): ServiceError {
  return new ServiceError(422, 'document_too_complex', `The ${kind} nests too deeply`, { detail: `values nest more than ${MAX_DEPTH} deep` });
}

/** UTF-8 text of an upload (a BOM dropped); 422 when the bytes are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array, kind: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw corrupt(kind, 'the file is not UTF-8 text');
  }
}

/** Throws 422 when `value` nests deeper than MAX_DEPTH (walked without recursion). */
export function assertDepth(value: unknown, kind: string): void {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_DEPTH) throw tooDeep(kind);
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
}

export function parseJson(text: string): Json {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (error) {
    throw corrupt('JSON', (error as Error).message);
  }
  assertDepth(value, 'JSON');
  return value;
}

// ---- XML ----

/** The text of an XML document: every text node in document order, whitespace collapsed, one per line. */
export function xmlToText(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS): string {
  const lines: string[] = [];
  // Depth-first in document order without recursion: children pushed in reverse.
  const stack: (XmlElement | string)[] = [parseXml(xml, limits)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === 'string') {
      const line = node.replace(/\s+/g, ' ').trim();
      if (line !== '') lines.push(line);
    } else {
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function elementToJson(element: XmlElement, depth: number): Json {
  if (depth > MAX_DEPTH) throw tooDeep('XML');
  const elements = element.children.filter((child): child is XmlElement => typeof child !== 'string');
  const text = element.children
    .filter((child): child is string => typeof child === 'string')
    .join('')
    .trim();
  if (element.attributes.length === 0 && elements.length === 0) return text;
  const out: { [key: string]: Json } = {};
  for (const [name, value] of element.attributes) out[`@${name}`] = value;
  const counts = new Map<string, number>();
  for (const child of elements) counts.set(child.name, (counts.get(child.name) ?? 0) + 1);
  for (const child of elements) {
    const value = elementToJson(child, depth + 1);
    if ((counts.get(child.name) ?? 0) > 1) {
      const list = (out[child.name] as Json[] | undefined) ?? [];
      list.push(value);
      out[child.name] = list;
    } else out[child.name] = value;
  }
  if (text !== '') out['#text'] = text;
  return out;
}

/**
 * XML as JSON: `{root: ...}`; an element with neither attributes nor child elements is its
 * (trimmed) text; otherwise an object with attributes as "@name", children by name (an array
 * when a name repeats) and its own text as "#text". Values stay strings: nothing is guessed.
 */
export function xmlToJson(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS): string {
  const root = parseXml(xml, limits);
  return `${JSON.stringify({ [root.name]: elementToJson(root, 0) }, null, 2)}\n`;
}

function escapeXml(value: string, attribute = false): string {
  const escaped = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attribute ? escaped.replace(/"/g, '&quot;') : escaped;
}

/** A JSON key as an XML name: kept when valid, else invalid characters become "_" (and "_" leads when it must). */
export function xmlName(key: string): string {
  if (XML_NAME.test(key) && !/^xml/i.test(key)) return key;
  const replaced = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(replaced) && !/^xml/i.test(replaced) ? replaced : `_${replaced}`;
}

function scalarText(value: Json): string {
  return value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}

function writeElement(name: string, value: Json, indent: string, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) throw tooDeep('JSON');
  const tag = xmlName(name);
  if (Array.isArray(value)) {
    for (const item of value) writeElement(name, item, indent, out, depth + 1);
    return;
  }
  if (value === null || typeof value !== 'object') {
    const text = scalarText(value);
    out.push(text === '' ? `${indent}<${tag}/>` : `${indent}<${tag}>${escapeXml(text)}</${tag}>`);
    return;
  }
  const attributes: string[] = [];
  const children: [string, Json][] = [];
  let text: string | null = null;
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith('@') && key.length > 1 && (child === null || typeof child !== 'object')) attributes.push(` ${xmlName(key.slice(1))}="${escapeXml(scalarText(child), true)}"`);
    else if (key === '#text' && (child === null || typeof child !== 'object')) text = scalarText(child);
    else children.push([key, child]);
  }
  const open = `${indent}<${tag}${attributes.join('')}`;
  if (children.length === 0) {
    out.push(text === null || text === '' ? `${open}/>` : `${open}>${escapeXml(text)}</${tag}>`);
    return;
  }
  out.push(`${open}>${text === null ? '' : escapeXml(text)}`);
  for (const [key, child] of children) writeElement(key, child, `${indent}  `, out, depth + 1);
  out.push(`${indent}</${tag}>`);
}

/**
 * JSON as XML, the inverse of xmlToJson: an object with one key (not an array) names the root,
 * anything else is wrapped in <root>; "@name" keys are attributes, "#text" the element's text,
 * arrays repeat their key's element (items of a top-level array are <item>).
 */
export function jsonToXml(json: string): string {
  const value = parseJson(json);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const keys = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const single = keys.length === 1 && !keys[0]!.startsWith('@') && keys[0] !== '#text' ? keys[0]! : null;
  if (single !== null && !Array.isArray((value as Record<string, Json>)[single])) {
    writeElement(single, (value as Record<string, Json>)[single]!, '', out, 0);
  } else if (Array.isArray(value)) {
    out.push('<root>');
    for (const item of value) writeElement('item', item, '  ', out, 1);
    out.push('</root>');
  } else {
    writeElement('root', value, '', out, 0);
  }
  return `${out.join('\n')}\n`;
}

// ---- YAML ----

function parseYaml(text: string): Json {
  let parsed: ReturnType<typeof parseAllDocuments>;
  try {
    parsed = parseAllDocuments(text, { schema: 'core', customTags: [], uniqueKeys: true, prettyErrors: false, strict: true });
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep('YAML');
    throw error;
  }
  // An empty stream comes back as an empty list-like object, not an array.
  const documents: Document[] = Array.isArray(parsed) ? parsed : [];
  const values: Json[] = [];
  for (const document of documents) {
    const error = document.errors[0];
    if (error && /call stack/i.test(error.message)) throw tooDeep('YAML');
    if (error) throw corrupt('YAML', error.message.split('\n')[0]!);
    const tag = document.warnings.find((warning) => /tag/i.test(warning.message));
    if (tag) {
      throw new ServiceError(422, 'unsafe_document', 'The YAML uses custom tags, which are not accepted', { detail: tag.message.split('\n')[0]! });
    }
    try {
      values.push(document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as Json);
    } catch (error) {
      if (error instanceof RangeError) throw tooDeep('YAML');
      if (/alias/i.test((error as Error).message)) {
        throw new ServiceError(422, 'document_bomb', 'The YAML expands its aliases too often (an alias bomb?)', { detail: `${(error as Error).message}; at most ${MAX_YAML_ALIASES} alias expansions are allowed` });
      }
      throw corrupt('YAML', (error as Error).message);
    }
  }
  const value = values.length === 1 ? values[0]! : values;
  assertDepth(value, 'YAML');
  return value;
}

/** YAML (1.2 core schema) as JSON; a stream of several documents becomes an array of them. */
export function yamlToJson(yaml: string): string {
  return `${JSON.stringify(parseYaml(yaml), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2)}\n`;
}

/**
 * JSON as YAML. Written with YAML 1.1's rules for what needs quotes, so that strings such as
 * "yes", "on", "012" or "2001-12-14" stay strings for 1.1 readers (PyYAML, many CI tools) as
 * well as 1.2 ones; the text itself is valid 1.2.
 */
export function jsonToYaml(json: string): string {
  const value = parseJson(json);
  return stringifyYaml(value, { version: '1.1', aliasDuplicateObjects: false, lineWidth: 0 });
}

// ---- CSV ----

export interface CsvOptions {
  delimiter: ',' | ';' | '\t' | '|';
  header: boolean;
  /** prefix a ' to cells a spreadsheet would run as formulas (=, +, -, @ and not a number) */
  escapeFormulas: boolean;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function csvCell(value: Json | undefined, options: CsvOptions): string {
  let text = value === undefined || value === null ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (options.escapeFormulas && FORMULA_START.test(text) && !NUMBER.test(text)) text = `'${text}`;
  return /["\r\n]/.test(text) || text.includes(options.delimiter) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * JSON as RFC 4180 CSV (CRLF line ends): an array of objects gives one column per key, in the
 * order keys first appear, and a header row; an array of arrays gives rows as they are; a single
 * object is one row. Nested values are written as JSON in their cell.
 */
export function jsonToCsv(json: string, options: CsvOptions): string {
  const value = parseJson(json);
  const rows: Json[] = Array.isArray(value) ? value : [value];
  const lines: string[] = [];
  if (rows.every((row) => Array.isArray(row))) {
    for (const row of rows as Json[][]) lines.push(row.map((cell) => csvCell(cell, options)).join(options.delimiter));
  } else if (rows.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))) {
    const columns: string[] = [];
    const seen = new Set<string>();
    for (const row of rows as Record<string, Json>[]) {
      for (const key of Object.keys(row)) {
        if (!seen.has(key)) {
          seen.add(key);
          columns.push(key);
        }
      }
    }
    if (options.header) lines.push(columns.map((column) => csvCell(column, options)).join(options.delimiter));
    for (const row of rows as Record<string, Json>[]) lines.push(columns.map((column) => csvCell(row[column], options)).join(options.delimiter));
  } else if (rows.every((row) => row === null || typeof row !== 'object')) {
    if (options.header) lines.push('value');
    for (const row of rows) lines.push(csvCell(row, options));
  } else {
    throw new ServiceError(422, 'unprocessable_input', 'The JSON cannot be laid out as CSV rows', {
      detail: 'give an array of objects (one column per key), an array of arrays (rows as they are) or an array of values; this array mixes them',
    });
  }
  return lines.length === 0 ? '' : `${lines.join('\r\n')}\r\n`;
}
