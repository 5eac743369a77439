// robots.txt and sitemaps: whether the site tells crawlers what they may fetch and where its URLs
// are. robots.txt is read the RFC 9309 way (robots-txt.ts: groups, the most specific group for a
// crawler, the longest matching rule, allow winning a tie, `*` and a final `$`); sitemaps are read tolerantly with bounded scans for <loc> and <lastmod> (never an XML
// parser, so no entity is ever expanded). Pure: the tool fetches, this judges what it got.
import { makeFinding, type Check, type Finding, type Report, type Severity } from '../findings.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, notApplicable, unknown, type RuleDefinition } from '../scoring.ts';
import { MATCH_BUDGET, parseRobots, ROBOTS_MAX_BYTES, rulesFor, verdictFor, type ParsedRobots, type RobotsRule } from './robots-txt.ts';

export { parseRobots, ROBOTS_MAX_BYTES, rulesFor, verdictFor } from './robots-txt.ts';
export type { ParsedRobots, RobotsGroup, RobotsProblem, RobotsRule, RobotsVerdict } from './robots-txt.ts';

export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
const CRAWLERS = ['Googlebot', '*'] as const;

export const ROBOTS_RULES = {
  robotsMissing: { id: 'robots-missing', category: 'seo', weight: 1, severity: 'low', title: 'The site has no robots.txt' },
  // robots-txt (a 5xx or unreadable robots.txt, lines it calls invalid) and is-crawlable (the page disallowed
  // for Googlebot) are Lighthouse's audits; the home page blocked is not the page's own verdict there.
  robotsError: { id: 'robots-server-error', audit: 'robots-txt', category: 'seo', weight: 5, severity: 'high', title: 'robots.txt answers a server error' },
  robotsNotText: { id: 'robots-not-text', category: 'seo', weight: 1, severity: 'low', title: 'robots.txt is not served as text/plain' },
  robotsTooLarge: { id: 'robots-too-large', category: 'seo', weight: 2, severity: 'medium', title: 'robots.txt is over 512 KB' },
  robotsSyntax: { id: 'robots-syntax-error', audit: 'robots-txt', category: 'seo', weight: 2, severity: 'medium', title: 'A robots.txt line is not a valid rule' },
  pageDisallowed: { id: 'robots-page-disallowed', audit: 'is-crawlable', category: 'seo', weight: 5, severity: 'high', title: 'robots.txt blocks the page from crawlers' },
  siteDisallowed: { id: 'robots-site-disallowed', category: 'seo', weight: 5, severity: 'high', title: 'robots.txt blocks the whole site' },
  // Googlebot has a group of its own that lets it in: the page stays in Google, other engines lose it.
  othersDisallowed: { id: 'robots-crawlers-disallowed', category: 'seo', weight: 1, severity: 'low', title: 'robots.txt blocks crawlers other than Googlebot' },
  noSitemap: { id: 'robots-no-sitemap', category: 'seo', weight: 1, severity: 'low', title: 'robots.txt names no sitemap' },
  sitemapMissing: { id: 'sitemap-missing', category: 'seo', weight: 3, severity: 'medium', title: 'A sitemap cannot be fetched' },
  sitemapNotXml: { id: 'sitemap-not-xml', category: 'seo', weight: 3, severity: 'medium', title: 'A sitemap is not XML' },
  sitemapRoot: { id: 'sitemap-wrong-root', category: 'seo', weight: 3, severity: 'medium', title: 'A sitemap is not a <urlset> or <sitemapindex>' },
  sitemapTooLarge: { id: 'sitemap-too-large', category: 'seo', weight: 2, severity: 'medium', title: 'A sitemap is over 50,000 URLs or 50 MB' },
  sitemapOtherHost: { id: 'sitemap-other-host', category: 'seo', weight: 2, severity: 'medium', title: 'A sitemap lists URLs on another host' },
  sitemapLastmod: { id: 'sitemap-invalid-lastmod', category: 'seo', weight: 1, severity: 'low', title: 'A sitemap <lastmod> is not a W3C date' },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(ROBOTS_RULES);

/** A fetch as a tool saw it: the facts, or why there were none. */
export type FetchOutcome =
  | { url: string; facts: PageFacts; error: null }
  | { url: string; facts: null; error: { code: string; phase: string | null; message: string } };

export interface SitemapRead {
  kind: 'urlset' | 'sitemapindex' | 'text' | null;
  /** the root element's name when it is neither */
  root: string | null;
  /** <loc> entries counted, at most SITEMAP_MAX_URLS + 1 */
  urls: number;
  /** child sitemaps of an index, at most 1000 */
  children: string[];
  otherHost: { count: number; first: string | null };
  invalidLastmod: { count: number; first: string | null };
}

const LOC = /<loc>(?:\s*<!\[CDATA\[([^\]]*)\]\]>\s*|([^<]*))<\/loc>/g;
const LASTMOD = /<lastmod>([^<]*)<\/lastmod>/g;
const ROOT = /^(?:\s+|<\?[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^[>]*(?:\[[^\]]*\])?\s*>)*<([A-Za-z_][\w.:-]*)/i;

