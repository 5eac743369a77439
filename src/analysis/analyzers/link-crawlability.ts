// Whether a crawler can follow an <a>, and how to make it followable. Lighthouse's
// crawlable-anchors audit (core/audits/seo/crawlable-anchors.js) read the way Google documents
// links it can follow ("an <a> element with an href attribute" holding a URL): its exemptions are
// kept (role, name, mailto:, an id-only anchor, a placeholder <a> with no script), and where it
// passes a link Google says it cannot follow, we fail it:
// - every javascript: URL, where Lighthouse fails only javascript:void(0) (case-sensitively);
// - href="" or "#" whose destination is in an onclick, which Lighthouse passes as a valid URL.
// Only inline on* attributes are seen here (Lighthouse also sees listeners a script adds).
import type { Element } from 'domhandler';
import { attr } from '../html-document.ts';

export type CrawlProblem =
  /** href is a javascript: URL */
  | 'javascript'
  /** no href, only an event handler */
  | 'script-only'
  /** href is "" or "#" and the destination is in an event handler */
  | 'placeholder-href'
  /** no href, but attributes that only mean something with one (target, rel, ...) */
  | 'no-href'
  /** a file: URL */
  | 'file'
  /** the href does not parse as a URL */
  | 'invalid';

// The a element's attributes that "must be omitted if the href attribute is not present" (HTML).
const HREF_ATTRIBUTES = ['target', 'download', 'ping', 'rel', 'hreflang', 'type', 'referrerpolicy'];
// Where scripts commonly keep the address a clickable element goes to.
const DATA_URL_ATTRIBUTES = ['data-href', 'data-url', 'data-link', 'data-location', 'data-target-url'];

function handlersOf(link: Element): [string, string][] {
  return Object.entries(link.attribs).filter(([name]) => /^on[a-z]+$/.test(name));
}

/** Why a crawler cannot follow this <a>, or null when it can (or it is not meant as a link). */
export function crawlProblemOf(link: Element, base: URL | null): CrawlProblem | null {
  const raw = attr(link, 'href');
  const href = (raw ?? '').replace(/\s/g, '');
  const lower = href.toLowerCase();
  // An explicit role makes it something else (a button, a tab) that a crawler is not meant to follow.
  if ((attr(link, 'role') ?? '').trim() !== '') return null;
  if (lower.startsWith('mailto:')) return null;
  // <a id="section"> (and href="" beside an id) is a target on the page, not a link.
  if (href === '' && (attr(link, 'id') ?? '') !== '') return null;
  if (lower.startsWith('file:')) return 'file';
  if ((attr(link, 'name') ?? '').trim() !== '') return null;
  const scripted = handlersOf(link).length > 0;
  if (raw === undefined) {
    // A bare <a> is HTML's placeholder for a link that is not there: fine unless a script makes it one.
    if (HREF_ATTRIBUTES.every((name) => attr(link, name) === undefined)) return scripted ? 'script-only' : null;
    return 'no-href';
  }
  if (lower.startsWith('javascript:')) return 'javascript';
  if ((href === '' || href === '#') && scripted) return 'placeholder-href';
  if (base !== null && !URL.canParse(href, base.href)) return 'invalid';
  return null;
}

export interface CrawlFix {
  /** "has no href, only an onclick handler" */
  why: string;
  /** the change, with {selector} where the element's location goes */
  change: string;
  /** the address the link's script goes to, as written there; null when none was found */
  suggestedHref: string | null;
}

/** What is wrong with the link, and the change that makes it followable. */
export function crawlFix(link: Element, problem: CrawlProblem): CrawlFix {
  const raw = attr(link, 'href') ?? '';
  const handlers = handlersOf(link);
  const handlerNames = handlers.map(([name]) => name).join('/') || 'script';
  const suggestedHref = problem === 'javascript' || problem === 'script-only' || problem === 'placeholder-href' ? destinationOf(link) : null;
  const scriptFix =
    suggestedHref === null
      ? 'Put the URL of the page this link opens in the href of the <a> at {selector}, keeping the script as a click handler if it must still run; if it opens no page (a menu, a dialog, a tab), make it a <button type="button"> instead.'
      : `Set href="${suggestedHref}" on the <a> at {selector} (the address its script opens), keeping the script as a click handler if it must still run.`;
  switch (problem) {
    case 'javascript':
      return { why: `has href="${short(raw)}", a javascript: URL no crawler runs`, change: scriptFix, suggestedHref };
    case 'script-only':
      return { why: `has no href, only an ${handlerNames} handler`, change: scriptFix, suggestedHref };
    case 'placeholder-href':
      return { why: `has href="${raw.trim()}" and its destination in an ${handlerNames} handler`, change: scriptFix, suggestedHref };
    case 'no-href': {
      const present = HREF_ATTRIBUTES.filter((name) => attr(link, name) !== undefined).join(', ');
      return {
        why: `has no href, though it has ${present}, which only mean something on a link with one`,
        change: `Add the href the <a> at {selector} should lead to, or remove its ${present} if it is not meant to be a link.`,
        suggestedHref: null,
      };
    }
    case 'file':
      return {
        why: `points at ${short(raw)}, a file: URL that exists only on one computer`,
        change: 'Replace the file: URL in the href of the <a> at {selector} with the http(s) address the file is served at.',
        suggestedHref: null,
      };
    case 'invalid':
      return {
        why: `has href="${short(raw)}", which is not a valid URL`,
        change: 'Correct the href of the <a> at {selector} to a valid URL (percent-encode spaces and reserved characters, close an IPv6 bracket).',
        suggestedHref: null,
      };
  }
}

function short(text: string): string {
  const t = text.trim();
  return t.length > 120 ? `${t.slice(0, 119)}…` : t;
}

const QUOTED = /(['"`])([^'"`\s]{1,500})\1/g;
const URL_LIKE = /^(?:(?:https?:)?\/\/[^/\s]|\/(?!\/)|\.{1,2}\/|\?\w)|^[\w\-./]+\.(?:html?|php|aspx?|jsp)(?:[?#]\S*)?$/i;

/** The address a scripted link goes to: a data-href-style attribute, else the first URL-like string in its script. */
function destinationOf(link: Element): string | null {
  for (const name of DATA_URL_ATTRIBUTES) {
    const value = attr(link, name)?.trim();
    if (value) return value;
  }
  const raw = attr(link, 'href')?.trim() ?? '';
  const scripts = [...handlersOf(link).map(([, code]) => code), raw.toLowerCase().startsWith('javascript:') ? raw.slice('javascript:'.length) : ''];
  for (const code of scripts) {
    for (const match of code.matchAll(QUOTED)) {
      const candidate = match[2] ?? '';
      if (URL_LIKE.test(candidate)) return candidate;
    }
  }
  return null;
}
