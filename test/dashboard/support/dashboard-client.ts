// Real HTTP to the dashboard as a browser would send it: form posts with an Origin, cookies
// carried by hand, redirects not followed (the tests read the 303s).
import assert from 'node:assert/strict';

export interface SignedIn {
  /** the cookie's name=value, ready for a Cookie header */
  cookie: string;
  /** the Set-Cookie header as sent */
  setCookie: string;
}

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** POSTs a form; `origin` defaults to the server's own (`base`). */
export function postForm(base: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin: base, ...headers },
    body: form(fields),
  });
}

export function getPage(base: string, path: string, cookie?: string): Promise<Response> {
  return fetch(`${base}${path}`, { redirect: 'manual', headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
}

/** Signs in and returns the session cookie; fails the test unless the answer is 303 to /dashboard. */
export async function signIn(base: string, email: string, password: string, headers: Record<string, string> = {}): Promise<SignedIn> {
  const res = await postForm(base, '/dashboard/sign-in', { email, password }, headers);
  assert.equal(res.status, 303, `sign-in answered ${res.status}: ${await res.text()}`);
  assert.equal(res.headers.get('location'), '/dashboard');
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  assert.match(cookie, /^(__Host-)?session=[A-Za-z0-9_-]{43}$/);
  return { cookie, setCookie };
}

/** The CSRF token the overview page's sign-out form carries. */
export async function csrfTokenOf(base: string, cookie: string): Promise<string> {
  const res = await getPage(base, '/dashboard', cookie);
  assert.equal(res.status, 200);
  const token = /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1];
  assert.ok(token, 'the page carries a CSRF token');
  return token;
}
