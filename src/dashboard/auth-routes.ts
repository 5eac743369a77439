import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account-store.ts';
import { ServiceError } from '../core/errors.ts';
import { checkToken } from './csrf.ts';
import type { DashboardContext } from './dashboard-context.ts';
import { OVERVIEW_PATH, SIGN_IN_PATH, SIGN_OUT_PATH, signInPage } from './pages.ts';
import { PASSWORD_CHANGED_NOTICE } from './password-reset-pages.ts';
import { clearSessionCookie, readSessionId, setSessionCookie } from './session-cookie.ts';

function field(request: FastifyRequest, name: string): string {
  const body = request.body;
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * Sign-in and sign-out. The password goes through the same limiter as the API's (per client
 * address and per account, before the scrypt) and the same check (scrypt, with the same work for
 * an unknown e-mail), and a wrong password and an unknown e-mail get the same page.
 */
export function registerAuthRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { accounts, sessions, attempts, cookie } = ctx;

  app.get(SIGN_IN_PATH, async (request, reply) => {
    const visitor = await ctx.visitor(request);
    if (visitor.state === 'signed-in') return reply.redirect(OVERVIEW_PATH, 303);
    // After a password reset (password-reset-routes.ts): say so above the form.
    const changed = (request.query as Record<string, unknown> | undefined)?.['password'] === 'changed';
    return ctx.sendPage(reply, 200, signInPage(changed ? { message: { kind: 'info', text: PASSWORD_CHANGED_NOTICE } } : {}));
  });

  app.post(SIGN_IN_PATH, async (request, reply) => {
    const email = field(request, 'email').trim();
    const password = field(request, 'password');
    const again = (status: number, text: string, resendFor?: string) => ctx.sendPage(reply, status, signInPage({ email, message: { kind: 'error', text }, resendFor }));
    if (email === '' || password === '' || email.length > 254 || password.length > 200) return again(400, 'Enter your e-mail and password.');
    let account: Account | undefined;
    try {
      account = await attempts.password(request.ip, email, () => accounts.authenticatePassword(email, password));
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 429) throw error;
      reply.headers(error.headers);
      return again(429, `${error.message}. ${error.detail}.`);
    }
    if (!account) return again(401, 'The e-mail or password is wrong.');
    // The right password was given, so saying the address waits for verification tells nothing new; the page offers a new link.
    if (!account.emailVerified) return again(403, `Verify your e-mail first: open the link we sent to ${account.email} when you signed up.`, account.email);
    if (account.status !== 'active') return again(403, 'This account is not active. Contact the operator of this service.');
    // A new id at every sign-in; the one the browser had (if any) is ended, so an id planted
    // before sign-in never becomes a signed-in session.
    const { id } = await sessions.create(account.id, { replacing: readSessionId(request, cookie) });
    reply.header('Set-Cookie', setSessionCookie(cookie, id, sessions.limits.maxMs / 1000));
    return reply.redirect(OVERVIEW_PATH, 303);
  });

  app.post(SIGN_OUT_PATH, async (request, reply) => {
    const visitor = await ctx.visitor(request);
    // Without a live session there is nothing to end (it expired, or was ended elsewhere): the
    // browser's cookie is cleared all the same. With one, the form must carry its token.
    if (visitor.state === 'signed-in') {
      const refusal = checkToken(request, visitor.session.csrfToken);
      if (refusal) return ctx.refuse(request, reply, refusal);
      await sessions.delete(visitor.id);
    }
    reply.header('Set-Cookie', clearSessionCookie(cookie));
    return reply.redirect(SIGN_IN_PATH, 303);
  });
}
