import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Account, Caller } from '../accounts/account-store.ts';
import { validateInput } from '../core/validate-input.ts';

export type RouteAuth = 'none' | 'apiKey' | 'apiKeyOrPassword';

/**
 * A non-tool route (accounts, keys, usage, catalog) described as data, so that the same
 * description registers the route and generates its OpenAPI entry: nothing hand-written twice.
 */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  auth: RouteAuth;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** false when the route answers its own shape rather than the success envelope. */
  envelope?: boolean;
  /** The success status and the schema of the envelope's `result` (or of the whole body without envelope). */
  success: { status: number; description: string; result: z.ZodType };
  /** Error statuses this route can answer besides the common ones. */
  errors: readonly number[];
  handler(request: FastifyRequest, reply: FastifyReply, ctx: RouteContext): Promise<unknown>;
}

/** What the route helper established before the handler runs: who calls, and the validated input. */
export interface RouteContext {
  /** auth 'apiKey': the key's caller */
  caller: Caller | null;
  /** auth 'apiKeyOrPassword': the account proven by a key-managing key or the password, and the key if one was used */
  owner: { account: Account; via: Caller | null } | null;
  /** the body, query and path parameters parsed by the route's own schemas (the ones OpenAPI shows) */
  body: unknown;
  query: unknown;
  params: unknown;
}

export interface RouteAuthenticators {
  /** auth 'none': the client address's per-minute limit, which throws 429 past it (free calls are limited too). */
  keyless(request: FastifyRequest): void | Promise<void>;
  apiKey(request: FastifyRequest): Promise<Caller>;
  apiKeyOrPassword(request: FastifyRequest): Promise<{ account: Account; via: Caller | null }>;
}

/**
 * Mounts described routes. The helper, not the handler, enforces what the description says: the
 * caller authenticates as `auth` names (401/403 before any input is read), then the body, query
 * and path parameters are validated by the declared schemas (400 naming the field). A handler
 * cannot forget either, and what OpenAPI shows is what is checked.
 */
export function mountRoutes(app: FastifyInstance, routes: readonly RouteSpec[], auth: RouteAuthenticators): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      handler: async (request, reply) => {
        const ctx: RouteContext = { caller: null, owner: null, body: request.body, query: request.query, params: request.params };
        if (route.auth === 'none') await auth.keyless(request);
        else if (route.auth === 'apiKey') ctx.caller = await auth.apiKey(request);
        else if (route.auth === 'apiKeyOrPassword') ctx.owner = await auth.apiKeyOrPassword(request);
        if (route.params) ctx.params = validateInput(route.params, request.params ?? {});
        if (route.query) ctx.query = validateInput(route.query, request.query ?? {});
        if (route.body) ctx.body = validateInput(route.body, request.body ?? {});
        return route.handler(request, reply, ctx);
      },
    });
  }
}