/** Reads a sitemap's text without an XML parser: the root element, then bounded scans of <loc> and <lastmod>. */
export function readSitemap(text: string, mediaType: string | null, siteHost: string): SitemapRead {
  const read: SitemapRead = { kind: null, root: null, urls: 0, children: [], otherHost: { count: 0, first: null }, invalidLastmod: { count: 0, first: null } };
  const body = text.replace(/^\uFEFF/, '');
  const root = ROOT.exec(body.slice(0, 4096))?.[1]?.toLowerCase().replace(/^[\w.-]+:/, '') ?? null;
  const host = (value: string) => {
    let h: string | null = null;
    try {
      h = new URL(value).hostname;
    } catch {
      h = null;
    }
    if (h !== siteHost) {
      read.otherHost.count++;
      read.otherHost.first ??= value.slice(0, 300);
    }
  };
  if (root === null) {
    // The sitemap protocol also allows a plain text file of URLs, one a line.
    if (mediaType !== 'text/plain' || !/^\s*https?:\/\//i.test(body)) return read;
    read.kind = 'text';
    for (const line of body.split('\n', SITEMAP_MAX_URLS + 2)) {
      if (line.trim() === '' || read.urls > SITEMAP_MAX_URLS) continue;
      read.urls++;
      host(line.trim());
    }
    return read;
  }
  if (root !== 'urlset' && root !== 'sitemapindex') {
    read.root = root;
    return read;
  }
  read.kind = root;
  for (const m of body.matchAll(LOC)) {
    if (++read.urls > SITEMAP_MAX_URLS) break;
    const loc = decodeXmlText((m[1] ?? m[2] ?? '').trim());
    host(loc);
    if (root === 'sitemapindex' && read.children.length < 1000) read.children.push(loc);
  }
  let lastmods = 0;
  for (const m of body.matchAll(LASTMOD)) {
    if (++lastmods > SITEMAP_MAX_URLS) break;
    const value = (m[1] ?? '').trim();
    if (!isW3cDate(value)) {
      read.invalidLastmod.count++;
      read.invalidLastmod.first ??= value.slice(0, 100);
    }
  }
  return read;
}

/** Only the five predefined entities and character references: nothing a document declares is expanded. */
function decodeXmlText(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-f]{1,6});/gi, (all, name: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (!name.startsWith('#')) return named[name.toLowerCase()] ?? all;
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

const W3C_DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-](\d{2}):(\d{2})))?)?)?$/;

/** The W3C Datetime profile the sitemap protocol names: YYYY, YYYY-MM, YYYY-MM-DD, or a time with a zone. */
export function isW3cDate(value: string): boolean {
  const m = W3C_DATE.exec(value);
  if (!m) return false;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', , zh = '00', zm = '00'] = m;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  return date.getUTCMonth() === Number(mo) - 1 && date.getUTCDate() === Number(d) && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60 && Number(zh) < 24 && Number(zm) < 60;
}

export interface SitemapFetch {
  /** named in robots.txt, listed in a sitemap index, or the /sitemap.xml tried when robots.txt names none */
  source: 'robots' | 'index' | 'default';
  outcome: FetchOutcome;
}

