// Structured data: every <script type="application/ld+json"> block parsed and checked the way
// Google's rich-result docs describe it: valid JSON (with the position of the error), a schema.org
// @context, an @type, the required and recommended properties of the common rich-result types, and
// value types (prices, ISO 8601 dates, absolute URLs). @graph, arrays and nested items are walked.
// Microdata and RDFa are only counted. Pure: HTML in, report out; bounded in blocks, bytes and items.
import { makeFinding, type Finding, type Report, type Severity } from '../findings.ts';
import { attr, hasAttr, parseHtml, rawTextOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, notApplicable, type Analyzer, type RuleDefinition } from '../scoring.ts';
import type { Element } from 'domhandler';
import { jsonSyntaxError } from './json-syntax.ts';
import { valueProblem } from './structured-data-values.ts';
import { IMPLIED_TYPES, OFFER_ONLY_PROPS, ROLE_SPECS, TYPE_ALIASES, TYPE_SPECS, type TypeSpec } from './structured-data-types.ts';

export const MAX_BLOCKS = 100;
export const MAX_BLOCK_CHARS = 1024 * 1024;
/** Objects walked per block, and how deep, so a hostile block stays cheap. */
const MAX_NODES_PER_BLOCK = 5000;
const MAX_DEPTH = 64;
const MAX_ITEMS_LISTED = 500;
const MAX_VALUE = 200;

