import { accountEmail, accountPassword } from '../accounts/account-input.ts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AccountStore, Account, ApiKey, Caller } from '../accounts/account-store.ts';
import type { AttemptLimiter } from '../accounts/attempt-limiter.ts';
import type { Mailer } from '../accounts/mailer.ts';
import type { CreditLedger } from '../accounts/credit-ledger.ts';
import { currentUsage, type UsageRecorder } from '../accounts/usage-recorder.ts';
import { PLAN_IDS, PLANS } from '../accounts/plans.ts';
import type { Catalog } from '../core/catalog.ts';
import { successEnvelope } from '../core/envelope.ts';
import { ServiceError, invalidInput } from '../core/errors.ts';
import type { Invoker } from '../core/invoke.ts';
import type { RouteSpec } from './route-spec.ts';
import { verificationMail } from '../dashboard/verify-mail.ts';

export interface AccountRouteDeps {
  accounts: AccountStore;
  ledger: CreditLedger;
  usage: UsageRecorder;
  invoker: Invoker;
  mailer: Mailer;
  catalog: Catalog;
  publicBaseUrl: string;
  /** Limits sign-ups and password attempts per client address (request.ip, after TRUST_PROXY) and per account. */
  attempts: AttemptLimiter;
}

const signupBody = z.object({
  email: accountEmail.describe('Your e-mail address; a verification link is sent to it'),
  password: accountPassword.describe('At least 10 characters'),
});

const credentials = {
  email: z.email().max(254).optional().describe('Account e-mail, when authenticating with the password instead of a key'),
  password: z.string().max(200).optional().describe('Account password, with `email`'),
};

export const createKeyBody = z.object({
  name: z.string().min(1).max(100).optional().describe('A label for the key'),
  tools: z
    .array(z.string().max(200))
    .max(500)
    .nullable()
    .optional()
    .describe("operationIds this key may call; null means every tool; omitted means every tool the creator may call (a key creating a key: that key's own list)"),
  canManageKeys: z.boolean().optional().describe('Whether this key may create, list, rotate and revoke keys (only keys within its own scope)'),
  ...credentials,
});

export const keyIdParams = z.object({ keyId: z.uuid().describe('The key id') });

