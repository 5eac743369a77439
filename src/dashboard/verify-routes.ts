import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../core/errors.ts';
import type { DashboardContext } from './dashboard-context.ts';
import { html } from './html.ts';
import { FORGOT_PASSWORD_PATH, page, SIGN_IN_PATH, VERIFY_PATH } from './pages.ts';

/** A token longer than this is no token of ours: refused without a lookup, as the API's query schema does. */
const MAX_TOKEN_LENGTH = 200;

function verifiedPage(email: string): string {
  return page(
    'E-mail verified',
    html`<main class="narrow">
<h1>Your e-mail is verified</h1>
<p class="notice" role="status"><strong>${email}</strong> is verified. Sign in to create API keys and use the tools.</p>
<form method="get" action="${SIGN_IN_PATH}"><button type="submit">Sign in</button></form>
</main>`,
  );
}

function refusedPage(): string {
  return page(
    'Link not valid',
    html`<main class="narrow">
<h1>This link is not valid or has expired</h1>
<p class="notice error" role="alert">A verification link works once, for 48 hours. If you opened it before, your e-mail is already verified: sign in.</p>
<p>Not verified yet? <a href="${FORGOT_PASSWORD_PATH}">Ask for a password reset link</a>: it goes to the same address, and choosing a new password with it verifies the address too.</p>
<form method="get" action="${SIGN_IN_PATH}"><button type="submit">Sign in</button></form>
</main>`,
  );
}

/**
 * The landing page of the verification mail's link: verifies through the same store function as
 * the API's GET /api/v1/accounts/verify (which stays, answering JSON) and says how it went. A used,
 * expired or unknown token is a 400 page, never a 500; the store does not tell them apart, and the
 * page covers the common case (opened twice) by saying so.
 */
export function registerVerifyRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  app.get(VERIFY_PATH, async (request, reply) => {
    const query = request.query as Record<string, unknown> | undefined;
    const token = typeof query?.['token'] === 'string' ? query['token'] : '';
    if (token === '' || token.length > MAX_TOKEN_LENGTH) return ctx.sendPage(reply, 400, refusedPage());
    try {
      const account = await ctx.accounts.verifyEmail(token);
      return ctx.sendPage(reply, 200, verifiedPage(account.email));
    } catch (error) {
      if (error instanceof ServiceError && error.status === 400) return ctx.sendPage(reply, 400, refusedPage());
      throw error;
    }
  });
}
