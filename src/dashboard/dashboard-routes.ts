import type { FastifyInstance, FastifyReply } from 'fastify';
import { ServiceError } from '../core/errors.ts';
import { ASSETS, IMMUTABLE } from './assets.ts';
import { registerAuthRoutes } from './auth-routes.ts';
import { STATE_CHANGING, checkOrigin, checkToken } from './csrf.ts';
import { apiStyle, dashboardContext, type DashboardContext, type DashboardDeps } from './dashboard-context.ts';
import { frontPage } from './front-page.ts';
import { FORGOT_PASSWORD_PATH, messagePage, OVERVIEW_PATH, RESET_PASSWORD_PATH, SIGN_IN_PATH, SIGN_OUT_PATH, SIGN_UP_PATH, VERIFY_RESEND_PATH, overviewPage } from './pages.ts';
import { registerPasswordResetRoutes } from './password-reset-routes.ts';
import { securityHeaders } from './security-headers.ts';
import { registerKeyRoutes } from './key-routes.ts';
import { registerSignUpRoutes } from './sign-up-routes.ts';
import { registerUsageRoutes } from './usage-routes.ts';
import { currentUsage } from '../accounts/usage-recorder.ts';
import { registerVerifyRoutes } from './verify-routes.ts';
import { registerWebhookRoutes } from './webhook-routes.ts';
import { withFeatureBadge } from './feature-badge.ts';
import { registerFeatureRoutes } from './feature-routes.ts';
import { registerMcpSetupRoutes } from './mcp-setup-routes.ts';
import { registerPlaygroundRoutes } from './playground-routes.ts';
import { UPLOAD_ROUTE } from './playground-upload.ts';

export type { DashboardDeps } from './dashboard-context.ts';

/**
 * Routes whose state change is guarded by the Origin check alone: sign-in, sign-up, the password
 * reset and a new verification link have no session yet (an unverified account cannot sign in),
 * sign-out checks the token itself when there is one.
 */
const ORIGIN_ONLY = new Set([SIGN_IN_PATH, SIGN_UP_PATH, SIGN_OUT_PATH, FORGOT_PASSWORD_PATH, RESET_PASSWORD_PATH, VERIFY_RESEND_PATH]);

/** Form posts are small: an e-mail, a password, a token, or a key's name and its tool scopes (the catalog's operationIds). */
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * Mounts the dashboard under /dashboard in its own scope (its form parser, headers, CSRF check
 * and HTML error pages stay out of the API's way). `app` is expected to compress (server.ts
 * registers it in the docs' compressed scope).
 */
export async function registerDashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const ctx = withFeatureBadge(dashboardContext(deps), deps.featureSeen);
  const headers = securityHeaders(deps.publicBaseUrl);
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
      done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
    });
    // no-store by default: pages show account data, and a redirect depends on the cookie. The
    // stylesheet's route replaces it with its immutable caching.
    scope.addHook('onRequest', (_request, reply, done) => {
      reply.headers(headers).header('Cache-Control', 'no-store');
      done();
    });
    // After the body is parsed (the token may be a form field), before any handler changes state.
    scope.addHook('preHandler', async (request, reply) => {
      if (!STATE_CHANGING.has(request.method)) return;
      const originRefusal = checkOrigin(request, deps.publicBaseUrl);
      if (originRefusal) return ctx.refuse(request, reply, originRefusal);
      if (ORIGIN_ONLY.has(request.routeOptions.url ?? '')) return;
      const visitor = await ctx.visitor(request);
      if (visitor.state !== 'signed-in') return reply.redirect(SIGN_IN_PATH, 303);
      // A Playground upload's token is a multipart field, streamed with the file: its handler checks it before any call.
      if (request.routeOptions.url === UPLOAD_ROUTE) return;
      const tokenRefusal = checkToken(request, visitor.session.csrfToken);
      if (tokenRefusal) return ctx.refuse(request, reply, tokenRefusal);
    });
    // A browser gets a page naming the problem; a script gets the service's JSON error envelope
    // (an error thrown here goes on to the app's own handler).
    scope.setErrorHandler((error, request, reply) => {
      if (apiStyle(request)) throw error;
      const status = error instanceof ServiceError ? error.status : typeof (error as { statusCode?: unknown }).statusCode === 'number' ? (error as { statusCode: number }).statusCode : 500;
      if (status >= 500) request.log.error({ err: error }, 'dashboard request failed');
      if (error instanceof ServiceError) reply.headers(error.headers);
      const text = status >= 500 ? 'Something went wrong on our side. Try again in a moment.' : error instanceof Error ? error.message : 'The request was not understood.';
      return ctx.sendPage(reply, status, messagePage(status >= 500 ? 'Something went wrong' : 'Request not accepted', text));
    });

    for (const asset of ASSETS) {
      scope.get(asset.path, (_request, reply) => reply.header('Cache-Control', IMMUTABLE).type(asset.type).send(asset.body));
    }
    registerAuthRoutes(scope, ctx);
    registerSignUpRoutes(scope, ctx);
    registerPasswordResetRoutes(scope, ctx);
    registerVerifyRoutes(scope, ctx);
    registerOverview(scope, ctx);
    registerKeyRoutes(scope, ctx);
    registerUsageRoutes(scope, ctx);
    registerWebhookRoutes(scope, ctx);
    registerFeatureRoutes(scope, ctx);
    registerMcpSetupRoutes(scope, ctx);
    await registerPlaygroundRoutes(scope, ctx);
  });
}

/**
 * A form body as fields: a name sent once is a string, a name sent more than once (the key form's
 * tool checkboxes) an array of its values in order. A field read as a string by a handler is then
 * '' when repeated, never the first or the last of several.
 */
export function parseForm(body: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const had = Object.hasOwn(fields, name) ? fields[name] : undefined;
    fields[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return fields;
}

function registerOverview(app: FastifyInstance, ctx: DashboardContext): void {
  app.get(OVERVIEW_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const { account, session } = visitor;
    const usage = await currentUsage(ctx, account);
    return ctx.sendPage(reply, 200, overviewPage(account, usage, { email: account.email, csrfToken: session.csrfToken }));
  });
}

/** `/` for a browser: the product page, with the dashboard's headers. */
export function sendFrontPage(reply: FastifyReply, publicBaseUrl: string): FastifyReply {
  return reply.headers(securityHeaders(publicBaseUrl)).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(frontPage(publicBaseUrl));
}
