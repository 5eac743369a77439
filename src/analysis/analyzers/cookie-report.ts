// Cookie flags as a report: every Set-Cookie of the final response judged on its own (Secure,
// HttpOnly on session-like cookies, SameSite, the __Host-/__Secure- prefix rules, a Domain wider
// than the host, a lifetime past the 400 days browsers cap at). Category 'security-headers':
// cookies arrive in a response header, the fix is a change to that header, and the Observatory
// grade counts them there too. Redirect responses' cookies are not recorded by the fetcher, so a
// report on a redirected URL says so. Pure: facts in, report out.
import { makeFinding, type Finding, type Report, type Severity } from '../findings.ts';
import { parseHtml, resolveUrl, type HtmlDocument } from '../html-document.ts';
import { allSetCookies, type PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, notApplicable, unknown, type Analyzer, type RuleDefinition } from '../scoring.ts';
import { parseSetCookie, type CookieFlags } from './cookie-flags.ts';

const rule = (id: string, weight: number, severity: Severity, title: string): RuleDefinition => ({ id, category: 'security-headers', weight, severity, title });

export const COOKIE_RULES = {
  secure: rule('cookie-secure-missing', 4, 'high', 'A cookie can travel over plain http'),
  httpOnly: rule('cookie-httponly-missing', 4, 'high', 'A session cookie is readable by page scripts'),
  sameSiteMissing: rule('cookie-samesite-missing', 2, 'low', 'A cookie has no valid SameSite attribute'),
  sameSiteNone: rule('cookie-samesite-none-without-secure', 2, 'medium', 'SameSite=None without Secure'),
  prefix: rule('cookie-prefix-violation', 2, 'medium', 'A __Host- or __Secure- cookie breaks its prefix rules'),
  domain: rule('cookie-domain-too-broad', 1, 'low', 'A cookie is shared with every subdomain'),
  lifetime: rule('cookie-long-expiry', 1, 'low', 'A cookie lives longer than browsers allow'),
} as const;

export const rules: readonly RuleDefinition[] = Object.values(COOKIE_RULES);

/** Browsers cap a cookie's lifetime at 400 days (RFC 6265bis); longer asks are cut silently. */
export const MAX_LIFETIME_DAYS = 400;
const MAX_COOKIES = 100;
const DAY_S = 86_400;
const SAMESITE_VALUES = new Set(['strict', 'lax', 'none']);

export interface CookieDetails extends CookieFlags {
  domain: string | null;
  path: string | null;
  expires: string | null;
  maxAge: number | null;
  /** days from the response's Date (or the check) to expiry; null for a session (browser-lifetime) cookie */
  lifetimeDays: number | null;
  /** a Max-Age of 0 or an Expires in the past: the header deletes the cookie, so it is not judged */
  deletion: boolean;
}

