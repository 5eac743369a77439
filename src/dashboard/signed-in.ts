import type { FastifyRequest } from 'fastify';
import type { Account, AccountStore } from '../accounts/account-store.ts';
import type { DashboardSession, SessionStore } from './session-store.ts';
import { readSessionId, type SessionCookie } from './session-cookie.ts';

/** Who sent a dashboard request. */
export type Visitor =
  | { state: 'anonymous'; /** the id the browser sent, if any: a sign-in ends it */ staleId?: string | undefined }
  | { state: 'signed-in'; id: string; session: DashboardSession; account: Account }
  /** a live session of an account that is no longer active: ended on the spot */
  | { state: 'inactive'; account: Account };

/**
 * Resolves the request's session cookie, once per request. The account is read on every request
 * (not kept in the session), so a suspended account is refused at its next click, on every node.
 */
export function visitorResolver(deps: { sessions: SessionStore; accounts: AccountStore; cookie: SessionCookie }): (request: FastifyRequest) => Promise<Visitor> {
  const resolved = new WeakMap<FastifyRequest, Promise<Visitor>>();
  async function resolve(request: FastifyRequest): Promise<Visitor> {
    const id = readSessionId(request, deps.cookie);
    if (id === undefined) return { state: 'anonymous' };
    const session = await deps.sessions.find(id);
    if (!session) return { state: 'anonymous', staleId: id };
    const account = await deps.accounts.getAccount(session.accountId);
    if (!account) {
      await deps.sessions.delete(id);
      return { state: 'anonymous' };
    }
    if (account.status !== 'active') {
      await deps.sessions.delete(id);
      return { state: 'inactive', account };
    }
    return { state: 'signed-in', id, session, account };
  }
  return (request) => {
    let visitor = resolved.get(request);
    if (!visitor) {
      visitor = resolve(request);
      resolved.set(request, visitor);
    }
    return visitor;
  };
}
