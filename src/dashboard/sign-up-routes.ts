import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountEmail, accountPassword, PASSWORD_RULE } from '../accounts/account-input.ts';
import { ServiceError } from '../core/errors.ts';
import type { DashboardContext } from './dashboard-context.ts';
import { OVERVIEW_PATH, SIGN_UP_PATH, signUpDonePage, signUpPage } from './pages.ts';
import { verificationMail } from './verify-mail.ts';

function field(request: FastifyRequest, name: string): string {
  const body = request.body;
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * Sign-up by form: the same steps as POST /api/v1/accounts (rest/account-routes.ts), in the same
 * order and with the same rules: the per-address sign-up limit before anything costly, the same
 * e-mail and password rules (accounts/account-input.ts), AccountStore.createAccount on the free
 * plan, and the verification mail with the same link.
 */
export function registerSignUpRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { accounts, attempts, mailer, publicBaseUrl } = ctx;

  app.get(SIGN_UP_PATH, async (request, reply) => {
    if ((await ctx.visitor(request)).state === 'signed-in') return reply.redirect(OVERVIEW_PATH, 303);
    return ctx.sendPage(reply, 200, signUpPage());
  });

  app.post(SIGN_UP_PATH, async (request, reply) => {
    const email = field(request, 'email').trim();
    const password = field(request, 'password');
    const again = (status: number, text: string) => ctx.sendPage(reply, status, signUpPage({ email, message: { kind: 'error', text } }));
    if (!accountEmail.safeParse(email).success) return again(400, 'Enter a valid e-mail address.');
    if (!accountPassword.safeParse(password).success) return again(400, `The password must be ${PASSWORD_RULE}.`);
    try {
      await attempts.signup(request.ip);
      const account = await accounts.createAccount({ email, password, plan: 'free' });
      const token = await accounts.createVerificationToken(account.id);
      await mailer.send(verificationMail(publicBaseUrl, account.email, token));
      return ctx.sendPage(reply, 201, signUpDonePage(account.email));
    } catch (error) {
      if (!(error instanceof ServiceError) || (error.status !== 429 && error.status !== 409)) throw error;
      reply.headers(error.headers);
      return again(error.status, error.status === 429 ? `${error.message}. ${error.detail}.` : `${error.message}. Sign in instead.`);
    }
  });
}
