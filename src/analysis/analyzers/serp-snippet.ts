// How the page's title and description show in a search result: measured in pixels of Arial at
// the result's font size and cut where the result would cut them (at a word, with " ..."), on
// desktop and on mobile. The glyph widths are Arial's advance widths for ASCII (units per 1000 em,
// metric-compatible with Helvetica); other characters use an approximate class width. The pixel
// limits are approximations of the current Google layout, not a published figure.
import { makeFinding, type Finding, type Report } from '../findings.ts';
import { attr, closest, parseHtml, snippetOf, textOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, type Analyzer, type RuleDefinition } from '../scoring.ts';
import { DESCRIPTION_MISSING, missingDescriptionFinding, missingTitleFinding, TITLE_MISSING } from './head-defects.ts';

// Arial advance widths of U+0020..U+007E, in 1/1000 em.
const ASCII_WIDTHS = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 to ?
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ to O
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P to _
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` to o
  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p to ~
];

export const SERP_LAYOUT = {
  desktop: { title: { limitPx: 600, fontPx: 20 }, description: { limitPx: 920, fontPx: 14 } },
  mobile: { title: { limitPx: 750, fontPx: 20 }, description: { limitPx: 680, fontPx: 14 } },
} as const;

export type Device = keyof typeof SERP_LAYOUT;

export const SERP_RULES = {
  // A missing title or description is the meta tags' defect too: the same rule, so one finding.
  titleMissing: { ...TITLE_MISSING, category: 'seo', weight: 3, severity: 'high' },
  titleTruncated: { id: 'serp-title-truncated', category: 'seo', weight: 2, severity: 'medium', title: 'Title cut off in desktop results' },
  titleTruncatedMobile: { id: 'serp-title-truncated-mobile', category: 'seo', weight: 1, severity: 'low', title: 'Title cut off in mobile results only' },
  descriptionMissing: { ...DESCRIPTION_MISSING, category: 'seo', weight: 2, severity: 'medium' },
  descriptionTruncated: { id: 'serp-description-truncated', category: 'seo', weight: 1, severity: 'low', title: 'Description cut off in desktop results' },
  descriptionTruncatedMobile: { id: 'serp-description-truncated-mobile', category: 'seo', weight: 0, severity: 'info', title: 'Description cut off in mobile results only' },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(SERP_RULES);

/** Width of one character in 1/1000 em. */
function glyphWidth(codePoint: number): number {
  if (codePoint >= 0x20 && codePoint <= 0x7e) return ASCII_WIDTHS[codePoint - 0x20] ?? 556;
  if (codePoint >= 0x300 && codePoint <= 0x36f) return 0; // combining marks sit on the letter before
  if (
    (codePoint >= 0x2e80 && codePoint <= 0x9fff) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7af) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xff00 && codePoint <= 0xffef) ||
    codePoint >= 0x1f000
  ) {
    return 1000; // CJK, Hangul, full-width forms and emoji are a full em wide
  }
  const ch = String.fromCodePoint(codePoint);
  return ch !== ch.toLowerCase() ? 667 : 556; // other letters: an average capital or small letter
}

/** Rendered width in pixels of text in Arial at fontPx, to 0.1 px. */
export function textWidthPx(text: string, fontPx: number): number {
  let units = 0;
  for (const ch of text) units += glyphWidth(ch.codePointAt(0) ?? 0x20);
  return Math.round((units * fontPx) / 100) / 10;
}

export interface SnippetLine {
  widthPx: number;
  limitPx: number;
  truncated: boolean;
  /** the text as the result shows it */
  shown: string;
}

/** The text as a result shows it within limitPx: whole when it fits, else cut at a word with " ...". */
export function fitToWidth(text: string, limitPx: number, fontPx: number): SnippetLine {
  const widthPx = textWidthPx(text, fontPx);
  if (widthPx <= limitPx) return { widthPx, limitPx, truncated: false, shown: text };
  const room = limitPx - textWidthPx(' ...', fontPx);
  let shown = '';
  for (const word of text.split(' ')) {
    const next = shown === '' ? word : `${shown} ${word}`;
    if (textWidthPx(next, fontPx) > room) break;
    shown = next;
  }
  if (shown === '') {
    // one word longer than the line: cut it by characters
    for (const ch of text) {
      if (textWidthPx(shown + ch, fontPx) > room) break;
      shown += ch;
    }
  }
  return { widthPx, limitPx, truncated: true, shown: `${shown} ...` };
}

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, _facts: PageFacts | null, _url: string): Report {
  const titleElement = doc.byTag('title').find((t) => closest(t, 'svg') === null); // an SVG's <title> names the drawing
  const title = titleElement ? textOf(titleElement, { max: 1000 }) : '';
  const metaElement = doc.byTag('meta').find((m) => (attr(m, 'name') ?? '').trim().toLowerCase() === 'description');
  const description = (metaElement ? attr(metaElement, 'content') ?? '' : '').replace(/\s+/g, ' ').trim().slice(0, 2000);
  const findings: Finding[] = [];

  const measure = (text: string, part: 'title' | 'description') =>
    Object.fromEntries(
      (Object.keys(SERP_LAYOUT) as Device[]).map((device) => {
        const { limitPx, fontPx } = SERP_LAYOUT[device][part];
        return [device, fitToWidth(text, limitPx, fontPx)];
      }),
    ) as Record<Device, SnippetLine>;
  const titleLines = measure(title, 'title');
  const descriptionLines = measure(description, 'description');
  const titleAt = titleElement ? { selector: doc.locate(titleElement), snippet: snippetOf(titleElement), line: doc.lineOf(titleElement) } : null;
  const titleEvidence = titleAt ? { ...titleAt, value: title.slice(0, 300) } : {};
  const metaEvidence = metaElement
    ? { selector: doc.locate(metaElement), snippet: snippetOf(metaElement), line: doc.lineOf(metaElement) }
    : {};

  const add = (rule: RuleDefinition, location: string, detail: string, evidence: object, change: string, acceptance: string) =>
    findings.push(
      makeFinding({
        rule: rule.id,
        category: 'seo',
        severity: rule.severity,
        location,
        title: rule.title,
        detail,
        evidence,
        fix: { patchType: 'html', change, acceptance, roleHint: 'edit' },
      }),
    );

  if (title === '') {
    findings.push(missingTitleFinding(SERP_RULES.titleMissing, titleAt));
  } else {
    const cut = truncation(titleLines, SERP_RULES.titleTruncated, SERP_RULES.titleTruncatedMobile);
    if (cut) {
      const shown = cut.devices.map((d) => `${d} results show ${titleLines[d].limitPx} px: "${titleLines[d].shown}"`).join('; ');
      add(cut.rule, `document-title|${cut.first}`, `The title is ${titleLines.desktop.widthPx} px wide at ${SERP_LAYOUT.desktop.title.fontPx} px Arial; ${shown}.`, titleEvidence,
        `Shorten the <title> to under ${cut.fitPx} px (put the words that matter first).`, `The title measures at most ${titleLines[cut.first].limitPx} px.`);
    }
  }
  if (description === '') {
    findings.push(missingDescriptionFinding(SERP_RULES.descriptionMissing, metaElement ? metaEvidence : null));
  } else {
    const cut = truncation(descriptionLines, SERP_RULES.descriptionTruncated, SERP_RULES.descriptionTruncatedMobile);
    if (cut) {
      const shown = cut.devices.map((d) => `${d} results show ${descriptionLines[d].limitPx} px`).join(', ');
      add(cut.rule, `meta-description|${cut.first}`, `The description is ${descriptionLines.desktop.widthPx} px wide at ${SERP_LAYOUT.desktop.description.fontPx} px Arial; ${shown}.`, metaEvidence,
        `Shorten the meta description to under ${cut.fitPx} px.`, `The description measures at most ${descriptionLines[cut.first].limitPx} px.`);
    }
  }

  return buildReport({
    categories: ['seo'],
    checks: rules.map((rule) => checkFrom(rule, findings)),
    findings,
    rules,
    notes: doc.notes,
    details: { title: { text: title, ...titleLines }, description: { text: description, ...descriptionLines } },
  });
}

/**
 * A text cut off on both devices is one defect, so one finding: the desktop rule's (the more severe),
 * naming both; the mobile rule is for a text cut off on mobile only. The fix fits the narrower limit.
 */
function truncation(
  lines: Record<Device, SnippetLine>,
  desktop: RuleDefinition,
  mobile: RuleDefinition,
): { rule: RuleDefinition; devices: Device[]; first: Device; fitPx: number } | null {
  const devices = (Object.keys(SERP_LAYOUT) as Device[]).filter((d) => lines[d].truncated);
  const first = devices[0];
  if (first === undefined) return null;
  return {
    rule: first === 'desktop' ? desktop : mobile,
    devices,
    first,
    fitPx: Math.min(...devices.map((d) => lines[d].limitPx)),
  };
}

export const serpSnippetAnalyzer: Analyzer = {
  id: 'serp-snippet',
  categories: ['seo'],
  rules,
  analyze,
  analyzeDocument,
};