/** The flags plus the attributes the prefix, domain and lifetime rules read. */
export function parseCookie(header: string, now: number): CookieDetails {
  const flags = parseSetCookie(header);
  let domain: string | null = null;
  let path: string | null = null;
  let expires: string | null = null;
  let maxAge: number | null = null;
  for (const attribute of header.split(';').slice(1)) {
    const [key = '', ...rest] = attribute.split('=');
    const k = key.trim().toLowerCase();
    const value = rest.join('=').trim();
    if (k === 'domain') domain = value.replace(/^\./, '').toLowerCase() || null;
    else if (k === 'path') path = value;
    else if (k === 'expires') expires = value;
    else if (k === 'max-age' && /^-?\d+$/.test(value)) maxAge = Number(value);
  }
  let lifetimeDays: number | null = null;
  if (maxAge !== null) lifetimeDays = maxAge / DAY_S;
  else if (expires !== null && !Number.isNaN(Date.parse(expires))) lifetimeDays = (Date.parse(expires) - now) / (DAY_S * 1000);
  if (lifetimeDays !== null) lifetimeDays = Math.round(lifetimeDays * 10) / 10;
  return { ...flags, domain, path, expires, maxAge, lifetimeDays, deletion: lifetimeDays !== null && lifetimeDays <= 0 };
}

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(_doc: HtmlDocument, facts: PageFacts | null, url: string): Report {
  if (facts === null) {
    return buildReport({
      categories: ['security-headers'],
      checks: rules.map(unknown),
      findings: [],
      notes: ['cookies need the response: HTML passed directly has no Set-Cookie headers'],
      details: { cookies: null },
    });
  }
  const pageUrl = resolveUrl(facts.finalUrl || url, null);
  const https = pageUrl?.protocol === 'https:';
  const host = pageUrl?.hostname.toLowerCase() ?? '';
  // Lifetimes are measured from the response's own Date, so a rerun judges the same header the same way.
  const dated = Date.parse(facts.headers['date'] ?? '');
  const now = Number.isNaN(dated) ? Date.now() : dated;
  const notes: string[] = [];
  // Cookies set by redirects on the way are kept by a browser: they are judged with the final response's.
  const all = allSetCookies(facts);
  if (all.length > MAX_COOKIES) notes.push(`the responses set ${all.length} cookies: the first ${MAX_COOKIES} were checked`);
  const headers = all.slice(0, MAX_COOKIES);
  const cookies = headers.map((h) => parseCookie(h, now));
  const findings: Finding[] = [];
  const seen = new Map<string, number>();

  cookies.forEach((cookie, i) => {
    const n = (seen.get(cookie.name) ?? 0) + 1;
    seen.set(cookie.name, n);
    if (cookie.deletion) return;
    const location = n === 1 ? `cookie:${cookie.name}` : `cookie:${cookie.name}#${n}`;
    const value = truncate(redactValue(headers[i] ?? ''));
    const add = (r: RuleDefinition, severity: Severity, detail: string, change: string, acceptance: string): void => {
      findings.push(
        makeFinding({
          rule: r.id,
          category: 'security-headers',
          severity,
          location,
          title: `${r.title}: ${cookie.name}`,
          detail,
          evidence: { header: 'set-cookie', value },
          fix: { patchType: 'http-header', change, acceptance, roleHint: 'config' },
        }),
      );
    };
    const kind = cookie.session ? 'session-like cookie' : 'cookie';

    if (!https || !cookie.secure) {
      add(COOKIE_RULES.secure, cookie.session ? 'high' : 'medium',
        https
          ? `The ${kind} ${cookie.name} has no Secure flag, so the browser also sends it on any http request to ${host}, where it can be read on the wire.`
          : `The ${kind} ${cookie.name} is set over plain http: it crossed the network in clear, whatever its flags.`,
        `Serve the page over https and add Secure to the Set-Cookie for ${cookie.name}.`,
        `The cookie ${cookie.name} is set on an https response with the Secure flag.`);
    }
    if (cookie.session && !cookie.httpOnly) {
      add(COOKIE_RULES.httpOnly, 'high',
        `${cookie.name} looks like a session cookie (by its name) and has no HttpOnly flag: any script on the page, an injected one included, can read and send it.`,
        `Add HttpOnly to the Set-Cookie for ${cookie.name}.`,
        `The cookie ${cookie.name} carries HttpOnly.`);
    }
    if (cookie.sameSite === null || !SAMESITE_VALUES.has(cookie.sameSite)) {
      add(COOKIE_RULES.sameSiteMissing, 'low',
        cookie.sameSite === null
          ? `${cookie.name} has no SameSite attribute, so its cross-site behaviour depends on the browser (some still send it on every cross-site request).`
          : `${cookie.name} has SameSite=${cookie.sameSite}, which browsers do not recognise and ignore.`,
        `Add SameSite=Lax (or Strict) to the Set-Cookie for ${cookie.name}.`,
        `The cookie ${cookie.name} carries SameSite=Lax, Strict, or None with Secure.`);
    }
    if (cookie.sameSite === 'none' && !cookie.secure) {
      add(COOKIE_RULES.sameSiteNone, 'medium',
        `${cookie.name} asks for SameSite=None without Secure; browsers reject such a cookie outright.`,
        `Add Secure to ${cookie.name}, or use SameSite=Lax if it need not be sent cross-site.`,
        `The cookie ${cookie.name} with SameSite=None also carries Secure.`);
    }
    const prefixProblem = prefixViolation(cookie, https);
    if (prefixProblem !== null) {
      add(COOKIE_RULES.prefix, 'medium',
        `${cookie.name} ${prefixProblem}; browsers reject the cookie, so whatever relies on it breaks.`,
        cookie.name.toLowerCase().startsWith('__host-')
          ? `Set ${cookie.name} over https with Secure; Path=/ and no Domain attribute.`
          : `Set ${cookie.name} over https with Secure.`,
        `The cookie ${cookie.name} meets its prefix's requirements.`);
    }
    if (cookie.domain !== null && cookie.domain !== host && host.endsWith(`.${cookie.domain}`)) {
      add(COOKIE_RULES.domain, cookie.session ? 'medium' : 'low',
        `${cookie.name} has Domain=${cookie.domain}, so every host under ${cookie.domain} receives it (and any of them can overwrite it), not only ${host}.`,
        `Drop the Domain attribute from ${cookie.name} (a host-only cookie), or use the __Host- prefix.`,
        `The cookie ${cookie.name} has no Domain attribute wider than ${host}.`);
    }
    if (cookie.lifetimeDays !== null && cookie.lifetimeDays > MAX_LIFETIME_DAYS) {
      add(COOKIE_RULES.lifetime, cookie.session ? 'medium' : 'low',
        `${cookie.name} asks to live ${Math.round(cookie.lifetimeDays)} days; browsers cut it to ${MAX_LIFETIME_DAYS}${cookie.session ? ', and a session that long outlives any reasonable sign-in' : ''}.`,
        `Give ${cookie.name} a Max-Age of at most ${MAX_LIFETIME_DAYS * DAY_S} seconds (${MAX_LIFETIME_DAYS} days)${cookie.session ? ', and far less for a session' : ''}.`,
        `The cookie ${cookie.name} expires within ${MAX_LIFETIME_DAYS} days.`);
    }
  });

  const judged = cookies.filter((c) => !c.deletion);
  return buildReport({
    categories: ['security-headers'],
    checks: rules.map((r) => {
      if (judged.length === 0) return notApplicable(r);
      if (r === COOKIE_RULES.httpOnly && !judged.some((c) => c.session)) return notApplicable(r);
      return checkFrom(r, findings);
    }),
    findings,
    rules,
    notes,
    details: { cookies, https },
  });
}