const keyView = z.object({
  keyId: z.string(),
  name: z.string(),
  prefix: z.string().describe('The first characters of the secret, to recognise it'),
  tools: z.array(z.string()).nullable(),
  canManageKeys: z.boolean(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z
    .string()
    .nullable()
    .describe("The key's latest call (ISO 8601), null if it never made one; written with the usage counts, so another node's calls show within USAGE_FLUSH_MS"),
});

const keyWithSecret = keyView.extend({ apiKey: z.string().describe('The secret: shown only in this response') });

function viewKey(key: ApiKey) {
  return {
    keyId: key.id,
    name: key.name,
    prefix: key.displayPrefix,
    tools: key.tools,
    canManageKeys: key.canManageKeys,
    createdAt: key.createdAt,
    revokedAt: key.revokedAt,
    // A key just created was never used: rowToKey leaves lastUsedAt out where the row was not read.
    lastUsedAt: key.lastUsedAt ?? null,
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * POST /api/v1/api-keys after its body passed `createKeyBody`: the tools must be in the catalog,
 * then AccountStore.createKey with the acting key's scope. Exported so the dashboard's form
 * creates keys by the very same rules.
 */
export async function createKeyAs(
  deps: Pick<AccountRouteDeps, 'accounts' | 'catalog'>,
  owner: { account: Account; via: Caller | null },
  body: z.output<typeof createKeyBody>,
): Promise<{ key: ApiKey; secret: string }> {
  const { account, via } = owner;
  if (body.tools) {
    const unknown = body.tools.filter((id) => !deps.catalog.get(id));
    if (unknown.length > 0) throw invalidInput('Unknown operationIds in tools', [{ field: 'tools', message: `unknown: ${unknown.join(', ')}` }]);
  }
  // Omitted tools mean every tool the creator may call; a list beyond them is refused (403)
  // rather than silently cut, so a client never holds a key narrower than it asked for.
  const tools = body.tools === undefined ? (via?.key.tools ?? null) : body.tools;
  return deps.accounts.createKey({
    accountId: account.id,
    name: body.name,
    tools: tools === null ? null : [...tools],
    canManageKeys: body.canManageKeys ?? false,
    actor: via?.key,
  });
}

/** The authenticator of `apiKeyOrPassword` routes (see mountRoutes). */
export function ownerAuthenticator(
  deps: Pick<AccountRouteDeps, 'accounts' | 'invoker' | 'attempts'>,
): (request: FastifyRequest) => Promise<{ account: Account; via: Caller | null }> {
  const { accounts, invoker, attempts } = deps;
  /**
   * Key management proves ownership of the account: a key allowed to manage keys, or the
   * account's e-mail and password (HTTP Basic, or `email`/`password` in a JSON body).
   */
  return async function owner(request: FastifyRequest): Promise<{ account: Account; via: Caller | null }> {
    const apiKey = header(request, 'x-api-key');
    if (apiKey) {
      const caller = await invoker.authenticate(apiKey);
      if (!caller.key.canManageKeys) {
        throw new ServiceError(403, 'key_management_not_allowed', 'This API key may not manage keys', { detail: 'Use a key created with canManageKeys, or the account e-mail and password' });
      }
      return { account: caller.account, via: caller };
    }
    let email: string | undefined;
    let password: string | undefined;
    const authorization = header(request, 'authorization');
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        email = decoded.slice(0, colon);
        password = decoded.slice(colon + 1);
      }
    } else if (request.body && typeof request.body === 'object') {
      const body = request.body as Record<string, unknown>;
      if (typeof body['email'] === 'string' && typeof body['password'] === 'string') {
        email = body['email'];
        password = body['password'];
      }
    }
    if (email === undefined || password === undefined) {
      throw new ServiceError(401, 'missing_credentials', 'Authentication is required', {
        detail: 'Send X-Api-Key (a key allowed to manage keys) or the account e-mail and password (HTTP Basic)',
      });
    }
    const [user, secret] = [email, password];
    // Counted per address and per account before the scrypt runs; a right password while limited is refused too.
    const account = await attempts.password(request.ip, user, () => accounts.authenticatePassword(user, secret));
    if (!account) throw new ServiceError(401, 'invalid_credentials', 'The e-mail or password is wrong');
    return { account, via: null };
  };
}

/** The context value the route helper guarantees for this route's auth. */
function required<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`the route helper did not establish ${what}`);
  return value;
}