export const STRUCTURED_DATA_RULES = {
  invalidJson: { id: 'structured-data-invalid-json', category: 'seo', weight: 3, severity: 'high', title: 'A JSON-LD block is not valid JSON' },
  missingContext: { id: 'structured-data-missing-context', category: 'seo', weight: 2, severity: 'high', title: 'A JSON-LD item has no @context' },
  foreignContext: { id: 'structured-data-non-schema-context', category: 'seo', weight: 1, severity: 'medium', title: 'A JSON-LD @context is not schema.org' },
  missingType: { id: 'structured-data-missing-type', category: 'seo', weight: 2, severity: 'high', title: 'A JSON-LD item has no @type' },
  missingRequired: { id: 'structured-data-missing-required', category: 'seo', weight: 3, severity: 'high', title: 'A required rich-result property is missing' },
  missingRecommended: { id: 'structured-data-missing-recommended', category: 'seo', weight: 1, severity: 'low', title: 'A recommended rich-result property is missing' },
  invalidValue: { id: 'structured-data-invalid-value', category: 'seo', weight: 2, severity: 'medium', title: 'A structured-data value has the wrong format' },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(STRUCTURED_DATA_RULES);

const SCHEMA_ORG = /^https?:\/\/(www\.)?schema\.org\/?$/i;

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

interface BlockPlace {
  block: number;
  element: Element;
  selector: string;
  line: number;
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

function invalidJsonFinding(place: BlockPlace, text: string, error: unknown): Finding {
  const syntax = jsonSyntaxError(text);
  const reason = syntax?.message ?? (error instanceof Error ? error.message.split(', "')[0] ?? error.message : String(error));
  const where = syntax ? ` at line ${syntax.line}, column ${syntax.column} of the block (character ${syntax.offset})` : '';
  return makeFinding({
    rule: STRUCTURED_DATA_RULES.invalidJson.id,
    category: 'seo',
    severity: 'high',
    location: `jsonld[${place.block}]`,
    title: STRUCTURED_DATA_RULES.invalidJson.title,
    detail: `JSON-LD block ${place.block} does not parse: ${reason}${where}. Search engines ignore the whole block.`,
    evidence: {
      selector: place.selector,
      line: syntax ? place.line + syntax.line - 1 : place.line,
      snippet: syntax ? syntax.excerpt : text.slice(0, MAX_VALUE),
    },
    fix: {
      patchType: 'html',
      change: `Correct the JSON syntax in JSON-LD block ${place.block}${where} (${reason}); check it with a JSON validator before publishing.`,
      acceptance: `JSON-LD block ${place.block} parses as JSON.`,
      roleHint: 'edit',
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

interface ItemAt {
  place: BlockPlace;
  path: string;
  node: Record<string, unknown>;
  topLevel: boolean;
}

function evidenceOf(item: ItemAt, snippet: string, value?: string): Finding['evidence'] {
  return { selector: item.place.selector, line: item.place.line, snippet, ...(value === undefined ? {} : { value: value.slice(0, MAX_VALUE) }) };
}

function checkContext(item: ItemAt, context: unknown, findings: Finding[]): void {
  const where = `JSON-LD block ${item.place.block} at ${item.path}`;
  if (context === undefined || context === null || context === '') {
    findings.push(
      makeFinding({
        rule: STRUCTURED_DATA_RULES.missingContext.id,
        category: 'seo',
        severity: 'high',
        location: `jsonld[${item.place.block}]${item.path}`,
        title: STRUCTURED_DATA_RULES.missingContext.title,
        detail: `The item in ${where} has no @context, so its @type and properties name nothing a search engine knows.`,
        evidence: evidenceOf(item, item.path),
        fix: {
          patchType: 'html',
          change: `Add "@context": "https://schema.org" to the top of JSON-LD block ${item.place.block}.`,
          acceptance: `The item at ${item.path} in block ${item.place.block} has a schema.org @context.`,
          roleHint: 'edit',
        },
      }),
    );
    return;
  }
  if (isSchemaOrg(context)) return;
  findings.push(
    makeFinding({
      rule: STRUCTURED_DATA_RULES.foreignContext.id,
      category: 'seo',
      severity: 'medium',
      location: `jsonld[${item.place.block}]${item.path}`,
      title: STRUCTURED_DATA_RULES.foreignContext.title,
      detail: `The item in ${where} has the @context ${JSON.stringify(context).slice(0, MAX_VALUE)}; Google reads only schema.org vocabulary for rich results.`,
      evidence: evidenceOf(item, item.path, JSON.stringify(context)),
      fix: {
        patchType: 'html',
        change: `Set "@context": "https://schema.org" in JSON-LD block ${item.place.block}.`,
        acceptance: `The item at ${item.path} in block ${item.place.block} has a schema.org @context.`,
        roleHint: 'edit',
      },
    }),
  );
}

/** "https://schema.org", an array holding it, or an object whose @vocab is schema.org. */
function isSchemaOrg(context: unknown): boolean {
  if (typeof context === 'string') return SCHEMA_ORG.test(context.trim());
  if (Array.isArray(context)) return context.some(isSchemaOrg);
  if (context !== null && typeof context === 'object') return isSchemaOrg((context as Record<string, unknown>)['@vocab']);
  return false;
}

function missingTypeFinding(item: ItemAt): Finding {
  return makeFinding({
    rule: STRUCTURED_DATA_RULES.missingType.id,
    category: 'seo',
    severity: 'high',
    location: `jsonld[${item.place.block}]${item.path}`,
    title: STRUCTURED_DATA_RULES.missingType.title,
    detail: `The item at ${item.path} in JSON-LD block ${item.place.block} has no @type, so no rich result can be built from it.`,
    evidence: evidenceOf(item, item.path),
    fix: {
      patchType: 'html',
      change: `Add an "@type" (e.g. "Product", "Article", "Organization") to the item at ${item.path} in JSON-LD block ${item.place.block}.`,
      acceptance: `The item at ${item.path} in block ${item.place.block} has an @type.`,
      roleHint: 'edit',
    },
  });
}

function present(node: Record<string, unknown>, property: string): boolean {
  const value = node[property];
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function checkProperties(item: ItemAt, rawType: string, findings: Finding[]): void {
  const type = TYPE_SPECS[rawType] ? rawType : TYPE_ALIASES[rawType];
  const spec = type === undefined ? undefined : TYPE_SPECS[type];
  if (spec === undefined) return;
  checkSpec(item, rawType, spec, findings);
  // A breadcrumb trail links every step but the last (the page itself).
  if (type === 'BreadcrumbList' && Array.isArray(item.node['itemListElement'])) {
    const steps = item.node['itemListElement'] as unknown[];
    steps.slice(0, -1).forEach((step, i) => {
      if (step !== null && typeof step === 'object' && !present(step as Record<string, unknown>, 'item')) {
        findings.push(missingFinding({ ...item, path: `${item.path}.itemListElement[${i}]`, node: step as Record<string, unknown>, topLevel: false }, 'ListItem', ['item'], true));
      }
    });
  }
}

function checkSpec(item: ItemAt, label: string, spec: TypeSpec, findings: Finding[]): void {
  const required = [...spec.required, ...(item.topLevel ? (spec.requiredStandalone ?? []) : [])];
  for (const requirement of required) {
    const options = typeof requirement === 'string' ? [requirement] : requirement;
    if (options.some((p) => present(item.node, p))) continue;
    findings.push(missingFinding(item, label, options, true));
  }
  for (const property of spec.recommended) {
    if (!present(item.node, property)) findings.push(missingFinding(item, label, [property], false));
  }
}

/**
 * A price written on the Product itself: Google's product snippets read price, currency and
 * availability only from the Product's offers, so the fix is to move them there, never to
 * reformat them where they are (which checkValues would otherwise suggest).
 */
function checkMisplacedOffer(item: ItemAt, findings: Finding[]): void {
  const misplaced = OFFER_ONLY_PROPS.filter((p) => item.node[p] !== undefined);
  if (misplaced.length === 0) return;
  const named = misplaced.map((p) => `"${p}"`).join(', ');
  const target = item.node['offers'] === undefined ? `a new "offers": { "@type": "Offer", ${misplaced.map((p) => `"${p}": …`).join(', ')} }` : `its "offers" (each Offer)`;
  findings.push(
    makeFinding({
      rule: STRUCTURED_DATA_RULES.invalidValue.id,
      category: 'seo',
      severity: 'medium',
      location: `jsonld[${item.place.block}]${item.path}#offer-properties`,
      title: STRUCTURED_DATA_RULES.invalidValue.title,
      detail: `The Product at ${item.path} in JSON-LD block ${item.place.block} has ${named} on itself; Google reads them only inside the Product's offers, so they are ignored here.`,
      evidence: evidenceOf(item, `${item.path} (Product)`, misplaced.join(', ')),
      fix: {
        patchType: 'html',
        change: `Move ${named} from the Product at ${item.path} in JSON-LD block ${item.place.block} into ${target}.`,
        acceptance: `The Product at ${item.path} in block ${item.place.block} has no ${named} outside its offers.`,
        roleHint: 'edit',
      },
    }),
  );
}

function missingFinding(item: ItemAt, type: string, options: readonly string[], required: boolean): Finding {
  const rule = required ? STRUCTURED_DATA_RULES.missingRequired : STRUCTURED_DATA_RULES.missingRecommended;
  const severity: Severity = required ? (item.topLevel ? 'high' : 'medium') : 'low';
  const named = options.length === 1 ? `"${options[0]}"` : `one of ${options.map((o) => `"${o}"`).join(', ')}`;
  return makeFinding({
    rule: rule.id,
    category: 'seo',
    severity,
    location: `jsonld[${item.place.block}]${item.path}#${options.join('|')}`,
    title: rule.title,
    detail: `The ${type} at ${item.path} in JSON-LD block ${item.place.block} has no ${named}, which Google ${
      required ? 'requires for the rich result' : 'recommends for a fuller rich result'
    }.`,
    evidence: evidenceOf(item, `${item.path} (${type})`),
    fix: {
      patchType: 'html',
      change: `Add ${named} to the ${type} at ${item.path} in JSON-LD block ${item.place.block}, with the value shown on the page.`,
      acceptance: `The ${type} at ${item.path} in block ${item.place.block} has ${named}.`,
      roleHint: 'edit',
    },
  });
}

function checkValues(item: ItemAt, findings: Finding[], product: boolean): void {
  for (const [property, raw] of Object.entries(item.node)) {
    // a Product's own price is misplaced, not misformatted: checkMisplacedOffer says where it goes
    if (product && (OFFER_ONLY_PROPS as readonly string[]).includes(property)) continue;
    const values = Array.isArray(raw) ? raw.slice(0, 50) : [raw];
    values.forEach((value, i) => {
      if (value === null || typeof value === 'object') return;
      const problem = valueProblem(property, value);
      if (problem === null) return;
      const at = `${item.path}.${property}${Array.isArray(raw) ? `[${i}]` : ''}`;
      const shown = String(value).slice(0, MAX_VALUE);
      findings.push(
        makeFinding({
          rule: STRUCTURED_DATA_RULES.invalidValue.id,
          category: 'seo',
          severity: 'medium',
          location: `jsonld[${item.place.block}]${at}`,
          title: STRUCTURED_DATA_RULES.invalidValue.title,
          detail: `${at} in JSON-LD block ${item.place.block} is ${JSON.stringify(shown)}: ${problem.detail}.`,
          evidence: evidenceOf(item, at, shown),
          fix: {
            patchType: 'html',
            change: `Write ${at} in JSON-LD block ${item.place.block} as ${problem.expected}.`,
            acceptance: `${at} in block ${item.place.block} is ${problem.expected}.`,
            roleHint: 'edit',
          },
        }),
      );
    });
  }
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
