// The web family's conversions as pure functions of text: XML, JSON, YAML and CSV. Each parses
// with limits (XML: no DTD, no entities, bounded depth; YAML: a bounded alias count, the core
// schema, no custom tags; JSON: bounded depth) and answers 422 with the document's own fault.
import { isScalar, parseAllDocuments, stringify as stringifyYaml, visit, type Document } from 'yaml';
import { ServiceError } from '../../core/errors.ts';
import { parseXml, NCNAME_START, NOT_NCNAME_CHAR, XML_NCNAME, type XmlElement, type XmlLimits, DEFAULT_XML_LIMITS } from './xml-parser.ts';
import { BoundedText, boundedJson, MAX_OUTPUT_CHARS, outputTooLarge } from './bounded-output.ts';

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
    // Binary data (YAML !!binary) is a leaf: walking its bytes would cost a step per byte.
    if (current === null || typeof current !== 'object' || ArrayBuffer.isView(current)) continue;
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
  // No prototype: an element or attribute named __proto__ is a key like any other.
  const out = Object.create(null) as { [key: string]: Json };
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
  const top = Object.create(null) as { [key: string]: Json };
  top[root.name] = elementToJson(root, 0);
  return boundedJson(top, 'JSON');
}

/** Characters XML 1.0 does not allow anywhere (controls, lone surrogates, U+FFFE/FFFF); each becomes U+FFFD. */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Text as XML character data: markup characters escaped, characters XML 1.0 forbids replaced by
 * U+FFFD, and a carriage return (and in an attribute, tab and line feed) written as a character
 * reference so that a reader's line-end and attribute normalisation gives back the same text.
 */
function escapeXml(value: string, attribute = false): string {
  const escaped = value.replace(NOT_XML_CHAR, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
  return attribute ? escaped.replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;') : escaped;
}

/**
 * A JSON key as an XML name without a colon (an NCName, so no key makes an undeclared namespace
 * prefix): kept when it is one, else each character that cannot be in one becomes "_", and "_"
 * leads when the first cannot start a name or the name starts with the reserved "xml".
 */
export function xmlName(key: string): string {
  if (XML_NCNAME.test(key) && !/^xml/i.test(key)) return key;
  const replaced = key.replace(NOT_NCNAME_CHAR, '_');
  return NCNAME_START.test(replaced) && !/^xml/i.test(replaced) ? replaced : `_${replaced}`;
}

/** An attribute name not yet used on this element: keys that map to the same name get _2, _3 ... */
function uniqueAttribute(name: string, used: Set<string>): string {
  let unique = name;
  for (let n = 2; used.has(unique); n++) unique = `${name}_${n}`;
  used.add(unique);
  return unique;
}

function scalarText(value: Json): string {
  return value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}

function writeElement(name: string, value: Json, indent: string, out: BoundedText, depth: number): void {
  if (depth > MAX_DEPTH) throw tooDeep('JSON');
  const tag = xmlName(name);
  if (Array.isArray(value)) {
    for (const item of value) writeElement(name, item, indent, out, depth + 1);
    return;
  }
  if (value === null || typeof value !== 'object') {
    const text = scalarText(value);
    out.push(text === '' ? `\n${indent}<${tag}/>` : `\n${indent}<${tag}>${escapeXml(text)}</${tag}>`);
    return;
  }
  const attributes: string[] = [];
  const attributeNames = new Set<string>();
  const children: [string, Json][] = [];
  let text: string | null = null;
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith('@') && key.length > 1 && (child === null || typeof child !== 'object')) attributes.push(` ${uniqueAttribute(xmlName(key.slice(1)), attributeNames)}="${escapeXml(scalarText(child), true)}"`);
    else if (key === '#text' && (child === null || typeof child !== 'object')) text = scalarText(child);
    else children.push([key, child]);
  }
  const open = `\n${indent}<${tag}${attributes.join('')}`;
  if (children.length === 0) {
    out.push(text === null || text === '' ? `${open}/>` : `${open}>${escapeXml(text)}</${tag}>`);
    return;
  }
  out.push(`${open}>${text === null ? '' : escapeXml(text)}`);
  for (const [key, child] of children) writeElement(key, child, `${indent}  `, out, depth + 1);
  out.push(`\n${indent}</${tag}>`);
}

/**
 * JSON as XML, the inverse of xmlToJson: an object with one key (not an array) names the root,
 * anything else is wrapped in <root>; "@name" keys are attributes, "#text" the element's text,
 * arrays repeat their key's element (items of a top-level array are <item>).
 */
export function jsonToXml(json: string): string {
  const value = parseJson(json);
  const out = new BoundedText('XML');
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  const keys = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const single = keys.length === 1 && !keys[0]!.startsWith('@') && keys[0] !== '#text' ? keys[0]! : null;
  if (single !== null && !Array.isArray((value as Record<string, Json>)[single])) {
    writeElement(single, (value as Record<string, Json>)[single]!, '', out, 0);
  } else if (Array.isArray(value)) {
    out.push('\n<root>');
    for (const item of value) writeElement('item', item, '  ', out, 1);
    out.push('\n</root>');
  } else {
    writeElement('root', value, '', out, 0);
  }
  out.push('\n');
  return out.toString();
}

