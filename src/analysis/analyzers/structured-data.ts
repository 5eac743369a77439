// Structured data: every <script type="application/ld+json"> block parsed and checked the way
// Google's rich-result docs describe it: valid JSON (with the position of the error), a schema.org
// @context, an @type, the required and recommended properties of the common rich-result types, and
// value types (prices, ISO 8601 dates, absolute URLs). @graph, arrays and nested items are walked.
// Microdata and RDFa are only counted. Pure: HTML in, report out; bounded in blocks, bytes and items.
import type { Finding, Report } from '../findings.ts';
import { attr, hasAttr, parseHtml, rawTextOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, notApplicable, type Analyzer, type RuleDefinition } from '../scoring.ts';
import type { Element } from 'domhandler';
import { IMPLIED_TYPES, ROLE_SPECS, TYPE_ALIASES, TYPE_SPECS, type TypeSpec } from './structured-data-types.ts';
import {
  STRUCTURED_DATA_RULES,
  checkContext,
  checkMisplacedOffer,
  checkProperties,
  checkSpec,
  checkValues,
  invalidJsonFinding,
  missingTypeFinding,
  type BlockPlace,
} from './structured-data-checks.ts';

export { STRUCTURED_DATA_RULES } from './structured-data-checks.ts';

export const MAX_BLOCKS = 100;
export const MAX_BLOCK_CHARS = 1024 * 1024;
/** Objects walked per block, and how deep, so a hostile block stays cheap. */
const MAX_NODES_PER_BLOCK = 5000;
const MAX_DEPTH = 64;
const MAX_ITEMS_LISTED = 500;

export const rules: readonly RuleDefinition[] = Object.values(STRUCTURED_DATA_RULES);

export interface StructuredDataItem {
  /** 1-based JSON-LD block on the page */
  block: number;
  /** where the item sits in the block, e.g. $.@graph[1].offers */
  path: string;
  types: string[];
  properties: string[];
  /** a top-level item (the block itself, an array member or an @graph member), not a nested one */
  topLevel: boolean;
}

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, _facts: PageFacts | null, _url: string): Report {
  const scripts = doc.byTag('script').filter((s) => (attr(s, 'type') ?? '').split(';')[0]?.trim().toLowerCase() === 'application/ld+json');
  const findings: Finding[] = [];
  const notes: string[] = [...doc.notes];
  const items: StructuredDataItem[] = [];
  let itemsSeen = 0;
  if (scripts.length > MAX_BLOCKS) notes.push(`${scripts.length} JSON-LD blocks: the first ${MAX_BLOCKS} were read`);

  scripts.slice(0, MAX_BLOCKS).forEach((script, i) => {
    const place: BlockPlace = { block: i + 1, element: script, selector: doc.locate(script), line: doc.lineOf(script) };
    const text = rawTextOf(script, MAX_BLOCK_CHARS + 1);
    if (text.length > MAX_BLOCK_CHARS) {
      notes.push(`JSON-LD block ${place.block} (line ${place.line}) is over ${MAX_BLOCK_CHARS} characters and was not read`);
      return;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      findings.push(invalidJsonFinding(place, text, error));
      return;
    }
    const walked = walkBlock(data, place, findings, notes);
    itemsSeen += walked.length;
    for (const item of walked) if (items.length < MAX_ITEMS_LISTED) items.push(item);
  });

  const blocks = Math.min(scripts.length, MAX_BLOCKS);
  return buildReport({
    categories: ['seo'],
    checks: rules.map((rule) => (blocks === 0 ? notApplicable(rule) : checkFrom(rule, findings))),
    findings,
    rules,
    notes,
    details: {
      jsonLd: { blocks: scripts.length, items: itemsSeen, types: [...new Set(items.flatMap((i) => i.types))].sort() },
      items,
      microdata: countTypes(doc.elements.filter((e) => hasAttr(e, 'itemscope')), 'itemtype'),
      rdfa: countTypes(doc.elements.filter((e) => hasAttr(e, 'typeof')), 'typeof'),
    },
  });
}

