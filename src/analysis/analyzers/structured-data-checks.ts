// What the structured-data analyzer (structured-data.ts) reports about one JSON-LD block or item:
// its rules, and each check with the finding it writes (a block that does not parse, the
// @context, the @type, required and recommended properties, a Product's misplaced offer, value
// formats). They live apart from the block walk so the walk reads as the order of the checks, and
// each check here as the finding it makes. Pure: an item in, findings out.
import { makeFinding, type Finding, type Severity } from '../findings.ts';
import type { RuleDefinition } from '../scoring.ts';
import type { Element } from 'domhandler';
import { jsonSyntaxError } from './json-syntax.ts';
import { valueProblem } from './structured-data-values.ts';
import { OFFER_ONLY_PROPS, TYPE_ALIASES, TYPE_SPECS, type TypeSpec } from './structured-data-types.ts';

/** The longest value a finding quotes. */
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

const SCHEMA_ORG = /^https?:\/\/(www\.)?schema\.org\/?$/i;

export interface BlockPlace {
  block: number;
  element: Element;
  selector: string;
  line: number;
}

export function invalidJsonFinding(place: BlockPlace, text: string, error: unknown): Finding {
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

export interface ItemAt {
  place: BlockPlace;
  path: string;
  node: Record<string, unknown>;
  topLevel: boolean;
}

function evidenceOf(item: ItemAt, snippet: string, value?: string): Finding['evidence'] {
  return { selector: item.place.selector, line: item.place.line, snippet, ...(value === undefined ? {} : { value: value.slice(0, MAX_VALUE) }) };
}

export function checkContext(item: ItemAt, context: unknown, findings: Finding[]): void {
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

export function missingTypeFinding(item: ItemAt): Finding {
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

export function checkProperties(item: ItemAt, rawType: string, findings: Finding[]): void {
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

export function checkSpec(item: ItemAt, label: string, spec: TypeSpec, findings: Finding[]): void {
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
export function checkMisplacedOffer(item: ItemAt, findings: Finding[]): void {
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

export function checkValues(item: ItemAt, findings: Finding[], product: boolean): void {
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
