// Canonical and hreflang: which URL a page asks search engines to index, and which pages it names
// as its versions in other languages. Reads <link rel=canonical>, <link rel=alternate hreflang>
// and the same in the Link header; judges the canonical's form and, given the tool's fetches of
// the targets, whether it answers 200 without redirect or noindex, and whether every alternate
// links back (hreflang only counts when the pages name each other). Pure: the tool fetches.
import { makeFinding, type Check, type Finding, type Report } from '../findings.ts';
import { attr, parseHtml, snippetOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, notApplicable, unknown, type Analyzer, type RuleDefinition } from '../scoring.ts';
import { indexingVerdict } from './robots-directives.ts';
import type { FetchOutcome } from './robots-sitemap.ts';

/** Alternates fetched to check their return links; the rest are listed in a note. */
export const MAX_ALTERNATES = 20;
const MAX_LINK_HEADER = 16_384;

// ISO 639-1 languages and ISO 3166-1 alpha-2 regions, the codes Google reads in hreflang.
const LANGUAGES = new Set(
  ('aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ' +
    'ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt ' +
    'lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn ' +
    'so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu').split(' '),
);
const REGIONS = new Set(
  ('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR ' +
    'CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
    'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO ' +
    'MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE ' +
    'SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ' +
    'ZA ZM ZW').split(' '),
);

// Lighthouse's canonical audit fails these two (meta-tags.ts judges them under the same ids, so a
// report of both analyzers holds one finding): each asks search engines to index another page.
export const CANONICAL_TO_ROOT = { id: 'canonical-points-to-root', audit: 'canonical', category: 'seo', weight: 3, severity: 'high', title: "The canonical URL points to the site's home page" } as const satisfies RuleDefinition;
export const CANONICAL_TO_ALTERNATE = { id: 'canonical-points-to-alternate', audit: 'canonical', category: 'seo', weight: 3, severity: 'high', title: "The canonical URL points to another language's version of the page" } as const satisfies RuleDefinition;

/**
 * How a canonical misdirects, as Lighthouse's canonical audit reads it: a deeper page naming its
 * site's home page (search engines then index only the home page), or one language's page naming
 * another language's alternate of its own hreflang set (the alternates cancel each other: each
 * language must name itself). null when neither; the same page is never a misdirection.
 */
export function canonicalMisdirection(canonical: string, pageUrl: string, alternates: readonly { hreflang: string; resolved: string | null }[]): { kind: 'root' } | { kind: 'alternate'; hreflang: string } | null {
  const target = normalise(canonical);
  const page = normalise(pageUrl);
  if (target === null || page === null || target === page) return null;
  const t = new URL(target);
  const p = new URL(page);
  if (t.origin === p.origin && t.pathname === '/' && t.search === '' && p.pathname !== '/') return { kind: 'root' };
  const alternate = alternates.find((a) => a.resolved !== null && normalise(a.resolved) === target);
  return alternate === undefined ? null : { kind: 'alternate', hreflang: alternate.hreflang };
}

