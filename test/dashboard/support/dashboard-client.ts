// Real HTTP to the dashboard as a browser would send it: form posts with an Origin, cookies
// carried by hand, redirects not followed (the tests read the 303s). Then what the plain-HTTP
// dashboard tests set up: the app on a loopback port for a describe, new accounts signed in.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { listen } from '../../support/http.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

export interface SignedIn {
  /** the cookie's name=value, ready for a Cookie header */
  cookie: string;
  /** the Set-Cookie header as sent */
  setCookie: string;
}

/** Form fields: by name, or as entries when a name repeats (checkboxes). */
export type FormFields = Record<string, string> | [string, string][];

export function form(fields: FormFields): string {
  return new URLSearchParams(fields).toString();
}

/** POSTs a form; `origin` defaults to the server's own (`base`). */
export function postForm(base: string, path: string, fields: FormFields, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin: base, ...headers },
    body: form(fields),
  });
}

/** POSTs form fields with a session cookie, from our own Origin unless `headers` names another. */
export function postFields(base: string, path: string, fields: FormFields, cookie: string, headers: Record<string, string> = {}): Promise<Response> {
  return postForm(base, path, fields, { cookie, ...headers });
}

/** POSTs a page's form (its CSRF token first, then `fields`) in the session, and reads the page answered. */
export async function submit(base: string, path: string, session: { cookie: string; token: string }, fields: [string, string][]): Promise<{ res: Response; page: string }> {
  const res = await postFields(base, path, [['_csrf', session.token], ...fields], session.cookie);
  return { res, page: await res.text() };
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

/** The CSRF token a page's forms carry: by default the overview's (its sign-out form). */
export async function csrfTokenOf(base: string, cookie: string, path = '/dashboard'): Promise<string> {
  const res = await getPage(base, path, cookie);
  assert.equal(res.status, 200);
  const token = /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1];
  assert.ok(token, 'the page carries a CSRF token');
  return token;
}

/**
 * The secret (matching `pattern`, a global RegExp) in the read-only field of a page shown once;
 * the test fails unless the page holds exactly one, in that field.
 */
export function secretIn(page: string, pattern: RegExp): string {
  const all = page.match(pattern) ?? [];
  assert.equal(all.length, 1, `the secret appears exactly once on the page:\n${page}`);
  assert.ok(page.includes(`<input id="secret" class="secret" type="text" readonly value="${all[0]}"`), 'the secret is in its read-only field');
  return all[0]!;
}

/** The password of the tests' accounts. */
export const PASSWORD = 'correct horse battery staple';

/** The app of a describe, on a loopback port: both are set once its before() hooks have run. */
export interface DashboardApp {
  t: TestApp;
  /** http://127.0.0.1:<port> */
  base: string;
}

/**
 * Starts the app (startTestApp with `options`) and listens on a loopback port in a before() hook
 * of the describe this is called in, and closes it in an after() hook. Hooks the describe adds
 * after this call run once the app is up.
 */
export function dashboardApp(options: Parameters<typeof startTestApp>[0] = {}): DashboardApp {
  const app = {} as DashboardApp;
  before(async () => {
    app.t = await startTestApp(options);
    app.base = await listen(app.t);
  });
  // Closed even when listening failed; not when the start itself did (there is nothing to close).
  after(() => app.t?.close());
  return app;
}

let emails = 0;
/** An e-mail address no other account of the run has: `prefix`, a sequence number and the time. */
export function newEmail(prefix: string): string {
  return `${prefix}${++emails}-${Date.now()}@example.com`;
}

export interface NewAccount {
  email: string;
  accountId: string;
  /** its first key (which may manage keys) */
  apiKey: string;
  keyId: string;
}

/** A new account with PASSWORD: verified unless `verified` is false, on the plan's quota unless `quota` is given. */
export async function newAccount(app: DashboardApp, prefix: string, input: { verified?: boolean; quota?: number } = {}): Promise<NewAccount> {
  const email = newEmail(prefix);
  const { verified, quota } = input;
  const account = await app.t.account({ email, password: PASSWORD, ...(verified === undefined ? {} : { verified }), ...(quota === undefined ? {} : { quota }) });
  return { email, ...account };
}

export interface SignedInAccount extends NewAccount {
  /** the session cookie, ready for a Cookie header */
  cookie: string;
}

/** A new account (newAccount), signed in by the form. */
export async function signedInAccount(app: DashboardApp, prefix: string, input: { quota?: number } = {}): Promise<SignedInAccount> {
  const account = await newAccount(app, prefix, input);
  const { cookie } = await signIn(app.base, account.email, PASSWORD);
  return { ...account, cookie };
}

/** signedInAccount, with the CSRF token of the page at `path` (the one whose forms the test posts). */
export async function signedInWithToken(app: DashboardApp, prefix: string, path: string): Promise<SignedInAccount & { token: string }> {
  const account = await signedInAccount(app, prefix);
  return { ...account, token: await csrfTokenOf(app.base, account.cookie, path) };
}
