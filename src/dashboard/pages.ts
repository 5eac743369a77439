import type { Account, AccountStore } from '../accounts/account-store.ts';
import { getPlan } from '../accounts/plans.ts';
import { ICON, STYLESHEET, type Asset } from './assets.ts';
import { Html, html } from './html.ts';

export const SIGN_IN_PATH = '/dashboard/sign-in';
export const SIGN_OUT_PATH = '/dashboard/sign-out';
export const SIGN_UP_PATH = '/dashboard/sign-up';
export const FORGOT_PASSWORD_PATH = '/dashboard/forgot-password';
export const RESET_PASSWORD_PATH = '/dashboard/reset-password';
export const VERIFY_PATH = '/dashboard/verify';
export const VERIFY_RESEND_PATH = '/dashboard/verify/resend';
export const OVERVIEW_PATH = '/dashboard';
export const KEYS_PATH = '/dashboard/keys';
export const WEBHOOKS_PATH = '/dashboard/webhooks';
export const USAGE_PATH = '/dashboard/usage';
export const PLAYGROUND_PATH = '/dashboard/playground';
export const FEATURES_PATH = '/dashboard/features';
export const MCP_SETUP_PATH = '/dashboard/mcp';
/** Where the feature memory link's "N improved" badge goes: filled per request by feature-badge.ts, which knows the count. */
export const IMPROVED_BADGE_SLOT = '<!--improved-badge-->';
export const PRODUCT_NAME = 'Utility Tool Service';

/** The signed-in person's header: their e-mail and a sign-out button carrying the CSRF token. */
export interface SignedInView {
  email: string;
  csrfToken: string;
}

/** The dashboard's sections that have a page, in the nav's order. */
const SECTIONS = [
  { name: 'Overview', path: OVERVIEW_PATH },
  { name: 'API keys', path: KEYS_PATH },
  { name: 'Usage', path: USAGE_PATH },
  { name: 'Webhooks', path: WEBHOOKS_PATH },
  { name: 'Playground', path: PLAYGROUND_PATH },
  { name: 'Feature memory', path: FEATURES_PATH },
  { name: 'MCP setup', path: MCP_SETUP_PATH },
] as const;

/** Sections of the dashboard still to come: named, not linked, until their pages exist (no dead links). */
const SECTIONS_TO_COME: string[] = [];

/** The signed-in pages' side navigation; `current` is marked for assistive technology. */
export function sectionsNav(current: string): Html {
  return html`<nav class="sections" aria-label="Dashboard sections">
<ul>
${SECTIONS.map((s) => html`<li><a href="${s.path}"${s.path === current ? html` aria-current="page"` : ''}>${s.name}${s.path === FEATURES_PATH ? new Html(IMPROVED_BADGE_SLOT) : ''}</a></li>`)}
${SECTIONS_TO_COME.map((name) => html`<li class="soon">${name} <span class="muted">(coming)</span></li>`)}
</ul>
</nav>`;
}

/**
 * A whole page. `scripts` are module scripts of our own (assets.ts), for pages that progressively
 * enhance: every page works without them.
 */
export function page(title: string, body: Html, signedIn?: SignedInView, scripts: readonly Asset[] = []): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${PRODUCT_NAME}</title>
<link rel="stylesheet" href="${STYLESHEET.path}">
<link rel="icon" type="image/svg+xml" href="${ICON.path}">
${scripts.map((script) => html`<script type="module" src="${script.path}"></script>
`)}</head>
<body>
<header class="site">
<a class="brand" href="/">${PRODUCT_NAME}</a>
${signedIn ? signOutForm(signedIn) : html`<a href="/docs">API docs</a>`}
</header>
${body}
</body>
</html>
`.text;
}

function signOutForm(view: SignedInView): Html {
  return html`<form method="post" action="${SIGN_OUT_PATH}">
