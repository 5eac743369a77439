/**
 * Response-header sets modelled on real sites, each on a host of its own under .sec.test, served
 * on https (:443, the bench's test CA) and http (:80), because the Observatory and our grader
 * both look at the http twin of the page (does it redirect to https?) and send a CORS preflight.
 */

export interface HeaderSet {
  id: string;
  about: string;
  /** the https page's headers (a string[] for several Set-Cookie lines) */
  headers: Record<string, string | string[]>;
  /** what http://host/ does: redirect to https (301), serve the page itself, or hop through another http URL first */
  http: 'redirect' | 'serve' | 'redirect-via-http';
  /** false: nothing listens for this host on https (the connection is reset) */
  https?: boolean;
  /** a preflight (OPTIONS) answer: echo the Origin with credentials */
  echoOrigin?: boolean;
  /** extra markup in the page's head */
  head?: string;
  /** https://host/ answers 302 to /welcome with this Set-Cookie (a login wall that starts a session on the redirect) */
  cookieOnRedirect?: string;
}

export const hostOf = (set: Pick<HeaderSet, 'id'>): string => `${set.id}.sec.test`;

const HSTS_2Y = 'max-age=63072000; includeSubDomains; preload';
const HSTS_1Y = 'max-age=31536000';
const STRICT_CSP = "default-src 'none'; script-src 'nonce-r4nd0m' 'strict-dynamic'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const HARDENED = {
  'content-security-policy': "default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'",
  'strict-transport-security': HSTS_1Y,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

