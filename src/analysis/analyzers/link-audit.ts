// Links as a search engine reads them: Lighthouse's link-text and crawlable-anchors audits.
// link-text: a link whose text says nothing about where it goes ("Read more", "click here").
// crawlable-anchors: an <a> a crawler cannot follow, because the destination lives in a script
// (javascript: hrefs, onclick with no href or a placeholder one) or the href is not a URL.
// Pure: HTML in, report out. broken-links.ts reports the crawlable-anchors rule too, from here.
import { isTag, isText, type AnyNode, type Element } from 'domhandler';
import { makeFinding, type Finding, type Report } from '../findings.ts';
import { attr, hasAttr, parseHtml, resolveUrl, snippetOf, textOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, type Analyzer, type RuleDefinition } from '../scoring.ts';
import { isGenericLinkText, normaliseLinkText, primaryLanguage } from './link-text-phrases.ts';
import { crawlFix, crawlProblemOf, type CrawlProblem } from './link-crawlability.ts';

export const LINK_AUDIT_RULES = {
  linkText: {
    id: 'link-text', category: 'seo', weight: 2, severity: 'low', title: 'A link\'s text does not say where it goes', audit: 'link-text',
    many: {
      title: '{count} links have text that does not say where they go',
      change: 'Rewrite the text of each of the {count} links so it names what the link leads to (the article, product or page), not "read more" or "click here"; the genericLinks list in details gives each link a suggested text.',
      acceptance: 'No link on the page has a generic text such as "read more", "click here" or "more".',
    },
  },
  crawlableAnchors: {
    id: 'crawlable-anchors', category: 'seo', weight: 3, severity: 'medium', title: 'A link cannot be followed by search engines', audit: 'crawlable-anchors',
    many: {
      title: '{count} links cannot be followed by search engines',
      change: 'Give each of the {count} links a real URL in href (the page its script opens), keeping any script as a click handler; an element that opens no page (a menu, a dialog) becomes a <button type="button">. the unfollowableLinks list in details gives each link the URL found in its script.',
      acceptance: 'Every <a> on the page has an href holding a URL a crawler can follow (no javascript:, no onclick-only or placeholder href).',
    },
  },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(LINK_AUDIT_RULES);

/** How many links the details list at most (the finding counts them all). */
const MAX_LISTED = 100;
const MAX_TEXT = 120;
const HEADING = /^h[1-6]$/;

export interface GenericLink {
  selector: string;
  line: number;
  text: string;
  href: string;
  /** what the text could say instead, from the page itself; null when nothing on the page says it */
  suggestedText: string | null;
}

export interface UnfollowableLink {
  selector: string;
  line: number;
  problem: CrawlProblem;
  /** the href as written, or null when there is none */
  href: string | null;
  text: string;
  /** the URL the link's script goes to, as written there; null when none was found */
  suggestedHref: string | null;
}

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, _facts: PageFacts | null, url: string): Report {
  const anchors = doc.byTag('a');
  const generic = genericLinkFindings(doc, url);
  const crawl = crawlableAnchorFindings(doc);
  const findings = [...generic.findings, ...crawl.findings];
  return buildReport({
    categories: ['seo'],
    // No links is Lighthouse's pass for both audits: nothing on the page is wrong.
    checks: rules.map((rule) => checkFrom(rule, findings)),
    findings,
    rules,
    notes: doc.notes,
    details: {
      links: anchors.length,
      genericLinks: generic.listed,
      unfollowableLinks: crawl.listed,
    },
  });
}

/** The link-text audit: one finding instance per link whose text is generic. */
export function genericLinkFindings(doc: HtmlDocument, pageUrl: string): { findings: Finding[]; listed: GenericLink[] } {
  const page = resolveUrl(pageUrl, null);
  const pageKey = page === null ? null : withoutFragment(page.href);
  const findings: Finding[] = [];
  const listed: GenericLink[] = [];
  const singleLang = documentLanguage(doc);
  const anchors = readAnchors(doc, singleLang);
  const textsByHref = descriptiveTextsByHref(anchors);
  const headings = new Map<Element, Element | null>();
  for (const { link, href, target, text, generic } of anchors) {
    // As Lighthouse: a link without href goes nowhere, nofollow ones are not vouched for, and
    // javascript:, mailto: and links to this same page (fragments) are not about a destination.
    if (href === null || !generic) continue;
    if ((attr(link, 'rel') ?? '').toLowerCase().includes('nofollow')) continue;
    if (/^(javascript|mailto):/i.test(href)) continue;
    if (target !== null && withoutFragment(target.href) === pageKey) continue;
    const selector = doc.locate(link);
    const line = doc.lineOf(link);
    const shown = text.slice(0, MAX_TEXT);
    const suggestedText = suggestText(link, href, target, textsByHref, singleLang, headings);
    if (listed.length < MAX_LISTED) listed.push({ selector, line, text: shown, href, suggestedText });
    const instead = suggestedText === null ? 'words that name the page it leads to' : `words that name where it goes, for example "${suggestedText}"`;
    findings.push(
      makeFinding({
        rule: LINK_AUDIT_RULES.linkText.id,
        category: 'seo',
        severity: LINK_AUDIT_RULES.linkText.severity,
        location: selector,
        title: LINK_AUDIT_RULES.linkText.title,
        detail: `The link to ${href} reads "${shown}": search engines and screen-reader users learn nothing from it about the page it leads to.`,
        evidence: { selector, line, snippet: snippetOf(link), value: shown, url: href },
        fix: {
          patchType: 'content',
          change: `Replace the text "${shown}" of the link at ${selector} with ${instead}.`,
          acceptance: `The link at ${selector} has a text that is not generic.`,
          roleHint: 'edit',
        },
      }),
    );
  }
  return { findings, listed };
}

