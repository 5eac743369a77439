// The password reset's pages: ask for a link, "a link is on its way", choose a new password, and a
// refused link. Plain forms, no script; every value through the escaping `html` template.
import type { ResetTokenState } from '../accounts/password-resets.ts';
import { html } from './html.ts';
import { FORGOT_PASSWORD_PATH, page, RESET_PASSWORD_PATH, SIGN_IN_PATH } from './pages.ts';

/** The sign-in page's notice after a reset (auth-routes.ts shows it for `?password=changed`). */
export const PASSWORD_CHANGED_NOTICE = 'Your password is changed and every session of your account is signed out. Sign in with the new password.';
export const PASSWORD_CHANGED_QUERY = 'password=changed';

type Message = { kind: 'error' | 'info'; text: string } | undefined;

function notice(message: Message) {
  return message && html`<p class="notice ${message.kind === 'error' ? 'error' : ''}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>`;
}

export function forgotPasswordPage(view: { email?: string; message?: Message } = {}): string {
  return page(
    'Reset your password',
    html`<main class="narrow">
<h1>Reset your password</h1>
${notice(view.message)}
<p>Enter the e-mail of your account. We send a link to choose a new password; it works once, for an hour.</p>
<form class="stack" method="post" action="${FORGOT_PASSWORD_PATH}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${view.email ?? ''}">
<button type="submit">Send the link</button>
</form>
<p><a href="${SIGN_IN_PATH}">Back to sign-in</a></p>
</main>`,
  );
}

/** The one answer to a request, whether or not an account has that e-mail. */
export function resetLinkSentPage(email: string): string {
  return page(
    'Check your e-mail',
    html`<main class="narrow">
<h1>Check your e-mail</h1>
<p class="notice" role="status">If an account exists for <strong>${email}</strong>, a link to choose a new password is on its way. It works once, for an hour.</p>
<p>No mail after a few minutes? Check the spam folder, or <a href="${FORGOT_PASSWORD_PATH}">ask again</a>: a new link replaces the older ones.</p>
<p><a href="${SIGN_IN_PATH}">Back to sign-in</a></p>
</main>`,
  );
}

export function resetPasswordPage(token: string, message?: Message): string {
  return page(
    'Choose a new password',
    html`<main class="narrow">
<h1>Choose a new password</h1>
${notice(message)}
<form class="stack" method="post" action="${RESET_PASSWORD_PATH}">
<input type="hidden" name="token" value="${token}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200" aria-describedby="password-rule">
<p id="password-rule" class="muted">At least 10 characters.</p>
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="10" maxlength="200">
<button type="submit">Set the new password</button>
</form>
<p class="muted">Every session of your account is signed out; then sign in with the new password.</p>
</main>`,
  );
}

const REFUSED: Record<Exclude<ResetTokenState['state'], 'live'>, string> = {
  unknown: 'This link is not valid. Check that it was copied whole, or ask for a new one.',
  expired: 'This link has expired: a link works for an hour. Ask for a new one.',
  used: 'This link has been used already: a link works once. If you did not change your password with it, ask for a new one.',
};

export function resetLinkRefusedPage(state: Exclude<ResetTokenState['state'], 'live'>): string {
  return page(
    'Link not valid',
    html`<main class="narrow">
<h1>This link cannot be used</h1>
<p class="notice error" role="alert">${REFUSED[state]}</p>
<p><a href="${FORGOT_PASSWORD_PATH}">Ask for a new link</a></p>
<p><a href="${SIGN_IN_PATH}">Back to sign-in</a></p>
</main>`,
  );
}
