import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountStore } from '../accounts/account-store.ts';
import type { AttemptLimiter } from '../accounts/attempt-limiter.ts';
import type { CreditLedger } from '../accounts/credit-ledger.ts';
import type { Mailer } from '../accounts/mailer.ts';
import type { UsageRecorder } from '../accounts/usage-recorder.ts';
import { ServiceError } from '../core/errors.ts';
import { REFUSAL_TEXT, type CsrfRefusal } from './csrf.ts';
import { prefersHtml } from './front-page.ts';
import { messagePage } from './pages.ts';
import { noStore } from './security-headers.ts';
import { sessionCookieFor, type SessionCookie } from './session-cookie.ts';
import type { SessionStore } from './session-store.ts';
import { visitorResolver, type Visitor } from './signed-in.ts';

/** What the dashboard needs of the services. */
export interface DashboardDeps {
  accounts: AccountStore;
  ledger: CreditLedger;
  usage: UsageRecorder;
  sessions: SessionStore;
  /** the same limiter as the API's password checks (src/accounts/attempt-limiter.ts) */
  attempts: AttemptLimiter;
  /** the verification mail of a sign-up (the API's own mailer) */
  mailer: Mailer;
  publicBaseUrl: string;
}

/** The deps plus what every dashboard route shares: the cookie, the visitor, page and refusal answers. */
export interface DashboardContext extends DashboardDeps {
  cookie: SessionCookie;
  visitor(request: FastifyRequest): Promise<Visitor>;
  sendPage(reply: FastifyReply, status: number, body: string): FastifyReply;
  refuse(request: FastifyRequest, reply: FastifyReply, reason: CsrfRefusal): FastifyReply;
}

/** A request from a script rather than a browser page: it gets the service's JSON error envelope. */
export function apiStyle(request: FastifyRequest): boolean {
  const type = request.headers['content-type'] ?? '';
  const accept = request.headers.accept ?? '';
  return type.toLowerCase().startsWith('application/json') || (!prefersHtml(accept) && /json/i.test(accept));
}

export function dashboardContext(deps: DashboardDeps): DashboardContext {
  const cookie = sessionCookieFor(deps.publicBaseUrl);
  const sendPage = (reply: FastifyReply, status: number, body: string) => noStore(reply).code(status).type('text/html; charset=utf-8').send(body);
  return {
    ...deps,
    cookie,
    visitor: visitorResolver({ sessions: deps.sessions, accounts: deps.accounts, cookie }),
    sendPage,
    refuse(request, reply, reason) {
      if (apiStyle(request)) throw new ServiceError(403, 'csrf_refused', REFUSAL_TEXT[reason], { detail: `reason: ${reason}`, extra: { reason } });
      return sendPage(reply, 403, messagePage('Request refused', REFUSAL_TEXT[reason]));
    },
  };
}
