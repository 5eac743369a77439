import type { FastifyInstance } from 'fastify';
import { accountEmail } from '../accounts/account-input.ts';
import { ServiceError } from '../core/errors.ts';
import type { DashboardContext } from './dashboard-context.ts';
import { fieldsOf, text } from './form-fields.ts';
import { VERIFY_PATH, VERIFY_RESEND_PATH } from './pages.ts';
import { refusedPage, resendPage, resendSentPage, verifiedPage } from './verify-pages.ts';
import { verificationMail } from './verify-mail.ts';

/** A token longer than this is no token of ours: refused without a lookup, as the API's query schema does. */
const MAX_TOKEN_LENGTH = 200;

/**
 * The landing page of the verification mail's link: verifies through the same store function as
 * the API's GET /api/v1/accounts/verify (which stays, answering JSON) and says how it went. A used,
 * expired or unknown token is a 400 page, never a 500; the store does not tell them apart, and the
 * page covers the common case (opened twice) by saying so.
 *
 * A new link (VERIFY_RESEND_PATH): an unverified account cannot sign in, so the request carries
 * the e-mail alone and is built like the password reset's: no session (the scope's Origin check
 * guards the post), the limiter before any lookup (per address, and per e-mail a minute and an
 * hour, counted alike for every e-mail), one answer page whatever the account's state, the same
 * statements either way (AccountStore.renewVerification), and the mail handed to the mailer
 * without waiting for it, so neither the page nor its time tells an unverified account from a
 * verified one or from none.
 */
export function registerVerifyRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { accounts, attempts, mailer, publicBaseUrl } = ctx;

  app.get(VERIFY_PATH, async (request, reply) => {
    const query = request.query as Record<string, unknown> | undefined;
    const token = typeof query?.['token'] === 'string' ? query['token'] : '';
    if (token === '' || token.length > MAX_TOKEN_LENGTH) return ctx.sendPage(reply, 400, refusedPage());
    try {
      const account = await accounts.verifyEmail(token);
      return ctx.sendPage(reply, 200, verifiedPage(account.email));
    } catch (error) {
      if (error instanceof ServiceError && error.status === 400) return ctx.sendPage(reply, 400, refusedPage());
      throw error;
    }
  });

  app.get(VERIFY_RESEND_PATH, async (_request, reply) => ctx.sendPage(reply, 200, resendPage()));

  app.post(VERIFY_RESEND_PATH, async (request, reply) => {
    const email = text(fieldsOf(request), 'email').trim();
    const again = (status: number, message: string) => ctx.sendPage(reply, status, resendPage({ email, message: { kind: 'error', text: message } }));
    if (!accountEmail.safeParse(email).success) return again(400, 'Enter a valid e-mail address.');
    try {
      await attempts.verificationResend(request.ip, email);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 429) throw error;
      reply.headers(error.headers);
      return again(429, `${error.message}. ${error.detail}.`);
    }
    const renewed = await accounts.renewVerification(email);
    if (renewed) {
      mailer.send(verificationMail(publicBaseUrl, renewed.account.email, renewed.token)).catch((err: unknown) => request.log.error({ err }, 'verification mail not sent'));
    }
    return ctx.sendPage(reply, 200, resendSentPage(email));
  });
}
