// Set-Cookie parsing and the MDN HTTP Observatory's cookie results, per cookie and for the page,
// on its own so the cookie-flags checker tool can reuse it.

export interface CookieFlags {
  name: string;
  secure: boolean;
  httpOnly: boolean;
  /** the SameSite value as sent, lower-cased, or null when absent */
  sameSite: string | null;
  /** a session cookie by name (a broad heuristic, for the cookie checker): its theft is an account takeover */
  session: boolean;
  antiCsrf: boolean;
  /** a session cookie as the Observatory names one (the name contains "login" or "sess"): what the grade counts */
  gradedSession: boolean;
  /** an anti-CSRF cookie as the Observatory names one (the name contains "csrf", so XSRF-TOKEN is not one) */
  gradedAntiCsrf: boolean;
}

export interface CookieOutcome {
  result: string;
  modifier: number;
  description: string;
}

const SESSION_NAME = /sess|sid|auth|token|login/i;
const CSRF_NAME = /csrf|xsrf/i;
// The Observatory's own name tests (src/analyzer/tests/cookies.js): plain substrings, nothing wider.
const GRADED_SESSION_NAME = /login|sess/i;
const GRADED_CSRF_NAME = /csrf/i;
const SAMESITE_VALUES = new Set(['strict', 'lax', 'none']);

export function parseSetCookie(header: string): CookieFlags {
  const [pair = '', ...attributes] = header.split(';');
  const name = pair.split('=')[0]?.trim() ?? '';
  let secure = false;
  let httpOnly = false;
  let sameSite: string | null = null;
  for (const attribute of attributes) {
    const [key = '', ...rest] = attribute.split('=');
    const k = key.trim().toLowerCase();
    if (k === 'secure') secure = true;
    else if (k === 'httponly') httpOnly = true;
    else if (k === 'samesite') sameSite = rest.join('=').trim().toLowerCase();
  }
  // Anti-CSRF tokens are often meant to be read by page scripts, so they are not session cookies.
  const antiCsrf = CSRF_NAME.test(name);
  const gradedAntiCsrf = GRADED_CSRF_NAME.test(name);
  return { name, secure, httpOnly, sameSite, session: SESSION_NAME.test(name) && !antiCsrf, antiCsrf, gradedSession: GRADED_SESSION_NAME.test(name), gradedAntiCsrf };
}

/**
 * The Observatory's cookie results (modifiers from src/grader/charts.js), listed from least to
 * most severe in its own "goodness" order: a page's result is the last of this list any cookie
 * reaches. The order is not the modifiers' (a session cookie without Secure behind HSTS, -10, is
 * worse than a plain cookie without Secure, -20), so it is kept as the Observatory keeps it.
 */
const COOKIE_FAILURES = {
  withoutSecureHsts: { result: 'cookies-without-secure-flag-but-protected-by-hsts', modifier: -5, description: 'Cookie set without the Secure flag, though HSTS keeps it off http.' },
  withoutSecure: { result: 'cookies-without-secure-flag', modifier: -20, description: 'Cookie set without the Secure flag, or over http.' },
  sessionWithoutSecureHsts: { result: 'cookies-session-without-secure-flag-but-protected-by-hsts', modifier: -10, description: 'Session cookie set without the Secure flag, though HSTS keeps it off http.' },
  sameSiteInvalid: { result: 'cookies-samesite-flag-invalid', modifier: -20, description: 'The SameSite attribute is not Strict, Lax or None, or is None without Secure.' },
  antiCsrfWithoutSameSite: { result: 'cookies-anticsrf-without-samesite-flag', modifier: -20, description: 'Anti-CSRF token set without the SameSite attribute.' },
  sessionWithoutHttpOnly: { result: 'cookies-session-without-httponly-flag', modifier: -30, description: 'Session cookie set without the HttpOnly flag: page scripts can read it.' },
  sessionWithoutSecure: { result: 'cookies-session-without-secure-flag', modifier: -40, description: 'Session cookie set without the Secure flag, or over http.' },
} as const satisfies Record<string, CookieOutcome>;
const GOODNESS: readonly CookieOutcome[] = Object.values(COOKIE_FAILURES);

const WITH_SAMESITE: CookieOutcome = { result: 'cookies-secure-with-httponly-sessions-and-samesite', modifier: 5, description: 'Secure, HttpOnly when a session cookie, and SameSite.' };
const WITHOUT_SAMESITE: CookieOutcome = { result: 'cookies-secure-with-httponly-sessions', modifier: 0, description: 'Secure, and HttpOnly when a session cookie.' };

const worse = (a: CookieOutcome | null, b: CookieOutcome): CookieOutcome => (a === null || GOODNESS.indexOf(b) > GOODNESS.indexOf(a) ? b : a);

/**
 * Every Observatory result one cookie reaches, each on its own (a missing Secure never hides a
 * missing HttpOnly). sentOverHttps false means the cookie travelled in clear whatever its flags
 * say; hsts means the HSTS test passed (max-age of at least six months), as the Observatory asks.
 */
export function cookieFailures(cookie: CookieFlags, sentOverHttps: boolean, hsts: boolean): CookieOutcome[] {
  const secure = cookie.secure && sentOverHttps;
  const out: CookieOutcome[] = [];
  const sameSiteInvalid = (cookie.sameSite !== null && !SAMESITE_VALUES.has(cookie.sameSite)) || (cookie.sameSite === 'none' && !secure);
  if (sameSiteInvalid) out.push(COOKIE_FAILURES.sameSiteInvalid);
  if (!secure) out.push(hsts ? COOKIE_FAILURES.withoutSecureHsts : COOKIE_FAILURES.withoutSecure);
  // The Observatory reads SameSite through tough-cookie, which drops a value it does not know.
  if (cookie.gradedAntiCsrf && !SAMESITE_VALUES.has(cookie.sameSite ?? '')) out.push(COOKIE_FAILURES.antiCsrfWithoutSameSite);
  if (cookie.gradedSession && !secure) out.push(hsts ? COOKIE_FAILURES.sessionWithoutSecureHsts : COOKIE_FAILURES.sessionWithoutSecure);
  if (cookie.gradedSession && !cookie.httpOnly) out.push(COOKIE_FAILURES.sessionWithoutHttpOnly);
  return out.sort((a, b) => GOODNESS.indexOf(b) - GOODNESS.indexOf(a));
}

/** One cookie's worst Observatory result, or its passing one. */
export function evaluateCookie(cookie: CookieFlags, sentOverHttps: boolean, hsts: boolean): CookieOutcome {
  const failures = cookieFailures(cookie, sentOverHttps, hsts);
  const worst = failures.reduce<CookieOutcome | null>(worse, null);
  if (worst !== null) return worst;
  return cookie.sameSite !== null ? WITH_SAMESITE : WITHOUT_SAMESITE;
}

/** The page's cookie result: the worst cookie's in the Observatory's order, +5 only when every cookie has SameSite. */
export function evaluateCookies(outcomes: readonly CookieOutcome[]): CookieOutcome {
  if (outcomes.length === 0) return { result: 'cookies-not-found', modifier: 0, description: 'No cookies set.' };
  const worst = outcomes.filter((o) => GOODNESS.includes(o)).reduce<CookieOutcome | null>(worse, null);
  if (worst !== null) return worst;
  return outcomes.every((o) => o === WITH_SAMESITE) ? WITH_SAMESITE : WITHOUT_SAMESITE;
}
