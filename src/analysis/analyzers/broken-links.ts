// Broken links: the pure half of the broken-links checker. It extracts what a page links to
// (<a href>, stylesheets, <img src>, <script src>), reads a fetch result or a fetch error as an
// outcome, and judges the outcomes as findings. The fetching itself is the tool's
// (src/catalog/seo-apis/broken-links-checker.ts), through ctx.fetchPage only. Links nothing can
// fetch because their destination is in a script (javascript:, onclick-only) are not skipped in
// silence: they fail the crawlable-anchors rule, the link audit's own (link-audit.ts), so a report
// combining both analyzers holds one finding for them.
import { makeFinding, type Category, type Check, type Finding, type Report, type Severity } from '../findings.ts';
import { attr, snippetOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, failed, notApplicable, passed, unknown, type RuleDefinition } from '../scoring.ts';
import { isServiceError } from '../../core/errors.ts';
import { LINK_AUDIT_RULES, crawlableAnchorFindings, type UnfollowableLink } from './link-audit.ts';

export const BROKEN_LINK_RULES = {
  brokenInternal: {
    id: 'broken-link-internal', category: 'seo', weight: 3, severity: 'high', title: 'A link to this site is broken',
    many: {
      title: '{count} links to this site are broken',
      change: 'For each of the {count} broken URLs on this site, restore it on the server or point its links at the page that replaced it.',
      acceptance: 'Every link to this site answers 2xx, or no element on the page points to it.',
    },
  },
  brokenExternal: {
    id: 'broken-link-external', category: 'seo', weight: 2, severity: 'medium', title: 'A link to another site is broken',
    many: {
      title: '{count} links to other sites are broken',
      change: 'Point each of the {count} broken links to other sites at a working URL, or remove it.',
      acceptance: 'Every link to another site answers 2xx, or no element on the page points to it.',
    },
  },
  brokenResource: {
    id: 'broken-resource', category: 'best-practices', weight: 3, severity: 'high', title: 'An image, script or stylesheet is broken',
    many: {
      title: '{count} images, scripts or stylesheets are broken',
      change: 'Restore each of the {count} broken files, or point the elements that load them at working URLs.',
      acceptance: 'Every image, script and stylesheet the page loads answers 2xx.',
    },
  },
  redirectedInternal: {
    id: 'redirected-internal-link', category: 'seo', weight: 1, severity: 'low', title: 'A link to this site goes through a redirect',
    many: {
      title: '{count} links to this site go through a redirect',
      change: 'Point each of the {count} redirected links at the URL it ends at.',
      acceptance: 'No link to this site goes through a redirect.',
    },
  },
  privateAddress: { id: 'link-to-private-address', category: 'seo', weight: 1, severity: 'medium', title: 'A link points to a private or disallowed address' },
  unfollowable: LINK_AUDIT_RULES.crawlableAnchors,
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(BROKEN_LINK_RULES);

export type LinkKind = 'link' | 'image' | 'script' | 'stylesheet';
const MAX_ELEMENTS_PER_LINK = 10;
const SKIPPED_SCHEMES = /^(mailto|tel|javascript|data|sms|callto|about|blob):/i;

export interface LinkElement {
  selector: string;
  line: number;
  snippet: string;
}

export interface LinkTarget {
  /** absolute, without its fragment */
  url: string;
  /** every way the page uses it; a resource kind wins over a plain link when judging */
  kinds: LinkKind[];
  /** same host as the page (www. ignored) */
  internal: boolean;
  /** the elements pointing at it, in document order (the first MAX_ELEMENTS_PER_LINK) */
  elements: LinkElement[];
  /** how many elements point at it */
  count: number;
}

/** The <a> elements a crawler cannot follow (the crawlable-anchors audit's instances). */
export interface UnfollowableAnchors {
  findings: Finding[];
  listed: UnfollowableLink[];
}

export interface ExtractedLinks {
  links: LinkTarget[];
  /** references not checked: mailto:, tel:, javascript:, data:, fragment-only, other schemes, unparsable */
  skipped: number;
  /** the links among them (and among <a> without href) that a crawler cannot follow */
  unfollowable: UnfollowableAnchors;
}

export type LinkOutcomeKind = 'ok' | 'redirect' | 'broken' | 'refused' | 'failed';

export interface LinkOutcome {
  outcome: LinkOutcomeKind;
  /** HTTP status of the final response; null when nothing answered */
  status: number | null;
  /** where a redirect led */
  finalUrl: string | null;
  /** the fetch_failed phase, the refusal, or why a status was read as it was */
  reason: string | null;
  method: 'HEAD' | 'GET';
}

function hostKey(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

/** Every checkable reference on the page, deduplicated by URL, in document order. */
export function extractLinks(doc: HtmlDocument, pageUrl: string): ExtractedLinks {
  const page = URL.canParse(pageUrl) ? new URL(pageUrl) : null;
  const byUrl = new Map<string, LinkTarget>();
  let skipped = 0;
  for (const element of doc.elements) {
    let kind: LinkKind | null = null;
    let ref: string | undefined;
    if (element.name === 'a') [kind, ref] = ['link', attr(element, 'href')];
    else if (element.name === 'img') [kind, ref] = ['image', attr(element, 'src')];
    else if (element.name === 'script') [kind, ref] = ['script', attr(element, 'src')];
    else if (element.name === 'link' && (attr(element, 'rel') ?? '').toLowerCase().split(/\s+/).includes('stylesheet')) [kind, ref] = ['stylesheet', attr(element, 'href')];
    if (kind === null || ref === undefined) continue;
    const trimmed = ref.trim();
    if (trimmed === '' || trimmed.startsWith('#') || SKIPPED_SCHEMES.test(trimmed)) {
      skipped++;
      continue;
    }
    let url: URL;
    try {
      url = new URL(trimmed, doc.baseUrl ?? page ?? undefined);
    } catch {
      skipped++;
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      skipped++;
      continue;
    }
    url.hash = '';
    const key = url.href;
    let target = byUrl.get(key);
    if (!target) {
      target = { url: key, kinds: [], internal: page !== null && hostKey(url) === hostKey(page), elements: [], count: 0 };
      byUrl.set(key, target);
    }
    if (!target.kinds.includes(kind)) target.kinds.push(kind);
    target.count++;
    if (target.elements.length < MAX_ELEMENTS_PER_LINK) target.elements.push({ selector: doc.locate(element), line: doc.lineOf(element), snippet: snippetOf(element) });
  }
  return { links: [...byUrl.values()], skipped, unfollowable: crawlableAnchorFindings(doc) };
}

/** A HEAD or GET that answered: ok, redirect (to another URL) or broken (4xx/5xx). */
export function outcomeFromFacts(url: string, facts: PageFacts, method: 'HEAD' | 'GET'): LinkOutcome {
  const status = facts.status;
  if (status >= 400) return { outcome: 'broken', status, finalUrl: facts.redirects.length > 0 ? facts.finalUrl : null, reason: `HTTP ${status}`, method };
  if (facts.redirects.length > 0 && facts.finalUrl !== url) return { outcome: 'redirect', status, finalUrl: facts.finalUrl, reason: null, method };
  return { outcome: 'ok', status, finalUrl: null, reason: null, method };
}

/** A fetch that threw: refused (url_not_allowed, invalid_url) or failed (fetch_failed and its phase, fetch_busy). */
export function outcomeFromError(error: unknown, method: 'HEAD' | 'GET'): LinkOutcome {
  if (isServiceError(error)) {
    if (error.error === 'url_not_allowed' || error.error === 'invalid_url') return { outcome: 'refused', status: null, finalUrl: null, reason: error.message, method };
    if (error.error === 'fetch_failed') return { outcome: 'failed', status: null, finalUrl: null, reason: String(error.extra['phase'] ?? 'http'), method };
    if (error.error === 'fetch_busy') return { outcome: 'failed', status: null, finalUrl: null, reason: 'busy', method };
  }
  throw error;
}

/**
 * Failures a visitor would meet too (no such name, nothing listening, a TLS or protocol error, a
 * redirect loop) make a link broken; a timeout or a busy fetcher says nothing about the link.
 * A size failure means the server did answer with content, so the link works.
 */
const BROKEN_PHASES = new Set(['dns', 'connect', 'tls', 'http', 'redirects']);
const WORKING_PHASES = new Set(['size']);

type Verdict = 'fine' | 'broken' | 'redirect' | 'refused' | 'unjudged';

function verdictOf(outcome: LinkOutcome): Verdict {
  if (outcome.outcome === 'ok') return 'fine';
  if (outcome.outcome === 'redirect') return 'redirect';
  if (outcome.outcome === 'broken') return 'broken';
  if (outcome.outcome === 'refused') return 'refused';
  if (WORKING_PHASES.has(outcome.reason ?? '')) return 'fine';
  return BROKEN_PHASES.has(outcome.reason ?? '') ? 'broken' : 'unjudged';
}

function ruleFor(link: LinkTarget): RuleDefinition {
  if (link.kinds.some((k) => k !== 'link')) return BROKEN_LINK_RULES.brokenResource;
  return link.internal ? BROKEN_LINK_RULES.brokenInternal : BROKEN_LINK_RULES.brokenExternal;
}

export interface JudgeInput {
  /** the links checked, in the order listed */
  checked: readonly { link: LinkTarget; outcome: LinkOutcome }[];
  /** links found but not checked (over the cap, out of time) */
  notChecked: readonly LinkTarget[];
  skipped: number;
  notes: readonly string[];
  /** the page's unfollowable <a> elements; absent when the page's anchors were not read (the rule is then not applicable) */
  unfollowable?: UnfollowableAnchors;
}

/** The report on a page's checked links. */
export function judgeLinks(input: JudgeInput): Report {
  const findings: Finding[] = [];
  const notes = [...input.notes];
  // Per rule: whether any link it judges was checked, and whether any could not be judged.
  const judged = new Map<string, { seen: boolean; unjudged: boolean }>();
  const mark = (rule: RuleDefinition, unjudgedLink: boolean) => {
    const m = judged.get(rule.id) ?? { seen: false, unjudged: false };
    if (unjudgedLink) m.unjudged = true;
    else m.seen = true;
    judged.set(rule.id, m);
  };
  let unjudgedCount = 0;
  for (const { link, outcome } of input.checked) {
    const verdict = verdictOf(outcome);
    const rule = ruleFor(link);
    mark(rule, verdict === 'unjudged');
    mark(BROKEN_LINK_RULES.privateAddress, false);
    if (link.internal && rule !== BROKEN_LINK_RULES.brokenResource) mark(BROKEN_LINK_RULES.redirectedInternal, verdict === 'unjudged');
    if (verdict === 'unjudged') unjudgedCount++;
    if (verdict === 'broken') findings.push(linkFinding(rule, rule.severity, link, outcome));
    if (verdict === 'refused') findings.push(linkFinding(BROKEN_LINK_RULES.privateAddress, 'medium', link, outcome));
    if (verdict === 'redirect' && link.internal && rule !== BROKEN_LINK_RULES.brokenResource) {
      findings.push(linkFinding(BROKEN_LINK_RULES.redirectedInternal, 'low', link, outcome));
    }
  }
  if (unjudgedCount > 0) notes.push(`${unjudgedCount} link${unjudgedCount === 1 ? '' : 's'} could not be judged (timed out or the fetcher was busy); see details.links`);
  if (input.notChecked.length > 0) notes.push(`${input.notChecked.length} link${input.notChecked.length === 1 ? ' was' : 's were'} not checked (over the link cap or the time budget); see details.notChecked`);

  const unfollowable = input.unfollowable;
  if (unfollowable !== undefined) {
    findings.push(...unfollowable.findings);
    mark(BROKEN_LINK_RULES.unfollowable, false);
  }
  const checks: Check[] = rules.map((rule) => {
    const m = judged.get(rule.id);
    if (!m) return notApplicable(rule);
    if (findings.some((f) => f.rule === rule.id)) return failed(rule);
    return m.seen ? passed(rule) : unknown(rule);
  });
  const counts: Record<LinkOutcomeKind, number> = { ok: 0, redirect: 0, broken: 0, refused: 0, failed: 0 };
  for (const { outcome } of input.checked) counts[outcome.outcome]++;
  return buildReport({
    categories: ['seo', 'best-practices'],
    checks,
    findings,
    rules,
    notes,
    details: {
      found: input.checked.length + input.notChecked.length,
      checked: input.checked.length,
      skipped: input.skipped,
      // how many <a> a crawler cannot follow (null: not read); each is in the crawlable-anchors finding
      notFollowable: unfollowable === undefined ? null : unfollowable.findings.length,
      unfollowableLinks: unfollowable?.listed ?? [],
      outcomes: counts,
      links: input.checked.map(({ link, outcome }) => ({ url: link.url, kinds: link.kinds, internal: link.internal, ...outcome, elements: link.elements, count: link.count })),
      notChecked: input.notChecked.map((l) => l.url),
    },
  });
}

function linkFinding(rule: RuleDefinition, severity: Severity, link: LinkTarget, outcome: LinkOutcome): Finding {
  const first = link.elements[0];
  const where = `${link.count} element${link.count === 1 ? '' : 's'}${first ? `, first at line ${first.line} (${first.selector})` : ''}`;
  const what = link.kinds.includes('link') && link.kinds.length === 1 ? 'link' : link.kinds.join('/');
  const category: Category = rule.category;
  const common = { rule: rule.id, category, severity, location: `url:${link.url}`, title: rule.title };
  const evidence = { url: link.url, ...(first ? { selector: first.selector, line: first.line, snippet: first.snippet } : {}) };
  if (rule === BROKEN_LINK_RULES.redirectedInternal) {
    return makeFinding({
      ...common,
      detail: `${link.url} redirects to ${outcome.finalUrl} (HTTP ${outcome.status} at the end); ${where} link to it, costing visitors and crawlers a round trip.`,
      evidence: { ...evidence, value: outcome.finalUrl ?? '' },
      fix: {
        patchType: 'html',
        change: `Point the links to ${link.url} at ${outcome.finalUrl} directly.`,
        acceptance: `No link on the page points to ${link.url}; its target answers without a redirect.`,
        roleHint: 'edit',
      },
    });
  }
  if (rule === BROKEN_LINK_RULES.privateAddress) {
    return makeFinding({
      ...common,
      detail: `The ${what} ${link.url} was not fetched: ${outcome.reason}. Visitors outside that network cannot reach it (${where}).`,
      evidence,
      fix: {
        patchType: 'html',
        change: `Replace ${link.url} with a public URL, or remove the ${what}.`,
        acceptance: `No element on the page points to ${link.url}.`,
        roleHint: 'edit',
      },
    });
  }
  const why = outcome.outcome === 'broken' ? `answers HTTP ${outcome.status}` : `could not be reached (${outcome.reason})`;
  return makeFinding({
    ...common,
    detail: `The ${what} ${link.url} ${why} to a ${outcome.method} request; ${where} use it.`,
    evidence: { ...evidence, ...(outcome.status === null ? {} : { value: String(outcome.status) }) },
    fix: {
      patchType: link.internal ? 'html' : 'content',
      change: link.internal
        ? `Restore ${link.url} on the server, or point the ${what} at the page or file that replaced it.`
        : `Point the ${what} at a working URL on the other site, or remove it.`,
      acceptance: `${link.url} answers 2xx, or no element on the page points to it.`,
      roleHint: 'edit',
    },
  });
}