export interface RobotsSitemapInput {
  /** the page the caller asked about */
  pageUrl: string;
  robots: FetchOutcome;
  sitemaps: readonly SitemapFetch[];
  /** sitemaps named but not followed (past the cap), reported in a note */
  unfollowed: readonly string[];
  /**
   * Distinct same-host pages the analysed page links to (countInternalLinks), read when no
   * sitemap exists at all; null or absent when the page was not read.
   */
  internalLinks?: number | null;
}

/**
 * At most this many internal links on the page, and a site without any sitemap is taken for a
 * small, navigable one. Google says a site of about 500 pages or fewer that is linked internally
 * may not need a sitemap; one page cannot show the site's size, but a page reaching its site
 * through a short menu (<= 100 links) is the small-site shape, while shops and news front pages
 * link hundreds. Then a missing sitemap is low, weighed as lightly as a missing Sitemap line;
 * past it (or when the page could not be read) it stays medium.
 */
export const SMALL_SITE_INTERNAL_LINKS = 100;
const SMALL_SITE_SITEMAP_WEIGHT = 1;
const MAX_LINK_SCAN_CHARS = 2 * 1024 * 1024;
const MAX_LINKS_COUNTED = 1000;

/** Distinct same-host http(s) pages a page links to (fragments ignored): a bounded scan of <a href>, no HTML parse. */
export function countInternalLinks(html: string, pageUrl: string): number {
  const page = new URL(pageUrl);
  const text = html.slice(0, MAX_LINK_SCAN_CHARS);
  const base = /<base\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(text);
  const baseHref = base ? (base[1] ?? base[2] ?? base[3] ?? '') : '';
  const baseUrl = URL.canParse(baseHref, pageUrl) ? new URL(baseHref, pageUrl).href : pageUrl;
  const seen = new Set<string>();
  for (const m of text.matchAll(/<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    const href = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (!URL.canParse(href, baseUrl)) continue;
    const target = new URL(href, baseUrl);
    if ((target.protocol !== 'https:' && target.protocol !== 'http:') || target.hostname !== page.hostname) continue;
    target.hash = '';
    seen.add(target.href);
    if (seen.size >= MAX_LINKS_COUNTED) break;
  }
  return seen.size;
}

export function analyzeRobotsSitemap(input: RobotsSitemapInput): Report {
  const findings: Finding[] = [];
  const notes: string[] = [];
  const judged = new Map<string, 'unknown' | 'not_applicable'>();
  const skip = (rule: RuleDefinition, why: 'unknown' | 'not_applicable') => judged.set(rule.id, why);
  const add = (rule: RuleDefinition, location: string, detail: string, evidence: Finding['evidence'], change: string, acceptance: string, patchType: 'file' | 'config' = 'file', severity: Severity = rule.severity) =>
    findings.push(makeFinding({ rule: rule.id, category: rule.category, severity, location, title: rule.title, detail, evidence, fix: { patchType, change, acceptance, roleHint: patchType === 'config' ? 'config' : 'edit' } }));
  const page = new URL(input.pageUrl);
  const robotsUrl = input.robots.url;
  const R = ROBOTS_RULES;

  // robots.txt itself.
  let parsed: ParsedRobots | null = null;
  const facts = input.robots.facts;
  if (facts === null) {
    const error = input.robots.error;
    if (error?.phase === 'size') {
      add(R.robotsTooLarge, 'robots.txt', `robots.txt is over ${ROBOTS_MAX_BYTES} bytes; crawlers read only the first 500 KiB (RFC 9309 2.5), so later rules are lost.`, { url: robotsUrl }, 'Shorten robots.txt: merge rules with * patterns and remove rules for paths that no longer exist.', `${robotsUrl} is under 512 KB.`);
    } else if (error?.phase === 'redirects') {
      add(R.robotsMissing, 'robots.txt', `robots.txt could not be reached through its redirects (${error.message}); crawlers treat that as no robots.txt.`, { url: robotsUrl }, 'Serve robots.txt at the site root with status 200, or with at most one redirect.', `${robotsUrl} answers 200 text/plain.`);
    } else {
      add(R.robotsError, 'robots.txt', `robots.txt could not be read (${error?.message ?? 'no answer'}); Google treats an unreachable robots.txt as a full disallow.`, { url: robotsUrl }, 'Make the server answer robots.txt with 200 (or 404 when there are no rules).', `${robotsUrl} answers 200 or 404.`, 'config');
    }
  } else if (facts.status >= 500) {
    add(R.robotsError, 'robots.txt', `robots.txt answers HTTP ${facts.status}; Google treats a server error there as "disallow everything" and stops crawling the site.`, { url: robotsUrl, value: String(facts.status) }, 'Fix the server so robots.txt answers 200 (or 404 when there are no rules).', `${robotsUrl} answers 200 or 404.`, 'config');
  } else if (facts.status >= 400) {
    add(R.robotsMissing, 'robots.txt', `robots.txt answers HTTP ${facts.status}: crawlers may fetch everything, and the file cannot point them to a sitemap.`, { url: robotsUrl, value: String(facts.status) }, 'Add a robots.txt at the site root with at least "User-agent: *", "Allow: /" and a Sitemap line.', `${robotsUrl} answers 200 text/plain.`);
  } else {
    const looksHtml = facts.mediaType === 'text/html' || /^\s*<(!doctype|html)/i.test(facts.text.slice(0, 200));
    if (facts.mediaType !== 'text/plain') {
      add(R.robotsNotText, 'robots.txt', `robots.txt is served as ${facts.mediaType ?? 'no declared type'}${looksHtml ? ' and reads as an HTML page (a catch-all route answering it)' : ''}; crawlers expect text/plain.`, { url: robotsUrl, header: 'content-type', value: facts.headers['content-type'] ?? '' }, 'Serve robots.txt as a static text file with Content-Type: text/plain.', `${robotsUrl} answers Content-Type text/plain.`, 'config');
    }
    parsed = looksHtml ? { groups: [], sitemaps: [], problems: [] } : parseRobots(facts.text);
    if (looksHtml) skip(R.robotsSyntax, 'not_applicable');
    for (const p of parsed.problems) {
      add(R.robotsSyntax, `robots.txt:line:${p.line}`, `Line ${p.line}: ${p.reason}.`, { url: robotsUrl, line: p.line, snippet: p.text }, `Fix or remove line ${p.line} of robots.txt ("${p.text.slice(0, 80)}").`, `Line ${p.line} of robots.txt is a valid user-agent, allow, disallow or sitemap line.`);
    }
    // Google requires a fully-qualified sitemap URL and does not resolve a relative one (its
    // robots.txt spec: "Google doesn't assume or check http/https/www alternates"), so the line
    // is reported with the absolute URL it meant, resolved against robots.txt's own URL; the tool
    // still reads that sitemap, so its content is judged too.
    for (const sitemap of parsed.sitemaps) {
      if (/^https?:\/\//i.test(sitemap.url)) continue;
      const meant = URL.canParse(sitemap.url, facts.finalUrl) ? new URL(sitemap.url, facts.finalUrl).href : null;
      add(R.robotsSyntax, `robots.txt:line:${sitemap.line}`, `Line ${sitemap.line}: the Sitemap URL "${sitemap.url.slice(0, 200)}" is not absolute; Google reads only a fully-qualified sitemap URL and ignores this line.`, { url: robotsUrl, line: sitemap.line, snippet: `Sitemap: ${sitemap.url.slice(0, 200)}` }, meant === null ? `Write the sitemap's absolute URL on line ${sitemap.line} of robots.txt ("Sitemap: https://…").` : `Write line ${sitemap.line} of robots.txt as "Sitemap: ${meant}".`, `Every Sitemap line of robots.txt names an absolute http(s) URL.`);
    }
  }
  if (facts === null || facts.status >= 400) skip(R.robotsNotText, 'not_applicable');

  // What crawlers may fetch. A missing robots.txt allows everything; an unreadable one is not guessed at.
  const groups: { userAgents: string[]; allow: string[]; disallow: string[] }[] = [];
  if (parsed === null && (facts === null || facts.status >= 500)) {
    for (const rule of [R.pageDisallowed, R.siteDisallowed, R.othersDisallowed]) skip(rule, 'unknown');
    for (const rule of [R.robotsSyntax, R.noSitemap]) skip(rule, 'not_applicable');
  } else if (parsed === null) {
    for (const rule of [R.robotsSyntax, R.noSitemap]) skip(rule, 'not_applicable');
  } else {
    for (const g of parsed.groups.slice(0, 100)) {
      groups.push({ userAgents: g.userAgents, allow: g.rules.filter((r) => r.allow).slice(0, 50).map((r) => r.pattern), disallow: g.rules.filter((r) => !r.allow).slice(0, 50).map((r) => r.pattern) });
    }
    try {
      // A crawler without a group of its own obeys the * group, so one Disallow line can block
      // both crawlers: it is one defect with one fix, reported once naming every crawler it blocks.
      const budget = { steps: 0 };
      const site = new Map<RobotsRule, string[]>();
      const blocked = new Map<RobotsRule, string[]>();
      for (const crawler of CRAWLERS) {
        const crawlerRules = rulesFor(parsed, crawler);
        const home = verdictFor(crawlerRules, '/', budget);
        const pageVerdict = verdictFor(crawlerRules, page.pathname + page.search, budget);
        if (!home.allowed && home.rule) site.set(home.rule, [...(site.get(home.rule) ?? []), crawler]);
        if (!pageVerdict.allowed && pageVerdict.rule) blocked.set(pageVerdict.rule, [...(blocked.get(pageVerdict.rule) ?? []), crawler]);
      }
      const who = (crawlers: string[]) => crawlers.map((c) => (c === '*' ? 'all crawlers (*)' : c)).join(' and ');
      const parsedGroups = parsed.groups;
      const groupOf = (rule: RobotsRule) => `the group of "User-agent: ${parsedGroups.find((g) => g.rules.includes(rule))?.userAgents.join(', ') ?? '*'}"`;
      // A line that blocks Googlebot keeps the page (or site) out of Google: that is the high
      // finding, naming * too when the same line blocks it. A line blocking * alone while Googlebot
      // has a group of its own that allows it costs the other search engines only: low.
      const others = (map: Map<RobotsRule, string[]>, where: 'site' | 'page') => {
        for (const [rule, crawlers] of map) {
          if (crawlers.includes('Googlebot')) continue;
          map.delete(rule);
          const path = where === 'site' ? '/' : `${page.pathname}${page.search}`;
          add(R.othersDisallowed, `robots:${where}:others:line:${rule.line}`, `"Disallow: ${rule.pattern}" (line ${rule.line}) in ${groupOf(rule)} blocks every crawler without a group of its own from ${where === 'site' ? "the site's home page" : path}; Googlebot has its own group and may crawl it, so the page can be in Google, but Bing, DuckDuckGo and other search engines leave it out.`, { url: where === 'site' ? robotsUrl : input.pageUrl, line: rule.line, snippet: `Disallow: ${rule.pattern}` }, `Remove "Disallow: ${rule.pattern}" (line ${rule.line}) from ${groupOf(rule)}, or give the crawlers that should index ${path} groups of their own, unless only Google should list it.`, `${path} is allowed for * in ${robotsUrl}.`);
        }
      };
      others(site, 'site');
      others(blocked, 'page');
      for (const [rule, crawlers] of site) {
        add(R.siteDisallowed, `robots:site:line:${rule.line}`, `"Disallow: ${rule.pattern}" (line ${rule.line}) blocks ${who(crawlers)} from the site's home page, so the site drops out of search results.`, { url: robotsUrl, line: rule.line, snippet: `Disallow: ${rule.pattern}` }, `Remove "Disallow: ${rule.pattern}" (line ${rule.line}) from ${groupOf(rule)} (or add "Allow: /"), unless the whole site should stay out of search.`, `/ is allowed for ${crawlers.join(' and ')} in ${robotsUrl}.`);
      }
      for (const [rule, crawlers] of blocked) {
        add(R.pageDisallowed, `robots:page:line:${rule.line}`, `"Disallow: ${rule.pattern}" (line ${rule.line}) blocks ${who(crawlers)} from ${page.pathname}${page.search}; the page cannot be crawled, and links to it may show without a snippet.`, { url: input.pageUrl, line: rule.line, snippet: `Disallow: ${rule.pattern}` }, `Narrow or remove "Disallow: ${rule.pattern}" (line ${rule.line}), or add a longer "Allow: ${page.pathname}" rule to ${groupOf(rule)}.`, `${page.pathname} is allowed for ${crawlers.join(' and ')} in ${robotsUrl}.`);
      }
    } catch {
      notes.push(`robots.txt has too many wildcard rules to match within ${MATCH_BUDGET} steps: whether the page is allowed was not decided`);
      for (const rule of [R.pageDisallowed, R.siteDisallowed, R.othersDisallowed]) skip(rule, 'unknown');
    }
    if (parsed.sitemaps.length === 0) {
      add(R.noSitemap, 'robots:sitemap', 'robots.txt has no Sitemap line, so crawlers must find the sitemap on their own.', { url: robotsUrl }, `Add "Sitemap: ${page.origin}/sitemap.xml" (the sitemap's absolute URL) to robots.txt.`, 'robots.txt has a Sitemap line with an absolute URL.');
    }
  }

  // The sitemaps.
  const links = input.internalLinks ?? null;
  const smallSite = links !== null && links <= SMALL_SITE_INTERNAL_LINKS;
  const sitemapDetails = input.sitemaps.map((s) => sitemapFindings(s, page.hostname, add, notes, smallSite ? 'low' : ROBOTS_RULES.sitemapMissing.severity));
  if (input.sitemaps.length === 0) for (const rule of [R.sitemapMissing, R.sitemapNotXml, R.sitemapRoot, R.sitemapTooLarge, R.sitemapOtherHost, R.sitemapLastmod]) skip(rule, 'not_applicable');
  if (input.unfollowed.length > 0) notes.push(`${input.unfollowed.length} more sitemap(s) not followed (at most ${input.sitemaps.length} are read): ${input.unfollowed.slice(0, 5).join(', ')}`);

  const checks: Check[] = rules.map((rule) => {
    const why = judged.get(rule.id);
    if (why !== undefined && !findings.some((f) => f.rule === rule.id)) return why === 'unknown' ? unknown(rule) : notApplicable(rule);
    const check = checkFrom(rule, findings);
    // only the default /sitemap.xml of a small site missing: weighed as the low finding it is
    const onlySmallDefault = rule.id === R.sitemapMissing.id && findings.filter((f) => f.rule === rule.id).every((f) => f.severity === 'low');
    return check.result === 'fail' && onlySmallDefault ? { ...check, weight: SMALL_SITE_SITEMAP_WEIGHT } : check;
  });
  return buildReport({
    categories: ['seo'],
    checks,
    findings,
    rules,
    notes,
    details: { robotsUrl, robotsStatus: facts?.status ?? null, groups, sitemaps: sitemapDetails, internalLinks: links },
  });
}

type Add = (rule: RuleDefinition, location: string, detail: string, evidence: Finding['evidence'], change: string, acceptance: string, patchType?: 'file' | 'config', severity?: Severity) => void;

function sitemapFindings(s: SitemapFetch, siteHost: string, add: Add, notes: string[], defaultMissingSeverity: Severity) {
  const R = ROBOTS_RULES;
  const url = s.outcome.url;
  const at = `sitemap:${url}`;
  const facts = s.outcome.facts;
  const detail = { url, source: s.source, status: facts?.status ?? null, kind: null as SitemapRead['kind'], urls: null as number | null };
  if (facts === null || facts.status !== 200) {
    const error = s.outcome.error;
    if (error?.phase === 'size') {
      const declared = Number(/declares (\d+) bytes/.exec(error.message)?.[1] ?? 0);
      if (declared > SITEMAP_MAX_BYTES) add(R.sitemapTooLarge, at, `The sitemap declares ${declared} bytes, over the protocol's 50 MB (uncompressed) limit.`, { url }, 'Split the sitemap into files under 50 MB and 50,000 URLs each, listed in a sitemap index.', `${url} is under 50 MB.`);
      else notes.push(`${url}: over the fetch size cap, not read`);
      return detail;
    }
    const why = facts === null ? `could not be fetched (${error?.message ?? 'no answer'})` : `answers HTTP ${facts.status}`;
    const source = s.source === 'default' ? 'robots.txt names no sitemap and the default /sitemap.xml' : s.source === 'index' ? 'A sitemap listed in the sitemap index' : 'The sitemap named in robots.txt';
    // a sitemap robots.txt or an index names is a broken reference whatever the site's size
    const small = s.source === 'default' && defaultMissingSeverity === 'low';
    const size = small ? ' The page links few pages of its site, so crawlers can find them without a sitemap: worth adding, not urgent.' : '';
    add(R.sitemapMissing, at, `${source} ${why}.${size}`, { url, ...(facts ? { value: String(facts.status) } : {}) }, s.source === 'default' ? 'Publish a sitemap at /sitemap.xml and name it in robots.txt with a Sitemap line.' : `Serve ${url} with status 200, or correct the URL that names it.`, `${url} answers 200 with a sitemap.`, 'file', s.source === 'default' ? defaultMissingSeverity : R.sitemapMissing.severity);
    return detail;
  }
  if (facts.body.length >= 2 && facts.body[0] === 0x1f && facts.body[1] === 0x8b) {
    notes.push(`${url}: a gzip file (not Content-Encoding), not decompressed here`);
    return detail;
  }
  const read = readSitemap(facts.text, facts.mediaType, siteHost);
  detail.kind = read.kind;
  detail.urls = read.kind === null ? null : Math.min(read.urls, SITEMAP_MAX_URLS);
  const isHtml = facts.mediaType === 'text/html' || read.root === 'html';
  if (read.kind === null && (read.root === null || isHtml)) {
    add(R.sitemapNotXml, at, `The sitemap is served as ${facts.mediaType ?? 'no declared type'} and is not XML${isHtml ? ' (an HTML page)' : ''}.`, { url, header: 'content-type', value: facts.headers['content-type'] ?? '' }, `Serve ${url} as an XML <urlset> (Content-Type application/xml).`, `${url} is XML with a <urlset> or <sitemapindex> root.`);
    return detail;
  }
  if (read.kind === null) {
    add(R.sitemapRoot, at, `The sitemap's root element is <${read.root}>, not <urlset> or <sitemapindex>, so crawlers read no URLs from it.`, { url, snippet: `<${read.root}>` }, `Make the root of ${url} <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">.`, `${url} has a <urlset> or <sitemapindex> root.`);
    return detail;
  }
  if (read.urls > SITEMAP_MAX_URLS || facts.body.length > SITEMAP_MAX_BYTES) {
    add(R.sitemapTooLarge, at, read.urls > SITEMAP_MAX_URLS ? `The sitemap lists more than ${SITEMAP_MAX_URLS} URLs; crawlers ignore what is past the limit.` : `The sitemap is ${facts.body.length} bytes, over 50 MB.`, { url }, 'Split the sitemap into files of at most 50,000 URLs and 50 MB, listed in a sitemap index.', `${url} lists at most 50,000 URLs.`);
  }
  if (read.otherHost.count > 0) {
    add(R.sitemapOtherHost, at, `${read.otherHost.count} URL(s) in the sitemap are not on ${siteHost} (first: ${read.otherHost.first}); crawlers drop URLs a sitemap may not vouch for.`, { url, value: read.otherHost.first ?? '' }, `List only ${siteHost} URLs in ${url}; give each other host its own sitemap.`, `Every <loc> in ${url} is on ${siteHost}.`);
  }
  if (read.invalidLastmod.count > 0) {
    add(R.sitemapLastmod, at, `${read.invalidLastmod.count} <lastmod> value(s) are not W3C dates (first: "${read.invalidLastmod.first}"); crawlers ignore them.`, { url, value: read.invalidLastmod.first ?? '' }, 'Write <lastmod> as YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00.', `Every <lastmod> in ${url} is a W3C date.`);
  }
  return detail;
}