export const HEADER_SETS: HeaderSet[] = [
  { id: 'strict-nonce-csp', about: 'a big-tech login page: nonce CSP with strict-dynamic, HSTS preload, every header', http: 'redirect', headers: { 'content-security-policy': STRICT_CSP, 'strict-transport-security': HSTS_2Y, 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer', 'cross-origin-resource-policy': 'same-origin', 'cross-origin-opener-policy': 'same-origin' } },
  { id: 'unsafe-inline-csp', about: 'a WordPress site: CSP allowing unsafe-inline scripts and styles', http: 'redirect', headers: { ...HARDENED, 'content-security-policy': "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.sec.test; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:" } },
  { id: 'unsafe-eval-csp', about: 'a SPA: CSP with unsafe-eval for its template engine', http: 'redirect', headers: { ...HARDENED, 'content-security-policy': "default-src 'self'; script-src 'self' 'unsafe-eval'; object-src 'none'" } },
  { id: 'no-csp', about: 'a news site: HSTS, nosniff, framing, but no CSP', http: 'redirect', headers: { 'strict-transport-security': HSTS_1Y, 'x-content-type-options': 'nosniff', 'x-frame-options': 'SAMEORIGIN', 'referrer-policy': 'strict-origin-when-cross-origin' } },
  { id: 'bare', about: 'a small business site on shared hosting: no security header at all', http: 'redirect', headers: {} },
  { id: 'hsts-short', about: 'HSTS for one day only', http: 'redirect', headers: { ...HARDENED, 'strict-transport-security': 'max-age=86400' } },
  { id: 'hsts-six-months', about: 'HSTS for exactly 180 days (15552000 s)', http: 'redirect', headers: { ...HARDENED, 'strict-transport-security': 'max-age=15552000' } },
  { id: 'hsts-preload', about: 'HSTS two years with includeSubDomains and preload', http: 'redirect', headers: { ...HARDENED, 'strict-transport-security': HSTS_2Y } },
  { id: 'frame-ancestors-only', about: "framing blocked by CSP frame-ancestors 'none', no X-Frame-Options", http: 'redirect', headers: { 'content-security-policy': "default-src 'self'; object-src 'none'; frame-ancestors 'none'", 'strict-transport-security': HSTS_1Y, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } },
  { id: 'xfo-allow-from', about: 'X-Frame-Options: ALLOW-FROM (obsolete, invalid) and no frame-ancestors', http: 'redirect', headers: { ...HARDENED, 'content-security-policy': "default-src 'self'; object-src 'none'", 'x-frame-options': 'ALLOW-FROM https://partner.sec.test' } },
  { id: 'session-no-httponly', about: 'a shop: session cookie Secure but not HttpOnly, behind HSTS', http: 'redirect', headers: { ...HARDENED, 'set-cookie': ['sessionid=7f3a9c; Path=/; Secure; SameSite=Lax', 'cart=3; Path=/; Secure; SameSite=Lax'] } },
  { id: 'session-insecure', about: 'a PHP forum: PHPSESSID without Secure or HttpOnly', http: 'redirect', headers: { ...HARDENED, 'set-cookie': 'PHPSESSID=a1b2c3d4; path=/' } },
  { id: 'samesite-none-insecure', about: 'an embed widget: SameSite=None cookies without Secure', http: 'redirect', headers: { ...HARDENED, 'set-cookie': ['widget_sid=9911; Path=/; HttpOnly; SameSite=None', 'prefs=compact; Path=/; SameSite=None'] } },
  { id: 'xsrf-token', about: 'an Angular app: XSRF-TOKEN readable by script (as designed), Secure, SameSite=Strict; session __Host- cookie', http: 'redirect', headers: { ...HARDENED, 'set-cookie': ['XSRF-TOKEN=4c1e; Path=/; Secure; SameSite=Strict', '__Host-session=aa91; Path=/; Secure; HttpOnly; SameSite=Lax'] } },
  { id: 'good-cookies', about: 'a bank: every cookie Secure, HttpOnly, SameSite, __Host- prefixed', http: 'redirect', headers: { ...HARDENED, 'set-cookie': ['__Host-sid=1f2e; Path=/; Secure; HttpOnly; SameSite=Strict', '__Secure-lang=en; Path=/; Secure; HttpOnly; SameSite=Lax'] } },
  { id: 'cors-star-credentials', about: 'an API: Access-Control-Allow-Origin * with credentials (browsers refuse the pair)', http: 'redirect', headers: { ...HARDENED, 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' } },
  { id: 'cors-echo', about: 'an API that echoes any Origin with credentials on the preflight', http: 'redirect', echoOrigin: true, headers: { ...HARDENED } },
  { id: 'cors-public', about: 'a public CDN: Access-Control-Allow-Origin * without credentials', http: 'redirect', headers: { ...HARDENED, 'access-control-allow-origin': '*' } },
  { id: 'referrer-unsafe-url', about: 'Referrer-Policy: unsafe-url (full URLs leak to every site)', http: 'redirect', headers: { ...HARDENED, 'referrer-policy': 'unsafe-url' } },
  { id: 'referrer-no-referrer', about: 'Referrer-Policy: no-referrer with the rest hardened', http: 'redirect', headers: { ...HARDENED, 'referrer-policy': 'no-referrer' } },
  { id: 'nosniff-missing', about: 'hardened except X-Content-Type-Options', http: 'redirect', headers: { ...HARDENED, 'x-content-type-options': '' } },
  { id: 'http-no-redirect', about: 'https is hardened but http serves the page without redirecting', http: 'serve', headers: { ...HARDENED } },
  { id: 'http-only', about: 'a site with no https at all (http only)', http: 'serve', https: false, headers: { 'x-frame-options': 'SAMEORIGIN' } },
  { id: 'redirect-via-http', about: 'http redirects to http://www. first, then to https', http: 'redirect-via-http', headers: { ...HARDENED } },
  { id: 'csp-report-only', about: 'CSP only in Report-Only mode (not enforced)', http: 'redirect', headers: { ...HARDENED, 'content-security-policy': '', 'content-security-policy-report-only': "default-src 'self'; report-uri /csp" } },
  { id: 'csp-meta', about: 'CSP delivered by <meta http-equiv>, not by a header', http: 'redirect', head: `<meta http-equiv="Content-Security-Policy" content="default-src 'self'; object-src 'none'; base-uri 'self'">`, headers: { ...HARDENED, 'content-security-policy': '' } },
  { id: 'sri-same-site-cdn', about: 'scripts from the site\'s own CDN host (cdn.sec.test) without integrity', http: 'redirect', head: '<script src="https://cdn.sec.test/lib.js"></script><script src="https://cdn.sec.test/plugin.js"></script>', headers: { ...HARDENED, 'content-security-policy': "default-src 'self'; script-src 'self' https://cdn.sec.test; object-src 'none'" } },
  { id: 'sri-foreign-cdn', about: 'jQuery from a public CDN (another domain) over https without integrity', http: 'redirect', head: '<script src="https://cdn.publiccdn.test/jquery.min.js"></script>', headers: { ...HARDENED, 'content-security-policy': "default-src 'self'; script-src 'self' https://cdn.publiccdn.test; object-src 'none'" } },
  { id: 'sri-foreign-integrity', about: 'a public CDN script with an integrity attribute', http: 'redirect', head: '<script src="https://cdn.publiccdn.test/jquery.min.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script>', headers: { ...HARDENED, 'content-security-policy': "default-src 'self'; script-src 'self' https://cdn.publiccdn.test; object-src 'none'" } },
  { id: 'sri-foreign-http', about: 'an analytics script loaded over http from another domain, no integrity', http: 'redirect', head: '<script src="http://cdn.publiccdn.test/analytics.js"></script>', headers: { ...HARDENED, 'content-security-policy': "default-src 'self'; script-src 'self' http://cdn.publiccdn.test; object-src 'none'" } },
  { id: 'cookie-on-redirect', about: 'https://host/ 302s to /welcome and sets a session cookie without HttpOnly on the redirect', http: 'redirect', cookieOnRedirect: 'sessionid=5e1f; Path=/; Secure; SameSite=Lax', headers: { ...HARDENED } },
  { id: 'hsts-doubled', about: 'two Strict-Transport-Security headers (a proxy adds a second)', http: 'redirect', headers: { ...HARDENED, 'strict-transport-security': [HSTS_1Y, 'max-age=600'] } },
];