export const CANONICAL_RULES = {
  canonicalMissing: { id: 'canonical-missing', category: 'seo', weight: 1, severity: 'low', title: 'The page names no canonical URL' },
  canonicalInvalid: { id: 'canonical-invalid', audit: 'canonical', category: 'seo', weight: 3, severity: 'high', title: 'The canonical URL is not a valid http(s) URL' },
  canonicalRelative: { id: 'canonical-relative', audit: 'canonical', category: 'seo', weight: 1, severity: 'low', title: 'The canonical URL is relative' },
  canonicalMultiple: { id: 'canonical-multiple', audit: 'canonical', category: 'seo', weight: 2, severity: 'medium', title: 'The page names conflicting canonical URLs' },
  canonicalOtherHost: { id: 'canonical-other-host', audit: 'canonical', category: 'seo', weight: 2, severity: 'medium', title: 'The canonical URL is on another host' },
  canonicalTargetError: { id: 'canonical-target-error', category: 'seo', weight: 3, severity: 'high', title: 'The canonical URL does not answer 200' },
  canonicalTargetRedirects: { id: 'canonical-target-redirects', category: 'seo', weight: 2, severity: 'medium', title: 'The canonical URL redirects' },
  canonicalTargetNoindex: { id: 'canonical-target-noindex', category: 'seo', weight: 3, severity: 'high', title: 'The canonical URL is noindex' },
  canonicalRoot: CANONICAL_TO_ROOT,
  canonicalOtherLanguage: CANONICAL_TO_ALTERNATE,
  hreflangInvalid: { id: 'hreflang-invalid-code', audit: 'hreflang', category: 'seo', weight: 2, severity: 'medium', title: 'An hreflang code is not a language(-region) code' },
  hreflangNoSelf: { id: 'hreflang-missing-self', category: 'seo', weight: 2, severity: 'medium', title: 'The hreflang set does not include the page itself' },
  hreflangNoDefault: { id: 'hreflang-missing-x-default', category: 'seo', weight: 1, severity: 'low', title: 'The hreflang set has no x-default' },
  hreflangDuplicate: { id: 'hreflang-duplicate', category: 'seo', weight: 2, severity: 'medium', title: 'An hreflang code is listed more than once' },
  hreflangTargetError: { id: 'hreflang-target-error', category: 'seo', weight: 2, severity: 'medium', title: 'An hreflang alternate does not answer 200' },
  hreflangNoReturn: { id: 'hreflang-no-return', category: 'seo', weight: 3, severity: 'medium', title: 'An hreflang alternate does not link back' },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(CANONICAL_RULES);

export interface LinkDeclaration {
  href: string;
  source: 'html' | 'header';
  /** the element's location (html) or 'header:link' */
  location: string;
  snippet: string;
  line?: number;
  /** the href resolved against the page, or null when it does not parse as http(s) */
  resolved: string | null;
  hreflang?: string;
}

export interface PageLinks {
  canonicals: LinkDeclaration[];
  alternates: LinkDeclaration[];
}

/** A URL without its fragment, so the same page compares equal however it is written. */
function normalise(value: string, base?: string): string | null {
  if (!URL.canParse(value, base)) return null;
  const url = new URL(value, base);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url.href;
}

/** Link header entries: `<url>; rel="canonical"`, `<url>; rel="alternate"; hreflang="de"`, bounded. */
export function parseLinkHeader(value: string): { href: string; params: Record<string, string> }[] {
  const out: { href: string; params: Record<string, string> }[] = [];
  const text = value.slice(0, MAX_LINK_HEADER);
  let at = 0;
  while (at < text.length && out.length < 200) {
    const open = text.indexOf('<', at);
    const close = open < 0 ? -1 : text.indexOf('>', open);
    if (close < 0) break;
    const href = text.slice(open + 1, close).trim();
    const next = text.indexOf('<', close);
    const params: Record<string, string> = {};
    for (const part of text.slice(close + 1, next < 0 ? text.length : next).split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      params[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim().replace(/,\s*$/, '').replace(/^"|"$/g, '');
    }
    out.push({ href, params });
    at = close + 1;
  }
  return out;
}

/** The canonical and hreflang declarations of a page, from its HTML and its Link header. */
export function readLinks(doc: HtmlDocument, headers: Record<string, string> | null, pageUrl: string): PageLinks {
  const links: PageLinks = { canonicals: [], alternates: [] };
  const base = doc.baseUrl?.href ?? pageUrl;
  for (const link of doc.byTag('link')) {
    const rel = (attr(link, 'rel') ?? '').toLowerCase().split(/\s+/);
    const href = (attr(link, 'href') ?? '').trim();
    const declaration: LinkDeclaration = { href, source: 'html', location: doc.locate(link), snippet: snippetOf(link), line: doc.lineOf(link), resolved: normalise(href, base) };
    if (rel.includes('canonical')) links.canonicals.push(declaration);
    const hreflang = attr(link, 'hreflang');
    if (rel.includes('alternate') && hreflang !== undefined) links.alternates.push({ ...declaration, hreflang: hreflang.trim() });
  }
  for (const entry of parseLinkHeader(headers?.['link'] ?? '')) {
    const rel = (entry.params['rel'] ?? '').toLowerCase().split(/\s+/);
    const declaration: LinkDeclaration = { href: entry.href, source: 'header', location: 'header:link', snippet: `<${entry.href.slice(0, 150)}>; rel="${entry.params['rel'] ?? ''}"`, resolved: normalise(entry.href, pageUrl) };
    if (rel.includes('canonical')) links.canonicals.push(declaration);
    const hreflang = entry.params['hreflang'];
    if (rel.includes('alternate') && hreflang !== undefined) links.alternates.push({ ...declaration, hreflang: hreflang.trim() });
  }
  return links;
}

/** The URLs the tool should fetch: the canonical when it is another page, then each distinct alternate but the page. */
export function targetsOf(links: PageLinks, pageUrls: readonly string[]): { canonical: string | null; alternates: string[] } {
  const self = new Set(pageUrls.map((u) => normalise(u)).filter((u) => u !== null));
  const first = links.canonicals[0]?.resolved ?? null;
  const alternates = [...new Set(links.alternates.map((a) => a.resolved).filter((u): u is string => u !== null && !self.has(u)))];
  return { canonical: first !== null && !self.has(first) ? first : null, alternates };
}

export function validHreflang(code: string): boolean {
  if (code.toLowerCase() === 'x-default') return true;
  const m = /^([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|\d{3}))?$/i.exec(code);
  if (!m) return false;
  const [, language = '', , region] = m;
  if (language.length === 2 && !LANGUAGES.has(language.toLowerCase())) return false;
  return region === undefined || /^\d{3}$/.test(region) || REGIONS.has(region.toUpperCase());
}

/** What keeps the target out of Google's index (robots-directives.ts: per crawler, unavailable_after read), or null. */
function isNoindex(facts: PageFacts): string | null {
  const header = facts.headers['x-robots-tag'] ?? null;
  if (header !== null && indexingVerdict({ metas: [], header }).blocking.length > 0) return `X-Robots-Tag: ${header.slice(0, 100)}`;
  if (!isHtml(facts)) return null;
  const doc = parseHtml(facts.text, facts.finalUrl);
  for (const meta of doc.byTag('meta')) {
    const tag = { name: attr(meta, 'name') ?? '', content: attr(meta, 'content') ?? '' };
    if (indexingVerdict({ metas: [tag], header: null }).blocking.length > 0) return snippetOf(meta);
  }
  return null;
}

const isHtml = (facts: PageFacts) => facts.mediaType === null || facts.mediaType === 'text/html' || facts.mediaType === 'application/xhtml+xml';

/**
 * targets: what the tool fetched, by URL (targetsOf); null when nothing was fetched (HTML given
 * alone), which leaves the target rules unknown.
 */
export function analyzeCanonicalHreflang(doc: HtmlDocument, facts: PageFacts | null, url: string, targets: ReadonlyMap<string, FetchOutcome> | null): Report {
  const C = CANONICAL_RULES;
  const findings: Finding[] = [];
  const notes: string[] = [...doc.notes];
  const info: string[] = [];
  const skipped = new Map<string, 'unknown' | 'not_applicable'>();
  const add = (rule: RuleDefinition, location: string, detail: string, evidence: Finding['evidence'], change: string, acceptance: string, patchType: 'html' | 'config' | 'investigate' = 'html') =>
    findings.push(makeFinding({ rule: rule.id, category: rule.category, severity: rule.severity, location, title: rule.title, detail, evidence, fix: { patchType, change, acceptance, roleHint: patchType === 'config' ? 'config' : 'edit' } }));
  const pageUrl = facts?.finalUrl ?? url;
  const pageUrls = [pageUrl, facts?.requestedUrl ?? url];
  const self = new Set(pageUrls.map((u) => normalise(u)));
  const pageHost = URL.canParse(pageUrl) ? new URL(pageUrl).hostname : '';
  const links = readLinks(doc, facts?.headers ?? null, pageUrl);
  const at = (d: LinkDeclaration): Finding['evidence'] => (d.source === 'header' ? { header: 'link', value: d.snippet } : { selector: d.location, snippet: d.snippet, ...(d.line ? { line: d.line } : {}) });
  const targetRules = [C.canonicalTargetError, C.canonicalTargetRedirects, C.canonicalTargetNoindex];

  // The canonical.
  const canonical = links.canonicals[0];
  if (canonical === undefined) {
    // A canonical is optional (Lighthouse's canonical audit is not applicable without one): search
    // engines then choose the URL themselves. Said as a remark, neither a failure nor a finding, so
    // a page without one is not scored 0 "poor".
    info.push(`the page names no canonical URL (optional: search engines choose one; add <link rel="canonical" href="${pageUrl}"> if copies of the page exist under other URLs)`);
    for (const rule of [C.canonicalMissing, C.canonicalInvalid, C.canonicalRelative, C.canonicalMultiple, C.canonicalOtherHost, C.canonicalRoot, C.canonicalOtherLanguage, ...targetRules]) skipped.set(rule.id, 'not_applicable');
  } else {
    for (const d of links.canonicals) {
      if (d.resolved === null) add(C.canonicalInvalid, `canonical:${d.location}`, `The canonical href "${d.href.slice(0, 200)}" is ${d.href === '' ? 'empty' : 'not an http(s) URL'}, so search engines ignore it.`, at(d), `Set the canonical href to this page's absolute URL (${pageUrl}).`, 'The canonical href is an absolute http(s) URL.');
      else if (!/^https?:\/\//i.test(d.href)) add(C.canonicalRelative, `canonical:${d.location}`, `The canonical href "${d.href.slice(0, 200)}" is relative (resolves to ${d.resolved}); Google asks for absolute URLs, and a relative one breaks on copies served under another host or path.`, at(d), `Write the canonical href as ${d.resolved}.`, 'The canonical href starts with https:// or http://.');
    }
    const distinct = [...new Set(links.canonicals.map((d) => d.resolved ?? d.href))];
    if (distinct.length > 1) {
      add(C.canonicalMultiple, 'canonical:multiple', `The page names ${distinct.length} different canonical URLs (${distinct.slice(0, 5).join(', ')}); search engines ignore conflicting declarations and choose on their own.`, at(links.canonicals[1] ?? canonical), 'Keep one canonical declaration (in <head> or the Link header, not both with different URLs).', 'All canonical declarations name the same URL.');
    }
    const target = canonical.resolved;
    if (target !== null && new URL(target).hostname !== pageHost) {
      add(C.canonicalOtherHost, 'canonical:host', `The canonical URL ${target} is on ${new URL(target).hostname}, not ${pageHost}: search engines index that host's page instead of this one.`, { ...at(canonical), url: target }, `Point the canonical at ${pageHost}, unless this page really is a copy of ${target}.`, `The canonical URL's host is ${pageHost}.`);
    }
    const misdirection = target === null ? null : canonicalMisdirection(target, pageUrl, links.alternates.map((a) => ({ hreflang: a.hreflang ?? '', resolved: a.resolved })));
    if (target !== null && misdirection?.kind === 'root') {
      add(C.canonicalRoot, 'canonical:root', `The canonical URL ${target} is the site's home page, not this page (${pageUrl}): search engines are asked to index the home page instead, and this page drops out of results.`, { ...at(canonical), url: target }, `Point the canonical at this page's own URL (${pageUrl}), or at the page whose content it duplicates.`, `The canonical URL is not the home page of ${pageHost}.`);
    } else if (target !== null && misdirection?.kind === 'alternate') {
      add(C.canonicalOtherLanguage, 'canonical:alternate', `The canonical URL ${target} is this page's hreflang="${misdirection.hreflang}" alternate: search engines are asked to index that language's page instead of this one, and the hreflang pair cancels out. Each language's page must name itself as canonical.`, { ...at(canonical), url: target }, `Point the canonical at this page's own URL (${pageUrl}).`, `The canonical URL is not one of the page's other hreflang alternates.`);
    } else if (target === null) {
      for (const rule of [C.canonicalRoot, C.canonicalOtherLanguage]) skipped.set(rule.id, 'not_applicable');
    }
    if (target === null || self.has(target)) {
      // A self-referencing canonical: the page itself was fetched, nothing more to check.
      for (const rule of targetRules) skipped.set(rule.id, 'not_applicable');
    } else {
      const outcome = targets?.get(target);
      if (outcome === undefined) {
        for (const rule of targetRules) skipped.set(rule.id, 'unknown');
        if (targets !== null) notes.push(`the canonical URL ${target} was not fetched`);
      } else if (outcome.facts === null || outcome.facts.status !== 200) {
        const why = outcome.facts === null ? `could not be fetched (${outcome.error?.message ?? 'no answer'})` : `answers HTTP ${outcome.facts.status}`;
        add(C.canonicalTargetError, 'canonical:target', `The canonical URL ${target} ${why}; search engines ignore a canonical that does not lead to a page.`, { ...at(canonical), url: target }, `Point the canonical at a URL that answers 200 (usually ${pageUrl} itself).`, `The canonical URL answers 200.`);
        skipped.set(C.canonicalTargetNoindex.id, 'unknown');
        if (outcome.facts === null) skipped.set(C.canonicalTargetRedirects.id, 'unknown');
      } else {
        const targetFacts = outcome.facts;
        if (targetFacts.redirects.length > 0) {
          add(C.canonicalTargetRedirects, 'canonical:target', `The canonical URL ${target} redirects (${targetFacts.redirects.length} hop(s)) to ${targetFacts.finalUrl}; a canonical should name the final URL.`, { ...at(canonical), url: target }, `Change the canonical href to ${targetFacts.finalUrl}.`, 'The canonical URL answers 200 without redirecting.');
        }
        const noindex = isNoindex(targetFacts);
        if (noindex !== null) {
          add(C.canonicalTargetNoindex, 'canonical:target', `The canonical URL ${target} is marked noindex (${noindex}): the page asks to be indexed as a page that forbids indexing, so neither is.`, { ...at(canonical), url: target, value: noindex }, `Remove noindex from ${target}, or point the canonical at an indexable page.`, 'The canonical URL carries no noindex.', 'investigate');
        }
      }
    }
  }

  // hreflang.
  const alternates = links.alternates;
  const hreflangDetails = alternates.map((a) => ({ hreflang: a.hreflang ?? '', href: a.href, source: a.source, returns: null as boolean | null, status: null as number | null }));
  if (alternates.length === 0) {
    for (const rule of rules) if (rule.id.startsWith('hreflang-')) skipped.set(rule.id, 'not_applicable');
  } else {
    const byCode = new Map<string, LinkDeclaration[]>();
    for (const a of alternates) {
      const code = a.hreflang ?? '';
      if (!validHreflang(code)) {
        const hint = /^[a-z]{2}[_-]uk$/i.test(code) ? ' (the United Kingdom is GB)' : code.includes('_') ? ' (use a hyphen, not an underscore)' : '';
        add(C.hreflangInvalid, `hreflang:${code}:${a.location}`, `hreflang="${code.slice(0, 50)}" is not an ISO 639-1 language with an optional ISO 3166-1 region${hint}; search engines ignore the alternate.`, at(a), `Write hreflang as a language code, optionally a hyphen and a region (e.g. en, en-GB, de-AT), or x-default.`, `Every hreflang code is valid.`);
      }
      const key = code.toLowerCase();
      byCode.set(key, [...(byCode.get(key) ?? []), a]);
    }
    for (const [code, list] of byCode) {
      if (list.length > 1) add(C.hreflangDuplicate, `hreflang-duplicate:${code}`, `hreflang="${code}" is listed ${list.length} times (${list.map((d) => d.href).slice(0, 5).join(', ')}); search engines may drop the code altogether.`, at(list[1] ?? list[0] as LinkDeclaration), `Keep one alternate for ${code}.`, `Each hreflang code is listed once.`);
    }
    if (!alternates.some((a) => a.resolved !== null && self.has(a.resolved))) {
      add(C.hreflangNoSelf, 'hreflang:self', `The alternates name ${alternates.length} page(s) but not this one (${pageUrl}); each page of a set must list itself too.`, {}, `Add <link rel="alternate" hreflang="<this page's language>" href="${pageUrl}">.`, 'One alternate points at the page itself.');
    }
    if (!byCode.has('x-default')) {
      add(C.hreflangNoDefault, 'hreflang:x-default', 'No alternate is marked x-default, the page for visitors whose language is not listed.', {}, 'Add <link rel="alternate" hreflang="x-default" href="…"> naming the language chooser or the default page.', 'The alternates include x-default.');
    }
    // Return links: each alternate page must name this page among its own alternates.
    const fetchList = targetsOf(links, pageUrls).alternates;
    if (targets === null) {
      skipped.set(C.hreflangNoReturn.id, 'unknown');
      skipped.set(C.hreflangTargetError.id, 'unknown');
    } else {
      let judged = 0;
      for (const href of fetchList) {
        const outcome = targets.get(href);
        const entries = hreflangDetails.filter((d, i) => alternates[i]?.resolved === href);
        if (outcome === undefined) continue;
        judged++;
        const decl = alternates.find((a) => a.resolved === href) as LinkDeclaration;
        for (const e of entries) e.status = outcome.facts?.status ?? null;
        if (outcome.facts === null || outcome.facts.status !== 200) {
          const why = outcome.facts === null ? `could not be fetched (${outcome.error?.message ?? 'no answer'})` : `answers HTTP ${outcome.facts.status}`;
          add(C.hreflangTargetError, `hreflang-target:${href}`, `The hreflang="${decl.hreflang}" alternate ${href} ${why}; search engines drop an alternate that is not a page.`, { ...at(decl), url: href }, `Point hreflang="${decl.hreflang}" at a URL that answers 200, or remove it.`, `${href} answers 200.`);
          continue;
        }
        const theirs = isHtml(outcome.facts) ? readLinks(parseHtml(outcome.facts.text, outcome.facts.finalUrl), outcome.facts.headers, outcome.facts.finalUrl) : readLinks(parseHtml('', href), outcome.facts.headers, href);
        const returns = theirs.alternates.some((a) => a.resolved !== null && self.has(a.resolved));
        for (const e of entries) e.returns = returns;
        if (!returns) {
          add(C.hreflangNoReturn, `hreflang-return:${href}`, `${href} (hreflang="${decl.hreflang}") does not list ${pageUrl} among its hreflang alternates; without the return link search engines ignore the pair.`, { ...at(decl), url: href }, `Add <link rel="alternate" hreflang="<this page's language>" href="${pageUrl}"> to ${href} (every page of the set lists every other, and itself).`, `${href} links back to ${pageUrl} with hreflang.`);
        }
      }
      if (fetchList.length > judged) notes.push(`${fetchList.length - judged} hreflang alternate(s) not fetched (at most ${MAX_ALTERNATES} are): their return links were not checked`);
      if (judged === 0) {
        skipped.set(C.hreflangNoReturn.id, fetchList.length === 0 ? 'not_applicable' : 'unknown');
        skipped.set(C.hreflangTargetError.id, fetchList.length === 0 ? 'not_applicable' : 'unknown');
      }
    }
  }

  const checks: Check[] = rules.map((rule) => {
    const why = skipped.get(rule.id);
    if (why === undefined || findings.some((f) => f.rule === rule.id)) return checkFrom(rule, findings);
    return why === 'unknown' ? unknown(rule) : notApplicable(rule);
  });
  return buildReport({
    categories: ['seo'],
    checks,
    findings,
    rules,
    notes,
    info,
    details: {
      canonicals: links.canonicals.map((d) => ({ href: d.href, resolved: d.resolved, source: d.source })),
      canonicalStatus: canonical?.resolved ? (targets?.get(canonical.resolved)?.facts?.status ?? null) : null,
      hreflang: hreflangDetails,
    },
  });
}

export const canonicalHreflangAnalyzer: Analyzer = {
  id: 'canonical-hreflang',
  categories: ['seo'],
  rules,
  analyze: (html, facts, url) => analyzeCanonicalHreflang(parseHtml(html, url), facts, url, null),
  analyzeDocument: (doc, facts, url) => analyzeCanonicalHreflang(doc, facts, url, null),
};
