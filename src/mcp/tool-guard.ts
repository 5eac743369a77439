// The one door every MCP tool goes through, free or billed. Each call is checked as the caller of
// its own message (call-scope.ts), never as the caller the server was built for: the account's
// state of that moment (a suspended or unverified account is refused as REST refuses it), then one
// token of the account's per-minute limit, the same limiter invoke uses. Free tools (search,
// schemas, planning, skills, runs, payloads, feature memory) cost no credits but do work, so they
// count like any request. A billed tool's first catalog call spends the token its tool call took
// (RequestLimiter.covered), so invoke_tool costs one token, not two; a playbook's further steps each
// take their own, as REST calls would.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequestLimiter } from '../accounts/rate-limiter.ts';
import { ServiceError, isServiceError } from '../core/errors.ts';
import type { Invoker } from '../core/invoke.ts';
import { runInScope, scopeOfAuthInfo } from './call-scope.ts';
import { result } from './tool-result.ts';

export interface ToolGuardDeps {
  invoker: Invoker;
  rateLimiter: RequestLimiter;
}

/** A refused call, shaped as invoke_tool shapes a refusal: error, message, detail, stage, retryAfterSeconds. */
function refusal(tool: string, stage: 'authorize' | 'rate', error: ServiceError): CallToolResult {
  const retryAfterSeconds = error.extra['retryAfterSeconds'];
  return result(
    {
      status: 'error',
      tool,
      error: error.error,
      message: error.message,
      detail: error.detail,
      stage,
      ...(typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {}),
      ...(Object.keys(error.extra).length > 0 ? { details: error.extra } : {}),
    },
    true,
  );
}

/** Checks one call and runs it in its own scope, or answers why it may not run. */
async function guardCall<T>(tool: string, authInfo: AuthInfo | undefined, deps: ToolGuardDeps, run: () => T): Promise<Awaited<T> | CallToolResult> {
  const scope = scopeOfAuthInfo(authInfo);
  // Only our routes connect transports, and they always send the scope; anything else is refused.
  if (scope === undefined) return refusal(tool, 'authorize', new ServiceError(401, 'missing_api_key', 'An API key is required'));
  let requestsPerMinute: number;
  try {
    requestsPerMinute = deps.invoker.authorizeAccount(scope.caller).requestsPerMinute;
  } catch (err) {
    if (!isServiceError(err)) throw err;
    return refusal(tool, 'authorize', err);
  }
  const accountId = scope.caller.account.id;
  const rate = await deps.rateLimiter.take(accountId, requestsPerMinute);
  if (!rate.allowed) {
    return refusal(
      tool,
      'rate',
      new ServiceError(429, 'rate_limited', `Rate limit of ${requestsPerMinute} requests per minute exceeded`, {
        detail: `Retry after ${rate.resetSeconds} seconds`,
        extra: { retryAfterSeconds: rate.resetSeconds },
      }),
    );
  }
  return await runInScope(scope, () => deps.rateLimiter.covered(accountId, rate, run));
}

/**
 * Wraps `server.registerTool` so that every tool registered from here on is guarded; the SDK's
 * older `tool()` form, which would register around the guard, is refused outright.
 */
export function guardTools(server: McpServer, deps: ToolGuardDeps): void {
  const register = server.registerTool.bind(server) as (name: string, config: unknown, handler: (...params: unknown[]) => unknown) => unknown;
  const guarded = (name: string, config: unknown, handler: (...params: unknown[]) => unknown) =>
    register(name, config, (...params: unknown[]) => {
      // The SDK passes (args, extra), or (extra) alone for a tool without an input schema.
      const extra = params[params.length - 1] as { authInfo?: AuthInfo } | undefined;
      return guardCall(name, extra?.authInfo, deps, () => handler(...params));
    });
  server.registerTool = guarded as unknown as McpServer['registerTool'];
  server.tool = (() => {
    throw new Error('Register MCP tools with registerTool: it is the guarded path (tool-guard.ts)');
  }) as unknown as McpServer['tool'];
}