/** The crawlable-anchors audit: one finding instance per <a> a crawler cannot follow. */
export function crawlableAnchorFindings(doc: HtmlDocument): { findings: Finding[]; listed: UnfollowableLink[] } {
  const findings: Finding[] = [];
  const listed: UnfollowableLink[] = [];
  for (const link of doc.byTag('a')) {
    const problem = crawlProblemOf(link, doc.baseUrl);
    if (problem === null) continue;
    const selector = doc.locate(link);
    const line = doc.lineOf(link);
    const rawHref = attr(link, 'href') ?? null;
    const text = accessibleText(link).slice(0, MAX_TEXT);
    const fix = crawlFix(link, problem);
    if (listed.length < MAX_LISTED) listed.push({ selector, line, problem, href: rawHref, text, suggestedHref: fix.suggestedHref });
    findings.push(
      makeFinding({
        rule: LINK_AUDIT_RULES.crawlableAnchors.id,
        category: 'seo',
        severity: LINK_AUDIT_RULES.crawlableAnchors.severity,
        location: selector,
        title: LINK_AUDIT_RULES.crawlableAnchors.title,
        detail: `The link${text ? ` "${text}"` : ''} at line ${line} ${fix.why}: search engines only follow an <a> whose href is a URL, so the page it opens is not discovered through it.`,
        evidence: { selector, line, snippet: snippetOf(link), value: rawHref ?? '(no href)', ...(fix.suggestedHref === null ? {} : { url: fix.suggestedHref }) },
        fix: {
          patchType: 'html',
          change: fix.change.replace('{selector}', selector),
          acceptance: `The <a> at ${selector} has an href holding a URL a crawler can follow, or is no longer a link.`,
          roleHint: 'edit',
        },
      }),
    );
  }
  return { findings, listed };
}

/** The address without its fragment: a link whose address is the page's goes to a place on this page. */
function withoutFragment(href: string): string {
  const hash = href.indexOf('#');
  return hash === -1 ? href : href.slice(0, hash);
}

/**
 * What a link says: its visible text (as innerText, hidden parts left out), else its aria-label,
 * else the alt of an image in it. Lighthouse reads innerText alone, so a "more" icon link labelled
 * only by aria-label passes there; a screen reader and a search engine read that label, so we judge it.
 */
export function accessibleText(link: Element, read: LinkReading = readLink(link)): string {
  if (read.visible !== '') return read.visible;
  const label = (attr(link, 'aria-label') ?? '').trim();
  if (label !== '') return label.replace(/\s+/g, ' ');
  return read.alt;
}

/** A link's text is read from at most this many nodes: past it, it is no "read more" anyway. */
const MAX_LINK_NODES = 2000;

interface LinkReading {
  visible: string;
  alt: string;
  /** the language its text is in, null when its parts differ or none says */
  lang: string | null;
}

/**
 * One bounded walk of a link: its visible text, its images' alt text, and the language of its text
 * as Lighthouse reads it (the lang its text-bearing parts are in; null when they differ, so every
 * list counts; else the nearest lang around the link).
 */
function readLink(link: Element): LinkReading {
  const own = nearestLang(link);
  let visible = '';
  let alt = '';
  let lang: string | null = null;
  let mixed = false;
  const stack: { node: AnyNode; lang: string | null }[] = [{ node: link, lang: own }];
  for (let visited = 0; stack.length > 0 && visited < MAX_LINK_NODES; visited++) {
    const { node, lang: inherited } = stack.pop() as { node: AnyNode; lang: string | null };
    if (isText(node)) {
      visible += node.data;
      if (inherited !== null && node.data.trim() !== '') {
        if (lang === null) lang = inherited;
        else if (inherited !== lang && primaryLanguage(lang) !== primaryLanguage(inherited)) mixed = true;
      }
    } else if (isTag(node)) {
      if (node.name === 'script' || node.name === 'style' || node.name === 'template' || isHidden(node)) continue;
      if (node.name === 'img') alt += ` ${attr(node, 'alt') ?? ''} `;
      const here = attr(node, 'lang') ?? inherited;
      for (let i = Math.min(node.children.length, MAX_LINK_NODES) - 1; i >= 0; i--) stack.push({ node: node.children[i] as AnyNode, lang: here });
    }
  }
  const clean = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 500);
  return { visible: clean(visible), alt: clean(alt), lang: mixed ? null : (lang ?? own) };
}