// ---- YAML ----

function parseYaml(text: string): Json {
  let parsed: ReturnType<typeof parseAllDocuments>;
  try {
    // The library's own unique-key check compares each key with every key before it (50,000 keys
    // took a minute); assertUniqueKeys does it with one set per mapping.
    parsed = parseAllDocuments(text, { schema: 'core', customTags: [], uniqueKeys: false, prettyErrors: false, strict: true });
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
    assertUniqueKeys(document);
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

/** 422 when a mapping repeats a key (scalar keys compared by value, as the library compares them). */
function assertUniqueKeys(document: Document): void {
  visit(document, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) throw corrupt('YAML', 'Map keys must be unique');
        seen.add(pair.key.value);
      }
    },
  });
}

/** YAML (1.2 core schema) as JSON; a stream of several documents becomes an array of them. */
export function yamlToJson(yaml: string): string {
  // Written under a bound: aliases can repeat a large node (each expansion is written out).
  return boundedJson(parseYaml(yaml), 'JSON');
}

/**
 * JSON as YAML. Written with YAML 1.1's rules for what needs quotes, so that strings such as
 * "yes", "on", "012" or "2001-12-14" stay strings for 1.1 readers (PyYAML, many CI tools) as
 * well as 1.2 ones; the text itself is valid 1.2.
 */
export function jsonToYaml(json: string): string {
  const value = parseJson(json);
  assertYamlSize(value, MAX_OUTPUT_CHARS);
  return stringifyYaml(value, { version: '1.1', aliasDuplicateObjects: false, lineWidth: 0 });
}

/**
 * Refuses a value whose YAML would pass `limit` characters, before writing it: block YAML indents
 * every line by its depth (a deep document grows by the square of its depth), and a multi-line
 * string's lines each carry their indentation. The count is an upper bound: a key or string as
 * JSON quotes it (YAML's quoting is no longer), plus each line's indentation.
 */
function assertYamlSize(value: Json, limit: number): void {
  let size = 0;
  const pending: [Json, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    const indent = 2 * depth + 4;
    if (current !== null && typeof current === 'object') {
      if (Array.isArray(current)) for (const item of current) pending.push([item, depth + 1]);
      else {
        for (const [key, item] of Object.entries(current)) {
          size += indent + JSON.stringify(key).length;
          pending.push([item, depth + 1]);
        }
      }
      size += indent;
    } else if (typeof current === 'string') {
      let lines = 0;
      for (let at = current.indexOf('\n'); at !== -1; at = current.indexOf('\n', at + 1)) lines++;
      size += indent + JSON.stringify(current).length + lines * indent;
    } else size += indent + String(current).length;
    if (size > limit) throw outputTooLarge('YAML', limit);
  }
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
export function jsonToCsv(json: string, options: CsvOptions, limit: number = MAX_OUTPUT_CHARS): string {
  const value = parseJson(json);
  const rows: Json[] = Array.isArray(value) ? value : [value];
  const out = new BoundedText('CSV', limit);
  const line = (cells: string[]): void => out.push(`${cells.join(options.delimiter)}\r\n`);
  if (rows.every((row) => Array.isArray(row))) {
    for (const row of rows as Json[][]) line(row.map((cell) => csvCell(cell, options)));
  } else if (rows.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))) {
    // Each key's column, in the order keys first appear: one map lookup per key.
    const columnOf = new Map<string, number>();
    for (const row of rows as Record<string, Json>[]) {
      for (const key of Object.keys(row)) if (!columnOf.has(key)) columnOf.set(key, columnOf.size);
    }
    const columns = [...columnOf.keys()];
    // Every row has a cell (at least its delimiter) in every column: rows of distinct keys make a
    // table of rows x columns, refused before it is written.
    const cells = (rows.length + (options.header ? 1 : 0)) * Math.max(0, columns.length - 1);
    if (cells > limit) {
      throw outputTooLarge('CSV', limit, `${rows.length} rows with ${columns.length} distinct keys make a table of ${rows.length} x ${columns.length} cells, more than the ${limit} characters a result may have; give rows that share their keys`);
    }
    if (options.header) line(columns.map((column) => csvCell(column, options)));
    for (const row of rows as Record<string, Json>[]) {
      const cellsOfRow: string[] = new Array<string>(columns.length).fill('');
      for (const [key, cell] of Object.entries(row)) cellsOfRow[columnOf.get(key)!] = csvCell(cell, options);
      line(cellsOfRow);
    }
  } else if (rows.every((row) => row === null || typeof row !== 'object')) {
    if (options.header) out.push('value\r\n');
    for (const row of rows) out.push(`${csvCell(row, options)}\r\n`);
  } else {
    throw new ServiceError(422, 'unprocessable_input', 'The JSON cannot be laid out as CSV rows', {
      detail: 'give an array of objects (one column per key), an array of arrays (rows as they are) or an array of values; this array mixes them',
    });
  }
  return out.toString();
}
