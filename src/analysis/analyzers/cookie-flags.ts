// Set-Cookie parsing and the MDN HTTP Observatory's cookie results, per cookie and for the page,
// on its own so the cookie-flags checker tool can reuse it.

export interface CookieFlags {
  name: string;
  secure: boolean;
  httpOnly: boolean;
  /** the SameSite value as sent, lower-cased, or null when absent */
  sameSite: string | null;
  /** a session cookie by name (Observatory's heuristic): its theft is an account takeover */
  session: boolean;
  antiCsrf: boolean;
}

export interface CookieOutcome {
  result: string;
  modifier: number;
  description: string;
}

const SESSION_NAME = /sess|sid|auth|token|login/i;
const CSRF_NAME = /csrf|xsrf/i;
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
  return { name, secure, httpOnly, sameSite, session: SESSION_NAME.test(name) && !antiCsrf, antiCsrf };
}

/**
 * One cookie's worst Observatory result. sentOverHttps false means the cookie travelled in clear
 * whatever its flags say; hsts means a valid HSTS header keeps later visits on https.
 */
export function evaluateCookie(cookie: CookieFlags, sentOverHttps: boolean, hsts: boolean): CookieOutcome {
  const secure = cookie.secure && sentOverHttps;
  if (cookie.session && !secure) {
    return hsts
      ? { result: 'cookies-session-without-secure-flag-but-protected-by-hsts', modifier: -10, description: 'Session cookie set without the Secure flag, though HSTS keeps it off http.' }
      : { result: 'cookies-session-without-secure-flag', modifier: -40, description: 'Session cookie set without the Secure flag, or over http.' };
  }
  if (cookie.session && !cookie.httpOnly) {
    return { result: 'cookies-session-without-httponly-flag', modifier: -30, description: 'Session cookie set without the HttpOnly flag: page scripts can read it.' };
  }
  if (cookie.sameSite !== null && !SAMESITE_VALUES.has(cookie.sameSite)) {
    return { result: 'cookies-samesite-flag-invalid', modifier: -20, description: 'The SameSite attribute has a value other than Strict, Lax or None.' };
  }
  if (cookie.antiCsrf && cookie.sameSite === null) {
    return { result: 'cookies-anticsrf-without-samesite-flag', modifier: -20, description: 'Anti-CSRF token set without the SameSite attribute.' };
  }
  if (!secure) {
    return hsts
      ? { result: 'cookies-without-secure-flag-but-protected-by-hsts', modifier: -5, description: 'Cookie set without the Secure flag, though HSTS keeps it off http.' }
      : { result: 'cookies-without-secure-flag', modifier: -20, description: 'Cookie set without the Secure flag, or over http.' };
  }
  if (cookie.sameSite !== null) {
    return { result: 'cookies-secure-with-httponly-sessions-and-samesite', modifier: 5, description: 'Secure, HttpOnly when a session cookie, and SameSite.' };
  }
  return { result: 'cookies-secure-with-httponly-sessions', modifier: 0, description: 'Secure, and HttpOnly when a session cookie.' };
}

/** The page's cookie result: the worst cookie's, the +5 bonus only when every cookie earns it. */
export function evaluateCookies(outcomes: readonly CookieOutcome[]): CookieOutcome {
  if (outcomes.length === 0) return { result: 'cookies-not-found', modifier: 0, description: 'No cookies set.' };
  return outcomes.reduce((worst, o) => (o.modifier < worst.modifier ? o : worst));
}