function isHidden(element: Element): boolean {
  if (hasAttr(element, 'hidden')) return true;
  const style = (attr(element, 'style') ?? '').toLowerCase().replace(/\s+/g, '');
  return style.includes('display:none') || style.includes('visibility:hidden');
}

/**
 * Lighthouse's shortcut: a page whose only lang attribute is on <html> or <body> is in that
 * language throughout. Otherwise each link's language is read from its own text (readLink).
 */
function documentLanguage(doc: HtmlDocument): string | null {
  const withLang = doc.elements.filter((e) => hasAttr(e, 'lang'));
  const only = withLang.length === 1 ? withLang[0] : undefined;
  return only !== undefined && (only.name === 'html' || only.name === 'body') ? (attr(only, 'lang') ?? null) : null;
}

interface ReadAnchor {
  link: Element;
  /** null without an href attribute */
  href: string | null;
  target: URL | null;
  text: string;
  /** its text is generic in its language */
  generic: boolean;
}

/** Every <a>, read once: where it goes, what it says, and whether that is generic. */
function readAnchors(doc: HtmlDocument, singleLang: string | null): ReadAnchor[] {
  return doc.byTag('a').map((link) => {
    const raw = attr(link, 'href');
    const target = raw === undefined ? null : resolveUrl(raw, doc.baseUrl);
    const reading = readLink(link);
    const text = accessibleText(link, reading);
    return { link, href: raw === undefined ? null : (target?.href ?? raw.trim()), target, text, generic: isGenericLinkText(text, singleLang ?? reading.lang) };
  });
}

function nearestLang(element: Element): string | null {
  let node: AnyNode | null = element;
  while (node !== null) {
    if (isTag(node) && hasAttr(node, 'lang')) return attr(node, 'lang') ?? null;
    node = node.parent;
  }
  return null;
}

/** For each destination, the first text another link to it gives that is not generic. */
function descriptiveTextsByHref(anchors: readonly ReadAnchor[]): Map<string, string> {
  const byHref = new Map<string, string>();
  for (const { href, text, generic } of anchors) {
    if (href === null || generic || text === '' || byHref.has(href)) continue;
    byHref.set(href, text.slice(0, MAX_TEXT));
  }
  return byHref;
}

/**
 * A text the page itself offers for the link: another link to the same place (a headline and its
 * "Read more"), the heading of the block the link sits in (a card, a list item, an article), the
 * link's own title, else the last words of its URL's path.
 */
function suggestText(
  link: Element,
  href: string,
  target: URL | null,
  textsByHref: ReadonlyMap<string, string>,
  lang: string | null,
  headings: Map<Element, Element | null>,
): string | null {
  const same = textsByHref.get(href);
  if (same !== undefined) return same;
  const usable = (text: string) => text !== '' && !isGenericLinkText(text, lang) && normaliseLinkText(text) !== '';
  let block: AnyNode | null = link.parent;
  for (let depth = 0; depth < 4 && block !== null && isTag(block) && block.name !== 'body'; depth++) {
    // Many links in one block (a list of 500 "more") look its heading up once.
    let heading = headings.get(block);
    if (heading === undefined) {
      heading = firstHeading(block);
      headings.set(block, heading);
    }
    if (heading !== null) {
      const text = textOf(heading, { includeAlt: true, max: MAX_TEXT });
      if (usable(text)) return text;
    }
    block = block.parent;
  }
  const title = (attr(link, 'title') ?? '').trim().replace(/\s+/g, ' ');
  if (usable(title)) return title.slice(0, MAX_TEXT);
  return target === null ? null : slugWords(target);
}

function firstHeading(block: Element): Element | null {
  const stack: AnyNode[] = block.children.slice(0, MAX_LINK_NODES).reverse();
  for (let visited = 0; stack.length > 0 && visited < MAX_LINK_NODES; visited++) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (HEADING.test(node.name)) return node;
    for (let i = Math.min(node.children.length, MAX_LINK_NODES) - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return null;
}

/** "/news/storm-closes-harbour.html" -> "Storm closes harbour"; null for ids and empty paths. */
function slugWords(target: URL): string | null {
  const segments = target.pathname.split('/').filter((s) => s !== '');
  const last = segments.at(-1);
  if (last === undefined) return null;
  let words: string;
  try {
    words = decodeURIComponent(last);
  } catch {
    words = last;
  }
  words = words.replace(/\.[a-z0-9]{1,5}$/i, '').replace(/[-_+]+/g, ' ').trim();
  if (!/\p{L}{3}/u.test(words) || words.split(' ').length < 2) return null;
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const linkAuditAnalyzer: Analyzer = {
  id: 'link-audit',
  categories: ['seo'],
  rules,
  analyze,
  analyzeDocument,
};