<span class="muted">${view.email}</span>
<input type="hidden" name="_csrf" value="${view.csrfToken}">
<button type="submit" class="quiet">Sign out</button>
</form>`;
}

export interface SignInView {
  email?: string | undefined;
  /** an error or a notice above the form */
  message?: { kind: 'error' | 'info'; text: string } | undefined;
  /** the e-mail of an account that proved its password but is not verified: offer a new link */
  resendFor?: string | undefined;
}

/**
 * The button that asks for a new verification link for `email` (verify-routes.ts), where a person
 * waiting for one lands: the sign-in page after the right password, the page after sign-up.
 */
export function resendVerificationForm(email: string): Html {
  return html`<form method="post" action="${VERIFY_RESEND_PATH}">
<input type="hidden" name="email" value="${email}">
<button type="submit">Send a new verification link</button>
</form>`;
}

export function signInPage(view: SignInView = {}): string {
  const message = view.message;
  return page(
    'Sign in',
    html`<main class="narrow">
<h1>Sign in</h1>
${message && html`<p class="notice ${message.kind === 'error' ? 'error' : ''}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>`}
${view.resendFor !== undefined && html`<p>No mail, or the link expired?</p>
${resendVerificationForm(view.resendFor)}`}
<form class="stack" method="post" action="${SIGN_IN_PATH}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${view.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200">
<button type="submit">Sign in</button>
</form>
<p><a href="${FORGOT_PASSWORD_PATH}">Forgot your password?</a></p>
<p>No account yet? <a href="${SIGN_UP_PATH}">Create one</a>.</p>
</main>`,
  );
}

export function signUpPage(view: SignInView = {}): string {
  const message = view.message;
  return page(
    'Create an account',
    html`<main class="narrow">
<h1>Create an account</h1>
${message && html`<p class="notice error" role="alert">${message.text}</p>`}
<form class="stack" method="post" action="${SIGN_UP_PATH}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${view.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200" aria-describedby="password-rule">
<p id="password-rule" class="muted">At least 10 characters.</p>
<button type="submit">Create account</button>
</form>
<p>On the free plan; we send a link to verify your e-mail. Already have an account? <a href="${SIGN_IN_PATH}">Sign in</a>.</p>
</main>`,
  );
}

export function signUpDonePage(email: string): string {
  return page(
    'Check your e-mail',
    html`<main class="narrow">
<h1>Check your e-mail</h1>
<p class="notice" role="status">We sent a verification link to <strong>${email}</strong>. Open it, then sign in.</p>
<p>No mail after a few minutes? Check the spam folder, or ask for another.</p>
${resendVerificationForm(email)}
<p><a href="${SIGN_IN_PATH}">Go to sign-in</a></p>
</main>`,
  );
}

export type UsageSummary = Awaited<ReturnType<AccountStore['usageSummary']>>;

const number = new Intl.NumberFormat('en');

export function overviewPage(account: Account, usage: UsageSummary, signedIn: SignedInView): string {
  const reset = new Date(usage.resetAt);
  const resetText = reset.toLocaleDateString('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
  return page(
    'Overview',
    html`<div class="layout">
${sectionsNav(OVERVIEW_PATH)}
<main>
<h1>Overview</h1>
<p>Signed in as <strong>${account.email}</strong> on the <strong>${getPlan(usage.plan)?.title ?? usage.plan}</strong> plan.</p>
<h2>Credits this month</h2>
<dl class="figures">
<div><dt>Used</dt><dd>${number.format(usage.used)}</dd></div>
<div><dt>Left</dt><dd>${number.format(usage.remaining)}</dd></div>
<div><dt>Monthly quota</dt><dd>${number.format(usage.quota)}</dd></div>
</dl>
<p>The credits reset on <time datetime="${usage.resetAt}">${resetText}</time> (00:00 UTC). Requests per minute: ${number.format(usage.requestsPerMinute)}. <a href="${USAGE_PATH}">Usage per tool and per key</a></p>
</main>
</div>`,
    signedIn,
  );
}

/** A short page for a refusal or an error, naming what went wrong. */
export function messagePage(title: string, text: string, link: { href: string; label: string } = { href: SIGN_IN_PATH, label: 'Go to sign-in' }): string {
  return page(
    title,
    html`<main class="narrow">
<h1>${title}</h1>
<p class="notice error" role="alert">${text}</p>
<p><a href="${link.href}">${link.label}</a></p>
</main>`,
  );
}
