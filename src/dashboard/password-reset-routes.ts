import type { FastifyInstance } from 'fastify';
import { accountEmail, accountPassword, PASSWORD_RULE } from '../accounts/account-input.ts';
import type { Mail } from '../accounts/mailer.ts';
import { ServiceError } from '../core/errors.ts';
import type { DashboardContext } from './dashboard-context.ts';
import { fieldsOf, text } from './form-fields.ts';
import { PASSWORD_CHANGED_QUERY, forgotPasswordPage, resetLinkRefusedPage, resetLinkSentPage, resetPasswordPage } from './password-reset-pages.ts';
import { FORGOT_PASSWORD_PATH, RESET_PASSWORD_PATH, SIGN_IN_PATH } from './pages.ts';
import { clearSessionCookie } from './session-cookie.ts';

function resetMail(publicBaseUrl: string, email: string, token: string): Mail {
  const link = `${publicBaseUrl}${RESET_PASSWORD_PATH}?token=${encodeURIComponent(token)}`;
  return {
    to: email,
    subject: 'Reset your password for the tool service',
    text: `Someone asked to reset the password of the account ${email}.\n\nOpen this link to choose a new password:\n\n${link}\n\nThe link works once, for 1 hour. If you did not ask for it, ignore this mail: your password stays as it is.`,
  };
}

/**
 * Password reset by mail. The request's answer is one page whether or not the e-mail has an
 * account, after the same limiter and the same database statements (password-resets.ts runs them
 * on an id matching nothing); the mail is handed to the mailer without waiting for it, so an SMTP
 * round trip does not tell a known address from an unknown one. The new password follows the
 * sign-up's rules and scrypt; setting it ends every session of the account and signs no one in.
 */
export function registerPasswordResetRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { accounts, attempts, mailer, sessions, publicBaseUrl } = ctx;

  app.get(FORGOT_PASSWORD_PATH, async (_request, reply) => ctx.sendPage(reply, 200, forgotPasswordPage()));

  app.post(FORGOT_PASSWORD_PATH, async (request, reply) => {
    const email = text(fieldsOf(request), 'email').trim();
    const again = (status: number, message: string) => ctx.sendPage(reply, status, forgotPasswordPage({ email, message: { kind: 'error', text: message } }));
    if (!accountEmail.safeParse(email).success) return again(400, 'Enter a valid e-mail address.');
    try {
      await attempts.passwordReset(request.ip, email);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 429) throw error;
      reply.headers(error.headers);
      return again(429, `${error.message}. ${error.detail}.`);
    }
    const account = await accounts.findAccountByEmail(email);
    // A suspended account gets no link: it could not sign in with the new password anyway.
    const owner = account?.status === 'active' ? account : undefined;
    const token = await accounts.createPasswordReset(owner?.id);
    if (owner) {
      mailer.send(resetMail(publicBaseUrl, owner.email, token)).catch((err: unknown) => request.log.error({ err }, 'password reset mail not sent'));
    }
    return ctx.sendPage(reply, 200, resetLinkSentPage(email));
  });

  app.get(RESET_PASSWORD_PATH, async (request, reply) => {
    const query = request.query as Record<string, unknown> | undefined;
    const token = typeof query?.['token'] === 'string' ? query['token'] : '';
    const check = await accounts.checkPasswordReset(token);
    if (check.state !== 'live') return ctx.sendPage(reply, 400, resetLinkRefusedPage(check.state));
    return ctx.sendPage(reply, 200, resetPasswordPage(token));
  });

  app.post(RESET_PASSWORD_PATH, async (request, reply) => {
    const fields = fieldsOf(request);
    const token = text(fields, 'token');
    const password = text(fields, 'password');
    // The link first (no scrypt for a dead one), then the sign-up's password rule.
    const check = await accounts.checkPasswordReset(token);
    if (check.state !== 'live') return ctx.sendPage(reply, 400, resetLinkRefusedPage(check.state));
    const again = (message: string) => ctx.sendPage(reply, 400, resetPasswordPage(token, { kind: 'error', text: message }));
    if (!accountPassword.safeParse(password).success) return again(`The password must be ${PASSWORD_RULE}.`);
    if (password !== text(fields, 'confirm')) return again('The two passwords differ. Type the same new password twice.');
    const reset = await accounts.resetPassword(token, password);
    // Another post of the same link got there first.
    if (reset.state !== 'live') return ctx.sendPage(reply, 400, resetLinkRefusedPage(reset.state));
    await sessions.deleteForAccount(reset.accountId);
    const account = await accounts.getAccount(reset.accountId);
    if (account) await attempts.clearPasswordFailures(account.email);
    // This browser's session (if any) is gone with the others; its cookie goes too.
    reply.header('Set-Cookie', clearSessionCookie(ctx.cookie));
    return reply.redirect(`${SIGN_IN_PATH}?${PASSWORD_CHANGED_QUERY}`, 303);
  });
}
