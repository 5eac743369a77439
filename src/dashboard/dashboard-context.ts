import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountStore } from '../accounts/account-store.ts';
import type { AttemptLimiter } from '../accounts/attempt-limiter.ts';
import type { CreditLedger } from '../accounts/credit-ledger.ts';
import type { Mailer } from '../accounts/mailer.ts';
import type { UsageRecorder } from '../accounts/usage-recorder.ts';
import type { EgressPolicy } from '../analysis/egress-policy.ts';
import type { Catalog } from '../core/catalog.ts';
import { ServiceError } from '../core/errors.ts';
import type { FeatureMemory } from '../runs/feature-memory/feature-memory.ts';
import type { WebhookDispatcher } from '../runs/webhook-delivery.ts';
import type { FeatureSeenStore } from './feature-seen.ts';
import type { PlaygroundDeps } from './playground-routes.ts';
import { REFUSAL_TEXT, type CsrfRefusal } from './csrf.ts';
import { prefersHtml } from './front-page.ts';
import { messagePage, SIGN_IN_PATH } from './pages.ts';
import { noStore } from './security-headers.ts';
import type { SessionStore } from './session-store.ts';
import { clearSessionCookie, sessionCookieFor, type SessionCookie } from './session-cookie.ts';
import { visitorResolver, type Visitor } from './signed-in.ts';

/** What the dashboard needs of the services. */
export interface DashboardDeps {
  accounts: AccountStore;
  ledger: CreditLedger;
  usage: UsageRecorder;
  /** the live catalog, as the API's routes get it: the keys page offers its tools as scopes */
  catalog: Catalog;
  /** the API's webhook dispatcher (its store, sendTest) and egress policy: the webhooks page registers and tests through them */
  webhooks: WebhookDispatcher;
  egress: EgressPolicy;
  /** the invoke path and REST's file pipeline and upload limit: the Playground calls tools through them */
  playground: PlaygroundDeps;
  sessions: SessionStore;
  /** the same limiter as the API's password checks (src/accounts/attempt-limiter.ts) */
  attempts: AttemptLimiter;
  /** the verification mail of a sign-up (the API's own mailer) */
  mailer: Mailer;
  publicBaseUrl: string;
  /** the MCP tools' feature memory (the same FeatureStore) and the page's last visit per account, for the badge */
  featureMemory: FeatureMemory;
  featureSeen: FeatureSeenStore;
}

/** The deps plus what every dashboard route shares: the cookie, the visitor, page and refusal answers. */
export interface DashboardContext extends DashboardDeps {
  cookie: SessionCookie;
  visitor(request: FastifyRequest): Promise<Visitor>;
  sendPage(reply: FastifyReply, status: number, body: string): FastifyReply;
  refuse(request: FastifyRequest, reply: FastifyReply, reason: CsrfRefusal): FastifyReply;
  /**
   * The signed-in visitor of a page, or undefined once the answer is sent: a 303 to sign-in for
   * no session, a 403 (and the cookie cleared) for an account no longer active.
   */
  signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedInVisitor | undefined>;
}

export type SignedInVisitor = Extract<Visitor, { state: 'signed-in' }>;

/** A request from a script rather than a browser page: it gets the service's JSON error envelope. */
export function apiStyle(request: FastifyRequest): boolean {
  const type = request.headers['content-type'] ?? '';
  const accept = request.headers.accept ?? '';
  return type.toLowerCase().startsWith('application/json') || (!prefersHtml(accept) && /json/i.test(accept));
}

export function dashboardContext(deps: DashboardDeps): DashboardContext {
  const cookie = sessionCookieFor(deps.publicBaseUrl);
  const sendPage = (reply: FastifyReply, status: number, body: string) => noStore(reply).code(status).type('text/html; charset=utf-8').send(body);
  const visitor = visitorResolver({ sessions: deps.sessions, accounts: deps.accounts, cookie });
  return {
    ...deps,
    cookie,
    visitor,
    sendPage,
    refuse(request, reply, reason) {
      if (apiStyle(request)) throw new ServiceError(403, 'csrf_refused', REFUSAL_TEXT[reason], { detail: `reason: ${reason}`, extra: { reason } });
      return sendPage(reply, 403, messagePage('Request refused', REFUSAL_TEXT[reason]));
    },
    async signedIn(request, reply) {
      const who = await visitor(request);
      if (who.state === 'signed-in') return who;
      if (who.state === 'anonymous') reply.redirect(SIGN_IN_PATH, 303);
      else {
        reply.header('Set-Cookie', clearSessionCookie(cookie));
        sendPage(reply, 403, messagePage('Account not active', `The account ${who.account.email} is ${who.account.status}; its session has been ended.`));
      }
      return undefined;
    },
  };
}
