// Who a tool call is made by, per message: the caller authenticated for the very HTTP request
// that carried it (a Streamable HTTP POST, or one SSE message POST), with that request's logger and
// id. A server is built once per SSE session (and kept between Streamable HTTP requests), so what
// its tools read must not be what was true when it was built: the transport hands every message
// the scope of its own request as the SDK's authInfo, the tool guard (tool-guard.ts) runs the
// handler inside it, and the tools' contexts read caller, log and requestId from it when called.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Caller } from '../accounts/account-store.ts';

export interface CallScope {
  caller: Caller;
  log: FastifyBaseLogger;
  requestId: string;
}

const running = new AsyncLocalStorage<CallScope>();

/** The SDK's authInfo for a request made with `scope` (the key's id as clientId; never its secret). */
export function scopeAuthInfo(scope: CallScope): AuthInfo {
  return { token: '', clientId: scope.caller.key.id, scopes: [], extra: { scope } };
}

/** The scope a message arrived with, or undefined for one that came without (not through our routes). */
export function scopeOfAuthInfo(authInfo: AuthInfo | undefined): CallScope | undefined {
  const scope = authInfo?.extra?.['scope'];
  return typeof scope === 'object' && scope !== null && 'caller' in scope ? (scope as CallScope) : undefined;
}

export function runInScope<T>(scope: CallScope, work: () => T): T {
  return running.run(scope, work);
}

/**
 * The scope of the tool call running now; `fallback` (the server's build-time scope) only outside
 * any call, where a tool registers itself and reads the key's account id, which never changes.
 */
export function currentScope(fallback: CallScope): CallScope {
  return running.getStore() ?? fallback;
}
