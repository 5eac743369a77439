// Redirect chains: every hop between the URL asked for and the page that answered costs a round
// trip (and a DNS lookup and TLS handshake when the host changes), and search engines pass link
// value through permanent redirects more surely than temporary ones. Judges the hops the fetcher
// recorded (facts.redirects), or the fetcher's refusal past 10 hops. Pure: no network here.
import { makeFinding, type Check, type Finding, type Report } from '../findings.ts';
import type { HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, unknown, type Analyzer, type RuleDefinition } from '../scoring.ts';

const TEMPORARY = new Set([302, 307]);

export const REDIRECT_RULES = {
  chain: { id: 'redirect-chain', category: 'http-status', weight: 2, severity: 'medium', title: 'The URL redirects more than once' },
  loop: { id: 'redirect-loop', category: 'http-status', weight: 5, severity: 'high', title: 'The redirects loop or never end' },
  temporary: { id: 'redirect-temporary', category: 'http-status', weight: 1, severity: 'low', title: 'A redirect is temporary (302/307)' },
  downgrade: { id: 'redirect-https-downgrade', category: 'best-practices', weight: 3, severity: 'high', title: 'A redirect leads from https to http' },
  mixedHosts: { id: 'redirect-mixed-hosts', category: 'http-status', weight: 1, severity: 'low', title: 'The redirects cross to another host' },
  finalStatus: { id: 'redirect-final-status', category: 'http-status', weight: 5, severity: 'high', title: 'The chain does not end in a 200' },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(REDIRECT_RULES);

/** Why the fetcher gave up on the redirects, when it did. */
export interface RedirectFailure {
  /** too-many: past the fetcher's 10 hops (a loop or an endless chain); invalid-location: a Location that is not a URL */
  kind: 'too-many' | 'invalid-location';
  message: string;
  /** the last URL reached, when known */
  stoppedAt: string | null;
}

export interface RedirectInput {
  requestedUrl: string;
  /** the fetch's facts; null when it failed in its redirects (then failure says why) or was not made */
  facts: PageFacts | null;
  failure: RedirectFailure | null;
}

export interface HopDetail {
  url: string;
  status: number;
  location: string;
  /** the location resolved against the hop's URL */
  target: string;
}

/** A host without a leading www., so example.com to www.example.com is the same site. */
const site = (host: string) => host.replace(/^www\./, '');

export function analyzeRedirects(input: RedirectInput): Report {
  const R = REDIRECT_RULES;
  const findings: Finding[] = [];
  const add = (rule: RuleDefinition, location: string, detail: string, evidence: Finding['evidence'], change: string, acceptance: string) =>
    findings.push(makeFinding({ rule: rule.id, category: rule.category, severity: rule.severity, location, title: rule.title, detail, evidence, fix: { patchType: 'config', change, acceptance, roleHint: 'config' } }));
  const { facts, failure, requestedUrl } = input;

  if (facts === null) {
    const judged = failure === null ? [] : failure.kind === 'too-many' ? [R.loop, R.chain] : [R.finalStatus];
    if (failure?.kind === 'invalid-location') {
      const at = failure.stoppedAt ?? requestedUrl;
      add(R.finalStatus, 'final', `The chain ends at a redirect that cannot be followed: ${failure.message}.`, { url: at, header: 'location' }, `Make ${at} redirect to an absolute, valid URL (or answer 200 itself).`, `${requestedUrl} ends in HTTP 200.`);
    } else if (failure) {
      add(R.loop, 'redirects', `The fetch stopped: ${failure.message}. Browsers give up on such a chain (ERR_TOO_MANY_REDIRECTS) and crawlers drop the URL.`, { url: failure.stoppedAt ?? requestedUrl }, `Follow the redirects from ${requestedUrl} in the server configuration and break the cycle: each URL should redirect once, straight to the final page.`, `${requestedUrl} ends in a 200 after at most one redirect.`);
      add(R.chain, 'redirects', 'The chain is longer than the fetcher follows (10 hops).', { url: requestedUrl }, `Redirect ${requestedUrl} straight to its final URL.`, `${requestedUrl} reaches its page in at most one redirect.`);
    }
    const checks: Check[] = rules.map((rule) => (judged.some((r) => r.id === rule.id) ? checkFrom(rule, findings) : unknown(rule)));
    return buildReport({
      categories: ['http-status', 'best-practices'],
      checks,
      findings,
      rules,
      notes: [failure ? `the hops were not recorded (${failure.kind === 'too-many' ? 'past the fetcher\'s limit' : 'a broken Location'}): only ${judged.map((r) => r.id).join(' and ')} judged` : 'no response facts: the redirects were not fetched'],
      details: { hops: [], finalUrl: failure?.stoppedAt ?? null, finalStatus: null, hopCount: null },
    });
  }

  const hops: HopDetail[] = facts.redirects.map((h) => ({ url: h.url, status: h.status, location: h.location, target: URL.canParse(h.location, h.url) ? new URL(h.location, h.url).href : h.location }));
  const chainText = [...hops.map((h) => `${h.url} (${h.status})`), `${facts.finalUrl} (${facts.status})`].join(' → ');

  if (hops.length > 1) {
    add(R.chain, 'redirects', `${requestedUrl} takes ${hops.length} redirects to reach its page: ${chainText}. Each hop is another round trip before the page starts loading.`, { url: requestedUrl, value: chainText.slice(0, 500) }, `Redirect ${requestedUrl} (and every URL in the chain) straight to ${facts.finalUrl} in one hop.`, `${requestedUrl} reaches ${facts.finalUrl} in at most one redirect.`);
  }
  // A URL seen twice means the chain went round before leaving (a cookie or header broke the cycle).
  const seen = new Set<string>();
  const repeated = hops.find((h) => (seen.has(h.url) ? true : (seen.add(h.url), false)));
  if (repeated) {
    add(R.loop, 'redirects', `The chain visits ${repeated.url} twice: ${chainText}. Without the cookie or header that broke the cycle here, it loops.`, { url: repeated.url, value: chainText.slice(0, 500) }, `Make ${repeated.url} redirect to ${facts.finalUrl} unconditionally, or not at all.`, `No URL appears twice in the redirect chain of ${requestedUrl}.`);
  }
  for (const hop of hops) {
    if (TEMPORARY.has(hop.status)) {
      add(R.temporary, `redirect:${hop.url}`, `${hop.url} answers ${hop.status} (temporary) to ${hop.target}. Search engines keep indexing the old URL and may not pass its links' value to the new one; use a permanent redirect when the move is for good.`, { url: hop.url, header: 'location', value: hop.location.slice(0, 300) }, `Answer ${hop.url} with 301 (or 308 to keep the method) to ${hop.target}, unless the redirect really is temporary.`, `${hop.url} redirects with 301 or 308.`);
    }
    if (hop.url.startsWith('https:') && hop.target.startsWith('http:')) {
      add(R.downgrade, `downgrade:${hop.url}`, `${hop.url} redirects to ${hop.target}, from https to plain http: the next request can be read and altered on the way, and browsers warn about it.`, { url: hop.url, header: 'location', value: hop.location.slice(0, 300) }, `Redirect ${hop.url} to the https URL of ${hop.target}, and serve that page over https.`, `No hop in the chain from ${requestedUrl} leads from https to http.`);
    }
  }
  const hosts = [...new Set([requestedUrl, ...hops.map((h) => h.target), facts.finalUrl].map((u) => (URL.canParse(u) ? new URL(u).hostname : u)))];
  if (new Set(hosts.map(site)).size > 1 || hosts.length > 2) {
    add(R.mixedHosts, 'redirects', `The chain passes through ${hosts.length} hosts (${hosts.join(', ')}); each new host costs a DNS lookup, a connection and a TLS handshake, and a host outside the site is a dependency the page does not control.`, { url: requestedUrl, value: hosts.join(', ') }, `Link to ${facts.finalUrl} directly, and redirect old URLs to it in one hop on their own host.`, `The chain from ${requestedUrl} stays on one host (www. aside).`);
  }
  if (facts.status !== 200) {
    add(R.finalStatus, 'final', `The chain ends at ${facts.finalUrl} with HTTP ${facts.status}, not 200: ${chainText}.`, { url: facts.finalUrl, value: String(facts.status) }, facts.status >= 400 ? `Redirect ${requestedUrl} to a page that exists, or restore ${facts.finalUrl}.` : `Make ${facts.finalUrl} answer 200 with the page.`, `${requestedUrl} ends in HTTP 200.`);
  }

  return buildReport({
    categories: ['http-status', 'best-practices'],
    checks: rules.map((rule) => checkFrom(rule, findings)),
    findings,
    rules,
    details: { hops, finalUrl: facts.finalUrl, finalStatus: facts.status, hopCount: hops.length },
  });
}

/** The chain from a fetcher's refusal message: "more than 10 redirects (stopped at <url>)". */
export function redirectFailure(message: string): RedirectFailure {
  const tooMany = /\(stopped at (\S+)\)/.exec(message);
  if (tooMany || /more than \d+ redirects/.test(message)) return { kind: 'too-many', message, stoppedAt: tooMany?.[1] ?? null };
  return { kind: 'invalid-location', message, stoppedAt: /redirect from (\S+) points/.exec(message)?.[1] ?? null };
}

export const redirectChainAnalyzer: Analyzer = {
  id: 'redirect-chain',
  categories: ['http-status', 'best-practices'],
  rules,
  analyze: (_html, facts, url) => analyzeRedirects({ requestedUrl: facts?.requestedUrl ?? url, facts, failure: null }),
  analyzeDocument: (_doc: HtmlDocument, facts, url) => analyzeRedirects({ requestedUrl: facts?.requestedUrl ?? url, facts, failure: null }),
};
