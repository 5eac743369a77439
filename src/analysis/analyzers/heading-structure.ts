// Heading structure: the outline of h1-h6 in document order, a missing or repeated h1, levels
// skipped on the way down, and headings with nothing in them. Pure: HTML in, report out.
import { makeFinding, type Finding, type Report } from '../findings.ts';
import { parseHtml, snippetOf, textOf, attr, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, type Analyzer, type RuleDefinition } from '../scoring.ts';
import type { Element } from 'domhandler';

const HEADING = /^h([1-6])$/;
const MAX_OUTLINE = 500;
const MAX_OUTLINE_TEXT = 120;

export const HEADING_RULES = {
  missingH1: { id: 'heading-missing-h1', category: 'seo', weight: 3, severity: 'medium', title: 'The page has no <h1>' },
  multipleH1: { id: 'heading-multiple-h1', category: 'seo', weight: 1, severity: 'low', title: 'The page has more than one <h1>' },
  skippedLevel: { id: 'heading-skipped-level', category: 'seo', weight: 2, severity: 'medium', title: 'A heading skips a level' },
  empty: { id: 'heading-empty', category: 'seo', weight: 2, severity: 'medium', title: 'A heading is empty' },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(HEADING_RULES);

export interface OutlineEntry {
  level: number;
  text: string;
  selector: string;
  line: number;
}

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, _facts: PageFacts | null, _url: string): Report {
  const headings = doc.elements.filter((e) => HEADING.test(e.name));
  const findings: Finding[] = [];
  const outline: OutlineEntry[] = [];
  const h1s: Element[] = [];
  let previous: { level: number; name: string } | null = null;

  for (const heading of headings) {
    const level = Number(heading.name.slice(1));
    const text = accessibleName(heading);
    const selector = doc.locate(heading);
    const line = doc.lineOf(heading);
    if (outline.length < MAX_OUTLINE) outline.push({ level, text: text.slice(0, MAX_OUTLINE_TEXT), selector, line });
    const evidence = { selector, snippet: snippetOf(heading), line };

    if (level === 1) h1s.push(heading);
    if (text === '') {
      findings.push(
        makeFinding({
          rule: HEADING_RULES.empty.id,
          category: 'seo',
          severity: HEADING_RULES.empty.severity,
          location: selector,
          title: HEADING_RULES.empty.title,
          detail: `<${heading.name}> at line ${line} has no text, so it names no section for readers, screen readers or search engines.`,
          evidence,
          fix: {
            patchType: 'html',
            change: `Give the <${heading.name}> at ${selector} the title of its section, or remove the element if it only adds spacing.`,
            acceptance: `No empty heading remains at ${selector}.`,
            roleHint: 'edit',
          },
        }),
      );
    }
    if (previous && level > previous.level + 1) {
      const expected = `h${previous.level + 1}`;
      findings.push(
        makeFinding({
          rule: HEADING_RULES.skippedLevel.id,
          category: 'seo',
          severity: HEADING_RULES.skippedLevel.severity,
          location: selector,
          title: HEADING_RULES.skippedLevel.title,
          detail: `<${heading.name}> follows <${previous.name}>, skipping ${levelsBetween(previous.level, level)}.`,
          evidence,
          fix: {
            patchType: 'html',
            change: `Change the <${heading.name}> at ${selector} to <${expected}> (restyle it with CSS if it must look smaller).`,
            acceptance: `The heading at ${selector} is at most one level below the heading before it.`,
            roleHint: 'edit',
          },
        }),
      );
    }
    previous = { level, name: heading.name };
  }

  if (h1s.length === 0) {
    findings.push(
      makeFinding({
        rule: HEADING_RULES.missingH1.id,
        category: 'seo',
        severity: HEADING_RULES.missingH1.severity,
        location: 'document',
        title: HEADING_RULES.missingH1.title,
        detail:
          headings.length === 0
            ? 'The page has no headings at all.'
            : `The first heading is <${headings[0]?.name}>; no <h1> names the page's main topic.`,
        evidence: {},
        fix: {
          patchType: 'html',
          change: "Add one <h1> naming the page's main topic before the other headings.",
          acceptance: 'The page has exactly one <h1>, with text.',
          roleHint: 'edit',
        },
      }),
    );
  }
  // The first h1 is the page's title; every later one is the finding, each at its own place.
  for (const extra of h1s.slice(1)) {
    const selector = doc.locate(extra);
    findings.push(
      makeFinding({
        rule: HEADING_RULES.multipleH1.id,
        category: 'seo',
        severity: HEADING_RULES.multipleH1.severity,
        location: selector,
        title: HEADING_RULES.multipleH1.title,
        detail: `The page has ${h1s.length} <h1> elements; this one competes with the first as the page's main topic.`,
        evidence: { selector, snippet: snippetOf(extra), line: doc.lineOf(extra) },
        fix: {
          patchType: 'html',
          change: `Change the <h1> at ${selector} to <h2>, keeping one <h1> for the page's main topic.`,
          acceptance: `The element at ${selector} is no longer an <h1>; the page has one <h1>.`,
          roleHint: 'edit',
        },
      }),
    );
  }

  return buildReport({
    categories: ['seo'],
    checks: rules.map((rule) => checkFrom(rule, findings)),
    findings,
    rules,
    notes: doc.notes,
    details: { outline, headings: headings.length },
  });
}

/** Text, image alt text, or an aria-label: what a screen reader would announce. */
function accessibleName(heading: Element): string {
  const label = attr(heading, 'aria-label')?.trim();
  if (label) return label;
  return textOf(heading, { includeAlt: true, max: 500 });
}

function levelsBetween(from: number, to: number): string {
  const skipped = [];
  for (let l = from + 1; l < to; l++) skipped.push(`<h${l}>`);
  return skipped.join(', ');
}

export const headingStructureAnalyzer: Analyzer = {
  id: 'heading-structure',
  categories: ['seo'],
  rules,
  analyze,
  analyzeDocument,
};