export function accountRoutes(deps: AccountRouteDeps): RouteSpec[] {
  const { accounts, mailer } = deps;

  const routes: RouteSpec[] = [
    {
      method: 'POST',
      url: '/api/v1/accounts',
      operationId: 'accounts_signup',
      summary: 'Create an account',
      description:
        'Signs up on the free plan and sends an e-mail verification link. Calls need a verified e-mail; then create a key with POST /api/v1/api-keys. At most SIGNUP_PER_HOUR sign-ups (default 5) per client address an hour: beyond, 429 with Retry-After.',
      tag: 'accounts',
      auth: 'none',
      body: signupBody,
      success: {
        status: 201,
        description: 'Account created; verification link sent',
        result: z.object({ accountId: z.string(), email: z.string(), plan: z.string(), emailVerified: z.boolean() }),
      },
      errors: [400, 409, 429],
      async handler(request, reply, ctx) {
        const body = ctx.body as z.output<typeof signupBody>;
        // Counted before the password's scrypt and the mail: a flood from one address sends nothing.
        await deps.attempts.signup(request.ip);
        const account = await accounts.createAccount({ email: body.email, password: body.password, plan: 'free' });
        const token = await accounts.createVerificationToken(account.id);
        // The link opens the dashboard's landing page; the mail names this API's endpoint too.
        await mailer.send(verificationMail(deps.publicBaseUrl, account.email, token));
        return reply.code(201).send(
          successEnvelope(
            { accountId: account.id, email: account.email, plan: account.plan, emailVerified: account.emailVerified },
            { code: 201, message: 'Account created; check your e-mail for the verification link' },
          ),
        );
      },
    },
    {
      method: 'GET',
      url: '/api/v1/accounts/verify',
      operationId: 'accounts_verify_email',
      summary: 'Verify an e-mail address',
      description: 'The link sent at signup. Marks the account e-mail verified.',
      tag: 'accounts',
      auth: 'none',
      query: z.object({ token: z.string().min(1).max(200) }),
      success: { status: 200, description: 'E-mail verified', result: z.object({ accountId: z.string(), email: z.string(), emailVerified: z.boolean() }) },
      errors: [400],
      async handler(_request, _reply, ctx) {
        const { token } = ctx.query as { token: string };
        const account = await accounts.verifyEmail(token);
        return successEnvelope({ accountId: account.id, email: account.email, emailVerified: account.emailVerified }, { message: 'E-mail verified' });
      },
    },
    {
      method: 'POST',
      url: '/api/v1/api-keys',
      operationId: 'api_keys_create',
      summary: 'Create an API key',
      description:
        'Creates a key for the account. Authenticate with X-Api-Key (a key allowed to manage keys) or with the account e-mail and password (HTTP Basic or `email`/`password` fields). The secret is returned once and stored only as a hash. A key may create only keys within its own scope (tools a subset of its own, managing keys only if it may): anything broader is 403 `key_scope_exceeded`.',
      tag: 'api-keys',
      auth: 'apiKeyOrPassword',
      body: createKeyBody,
      success: { status: 201, description: 'The new key with its secret', result: keyWithSecret },
      errors: [400, 401, 403, 429],
      async handler(_request, reply, ctx) {
        const { key, secret } = await createKeyAs(deps, required(ctx.owner, 'the owner'), ctx.body as z.output<typeof createKeyBody>);
        return reply.code(201).send(successEnvelope({ ...viewKey(key), apiKey: secret }, { code: 201, message: 'Key created; store the secret now, it is not shown again' }));
      },
    },
    {
      method: 'GET',
      url: '/api/v1/api-keys',
      operationId: 'api_keys_list',
      summary: 'List API keys',
      description:
        "Lists the account keys, revoked ones included, each with its last call (`lastUsedAt`). Secrets are never listed. This node's counted calls are written before the list is read, so a key's own calls show at once.",
      tag: 'api-keys',
      auth: 'apiKeyOrPassword',
      success: { status: 200, description: 'The keys', result: z.object({ keys: z.array(keyView) }) },
      errors: [401, 403, 429],
      async handler(_request, _reply, ctx) {
        const { account } = required(ctx.owner, 'the owner');
        // The last use is written by the usage flush: this process's pending calls go first.
        await deps.usage.flush();
        return successEnvelope({ keys: (await accounts.listKeys(account.id)).map(viewKey) });
      },
    },
    {
      method: 'DELETE',
      url: '/api/v1/api-keys/:keyId',
      operationId: 'api_keys_revoke',
      summary: 'Revoke an API key',
      description: 'The key stops working at once. A key may revoke only keys within its own scope (403 `key_scope_exceeded` otherwise); the account password may revoke any.',
      tag: 'api-keys',
      auth: 'apiKeyOrPassword',
      params: keyIdParams,
      success: { status: 200, description: 'The revoked key', result: keyView },
      errors: [400, 401, 403, 404, 429],
      async handler(_request, _reply, ctx) {
        const { account, via } = required(ctx.owner, 'the owner');
        const { keyId } = ctx.params as z.output<typeof keyIdParams>;
        return successEnvelope(viewKey(await accounts.revokeKey(keyId, account.id, via?.key)), { message: 'Key revoked' });
      },
    },
    {
      method: 'POST',
      url: '/api/v1/api-keys/:keyId/rotate',
      operationId: 'api_keys_rotate',
      summary: 'Rotate an API key',
      description:
        'Issues a new secret for the key; the old secret stops working at once. Id, name and scopes stay. The new secret is returned, so a key may rotate only keys within its own scope (403 `key_scope_exceeded` otherwise); the account password may rotate any.',
      tag: 'api-keys',
      auth: 'apiKeyOrPassword',
      params: keyIdParams,
      body: z.object(credentials),
      success: { status: 200, description: 'The key with its new secret', result: keyWithSecret },
      errors: [400, 401, 403, 404, 429],
      async handler(_request, _reply, ctx) {
        const { account, via } = required(ctx.owner, 'the owner');
        const { keyId } = ctx.params as z.output<typeof keyIdParams>;
        const { key, secret } = await accounts.rotateKey(keyId, account.id, via?.key);
        return successEnvelope({ ...viewKey(key), apiKey: secret }, { message: 'Key rotated; store the new secret now' });
      },
    },
    {
      method: 'GET',
      url: '/api/v1/usage',
      operationId: 'usage_get',
      summary: 'Credit usage this period',
      description:
        "Credits used and left in the current UTC month, the reset time, and calls, failures and credits per tool, per key and per UTC day (`days`: the month's days with calls, oldest first). This node's counted calls are written first, so they show at once; another node's within USAGE_FLUSH_MS. Free.",
      tag: 'usage',
      auth: 'apiKey',
      success: {
        status: 200,
        description: 'Usage of the account this period',
        result: z.object({
          period: z.string(),
          plan: z.string(),
          quota: z.number(),
          used: z.number(),
          remaining: z.number(),
          resetAt: z.string(),
          requestsPerMinute: z.number(),
          byTool: z.array(z.object({ operationId: z.string(), calls: z.number(), failures: z.number().describe('calls answered 4xx or 5xx'), credits: z.number() })),
          byKey: z.array(z.object({ keyId: z.string(), name: z.string().nullable(), calls: z.number(), failures: z.number(), credits: z.number() })),
          days: z
            .array(
              z.object({
                day: z.string().describe('The UTC day, YYYY-MM-DD'),
                calls: z.number(),
                failures: z.number().describe('calls answered 4xx or 5xx'),
                credits: z.number(),
              }),
            )
            .max(31)
            .describe("The period's UTC days with at least one call (all keys), oldest first; a day without calls is absent"),
        }),
      },
      errors: [401],
      async handler(_request, _reply, ctx) {
        const caller = required(ctx.caller, 'the caller');
        // The dashboard's reading (its usage page and overview): this process's counts flushed first; `used` without what its leases hold unspent.
        return successEnvelope(await currentUsage(deps, caller.account));
      },
    },
    {
      method: 'GET',
      url: '/api/v1/plans',
      operationId: 'plans_list',
      summary: 'List plans',
      description: 'Plans with their monthly credits, per-minute limits, excluded families and engine jobs at once (per engine). Free, no key needed.',
      tag: 'catalog',
      auth: 'none',
      success: {
        status: 200,
        description: 'The plans',
        result: z.object({
          plans: z.array(z.object({ id: z.enum(PLAN_IDS), title: z.string(), monthlyCredits: z.number(), requestsPerMinute: z.number(), excludedFamilies: z.array(z.string()), engineJobs: z.number().int() })),
        }),
      },
      errors: [],
      async handler() {
        return successEnvelope({ plans: Object.values(PLANS).map((p) => ({ ...p, excludedFamilies: [...p.excludedFamilies] })) });
      },
    },
    {
      method: 'GET',
      url: '/api/v1/tools',
      operationId: 'tools_list',
      summary: 'List the tool catalog',
      description: 'Every tool with its operationId, family, path, method, credit cost and summary. Free, no key needed.',
      tag: 'catalog',
      auth: 'none',
      success: {
        status: 200,
        description: 'The catalog',
        result: z.object({
          count: z.number(),
          tools: z.array(
            z.object({ operationId: z.string(), family: z.string(), path: z.string(), method: z.string(), credits: z.number(), summary: z.string(), description: z.string(), aliases: z.array(z.string()) }),
          ),
        }),
      },
      errors: [],
      async handler() {
        const tools = deps.catalog.tools.map((t) => ({
          operationId: t.operationId,
          family: t.family,
          path: t.path,
          method: t.method,
          credits: t.credits,
          summary: t.title,
          description: t.description,
          aliases: [...t.aliases],
        }));
        return successEnvelope({ count: tools.length, tools });
      },
    },
  ];
  return routes;
}
