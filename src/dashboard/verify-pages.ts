// The e-mail verification's pages: the landing page of the mailed link (verified, or a link that
// cannot be used), and the request for a new link with its one answer. Plain forms, no script;
// every value through the escaping `html` template.
import { VERIFICATION_RESENDS } from '../accounts/attempt-limiter.ts';
import { html } from './html.ts';
import { page, SIGN_IN_PATH, VERIFY_RESEND_PATH } from './pages.ts';

type Message = { kind: 'error' | 'info'; text: string } | undefined;

const RESEND_RULE = `once a minute, ${VERIFICATION_RESENDS.perAccountHour} times an hour`;

export function verifiedPage(email: string): string {
  return page(
    'E-mail verified',
    html`<main class="narrow">
<h1>Your e-mail is verified</h1>
<p class="notice" role="status"><strong>${email}</strong> is verified. Sign in to create API keys and use the tools.</p>
<form method="get" action="${SIGN_IN_PATH}"><button type="submit">Sign in</button></form>
</main>`,
  );
}

export function refusedPage(): string {
  return page(
    'Link not valid',
    html`<main class="narrow">
<h1>This link is not valid or has expired</h1>
<p class="notice error" role="alert">A verification link works once, for 48 hours. If you opened it before, your e-mail is already verified: sign in.</p>
<p>Not verified yet? <a href="${VERIFY_RESEND_PATH}">Ask for a new verification link</a>.</p>
<form method="get" action="${SIGN_IN_PATH}"><button type="submit">Sign in</button></form>
</main>`,
  );
}

/** The request for a new link: an e-mail field, or the form again with why it was refused. */
export function resendPage(view: { email?: string; message?: Message } = {}): string {
  const { message } = view;
  return page(
    'New verification link',
    html`<main class="narrow">
<h1>Get a new verification link</h1>
${message && html`<p class="notice ${message.kind === 'error' ? 'error' : ''}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>`}
<p>Enter the e-mail you signed up with. We send a new link to verify it; it works for 48 hours, and links sent before keep working too. You can ask ${RESEND_RULE}.</p>
<form class="stack" method="post" action="${VERIFY_RESEND_PATH}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${view.email ?? ''}">
<button type="submit">Send a new verification link</button>
</form>
<p><a href="${SIGN_IN_PATH}">Back to sign-in</a></p>
</main>`,
  );
}

/** The one answer to a request, whether the e-mail has an account waiting for verification, a verified one, or none. */
export function resendSentPage(email: string): string {
  return page(
    'Check your e-mail',
    html`<main class="narrow">
<h1>Check your e-mail</h1>
<p class="notice" role="status">If an account with <strong>${email}</strong> is waiting for verification, a new link is on its way. It works for 48 hours; links sent before keep working too.</p>
<p>No mail after a few minutes? Check the spam folder, or <a href="${VERIFY_RESEND_PATH}">ask again</a> (${RESEND_RULE}). Already verified? <a href="${SIGN_IN_PATH}">Sign in</a>.</p>
</main>`,
  );
}