interface Pending {
  value: unknown;
  path: string;
  depth: number;
  topLevel: boolean;
  context: unknown;
  implied: string | null;
  /** the property that holds this value (author, offers …), null at the top */
  role: string | null;
}

function walkBlock(data: unknown, place: BlockPlace, findings: Finding[], notes: string[]): StructuredDataItem[] {
  const items: StructuredDataItem[] = [];
  const stack: Pending[] = [{ value: data, path: '$', depth: 0, topLevel: true, context: undefined, implied: null, role: null }];
  let nodes = 0;
  while (stack.length > 0) {
    const next = stack.pop() as Pending;
    if (++nodes > MAX_NODES_PER_BLOCK) {
      notes.push(`JSON-LD block ${place.block} holds more than ${MAX_NODES_PER_BLOCK} values: the rest was not checked`);
      break;
    }
    if (next.depth > MAX_DEPTH) {
      notes.push(`JSON-LD block ${place.block} nests deeper than ${MAX_DEPTH} levels at ${next.path}: not checked below`);
      continue;
    }
    const { value, path, depth, topLevel } = next;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ ...next, value: value[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const node = value as Record<string, unknown>;
    const context = node['@context'] ?? next.context;
    const graph = node['@graph'];
    if (Array.isArray(graph)) {
      for (let i = graph.length - 1; i >= 0; i--) {
        stack.push({ value: graph[i], path: `${path}.@graph[${i}]`, depth: depth + 1, topLevel: true, context, implied: null, role: null });
      }
    }
    const isWrapper = Array.isArray(graph) && node['@type'] === undefined;
    const explicit = typesOf(node['@type']);
    const types = explicit.length > 0 ? explicit : next.implied ? [next.implied] : [];
    const item = { place, path, node, topLevel };
    if (!isWrapper && (topLevel || types.length > 0)) {
      items.push({ block: place.block, path, types, properties: Object.keys(node).filter((k) => !k.startsWith('@')).slice(0, 100), topLevel });
      if (topLevel) checkContext(item, context, findings);
      if (topLevel && explicit.length === 0) findings.push(missingTypeFinding(item));
      const roleSpec = topLevel || next.role === null ? undefined : ROLE_SPECS[next.role];
      if (roleSpec !== undefined) checkSpec(item, `${next.role} (${types.join(', ') || 'no @type'})`, roleSpec, findings);
      else for (const type of types) checkProperties(item, type, findings);
    } else if (!topLevel && next.role !== null && ROLE_SPECS[next.role] !== undefined) {
      checkSpec(item, `${next.role} (no @type)`, ROLE_SPECS[next.role] as TypeSpec, findings);
    }
    const product = types.some((t) => (TYPE_SPECS[t] ? t : TYPE_ALIASES[t]) === 'Product');
    if (product) checkMisplacedOffer(item, findings);
    checkValues(item, findings, product);
    const keys = Object.keys(node);
    for (let k = keys.length - 1; k >= 0; k--) {
      const key = keys[k] as string;
      if (key.startsWith('@')) continue;
      const child = node[key];
      if (child === null || typeof child !== 'object') continue;
      stack.push({ value: child, path: `${path}.${key}`, depth: depth + 1, topLevel: false, context, implied: IMPLIED_TYPES[key] ?? null, role: key });
    }
  }
  return items;
}

function typesOf(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => t.trim().replace(/^(https?:\/\/)?(www\.)?schema\.org\//i, ''));
}

function countTypes(elements: readonly Element[], typeAttribute: string): { items: number; types: string[] } {
  const types = new Set<string>();
  for (const element of elements) {
    for (const t of (attr(element, typeAttribute) ?? '').split(/\s+/)) if (t !== '' && types.size < 100) types.add(t);
  }
  return { items: elements.length, types: [...types].sort() };
}

export const structuredDataAnalyzer: Analyzer = {
  id: 'structured-data',
  categories: ['seo'],
  rules,
  analyze,
  analyzeDocument,
};