function prefixViolation(cookie: CookieDetails, https: boolean): string | null {
  const name = cookie.name.toLowerCase();
  if (name.startsWith('__secure-')) {
    if (!cookie.secure || !https) return 'has the __Secure- prefix but is not set with Secure on an https response';
  } else if (name.startsWith('__host-')) {
    const missing: string[] = [];
    if (!cookie.secure || !https) missing.push('Secure on an https response');
    if (cookie.path !== '/') missing.push('Path=/');
    if (cookie.domain !== null) missing.push('no Domain attribute');
    if (missing.length > 0) return `has the __Host- prefix but lacks ${missing.join(', ')}`;
  }
  return null;
}

/** The cookie's value is the site's secret, not evidence: only its name and attributes are shown. */
function redactValue(header: string): string {
  const semicolon = header.indexOf(';');
  const pair = semicolon === -1 ? header : header.slice(0, semicolon);
  const name = pair.split('=')[0]?.trim() ?? '';
  return `${name}=…${semicolon === -1 ? '' : header.slice(semicolon)}`;
}

function truncate(value: string): string {
  return value.length > 300 ? `${value.slice(0, 299)}…` : value;
}

export const cookieReportAnalyzer: Analyzer = {
  id: 'cookie-flags',
  categories: ['security-headers'],
  rules,
  analyze,
  analyzeDocument,
};
