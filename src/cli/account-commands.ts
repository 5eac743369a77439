// The operator's account and key commands. They open the database the server uses (DATABASE_URL),
// migrate it if needed, and print JSON. Input is checked by the rules the API uses (account-input.ts).
import { accountEmail, accountPassword, PASSWORD_RULE } from '../accounts/account-input.ts';
import { AccountStore, type Account, type ApiKey } from '../accounts/account-store.ts';
import { PLAN_IDS } from '../accounts/plans.ts';
import type { Config } from '../config.ts';
import { loadCatalog } from '../core/catalog.ts';
import { migrateToLatest, openDatabase } from '../db/database.ts';
import { nonNegativeInt, requiredOption, stringOption, UsageError, type CommandSpec, type OptionValues } from './cli-spec.ts';

async function withStore<T>(config: Config, fn: (store: AccountStore) => Promise<T>): Promise<T> {
  const db = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(db);
    return await fn(new AccountStore(db));
  } finally {
    await db.destroy();
  }
}

function accountView(account: Account) {
  return { accountId: account.id, email: account.email, plan: account.plan, status: account.status, emailVerified: account.emailVerified, quotaOverride: account.quotaOverride, rateLimitOverride: account.rateLimitOverride, createdAt: account.createdAt };
}

function keyView(key: ApiKey) {
  return { keyId: key.id, name: key.name, prefix: key.displayPrefix, tools: key.tools, canManageKeys: key.canManageKeys, createdAt: key.createdAt, revokedAt: key.revokedAt };
}

/**
 * The account a command names: by --account ID, or by --email E where the command offers it
 * (accounts show; main() refuses options a command does not declare, so the others give an id).
 * Every command that takes an account finds it here, so an unknown one is refused alike: exit 2,
 * "no account <what was given>" and the command's usage. (accounts set-plan leaves the finding to
 * AccountStore.setPlan, which answers the API's 404 for it.)
 */
async function accountOf(store: AccountStore, values: OptionValues, command: CommandSpec): Promise<Account> {
  const id = stringOption(values, 'account');
  const email = stringOption(values, 'email');
  if ((id === undefined) === (email === undefined)) throw new UsageError('give --account ID or --email E (one of them)', command);
  const account = id !== undefined ? await store.getAccount(id) : await store.findAccountByEmail(email ?? '');
  if (account === undefined) throw new UsageError(`no account ${id ?? email}`, command);
  return account;
}

const PLAN_LIST = PLAN_IDS.join(', ');

export const accountsCreate: CommandSpec = {
  path: ['accounts', 'create'],
  summary: 'create an account and its first key (the secret is printed once)',
  description: `The e-mail and password follow the sign-up rules of the API (a valid address; a password of ${PASSWORD_RULE}). Without --password the account signs in with keys only.`,
  options: [
    { name: 'email', type: 'string', value: 'E', required: true, description: "the account's e-mail address" },
    { name: 'password', type: 'string', value: 'P', description: `a password for the dashboard and key management (${PASSWORD_RULE})` },
    { name: 'plan', type: 'string', value: 'P', description: `the plan: ${PLAN_LIST} (default free)` },
    { name: 'verified', type: 'boolean', description: 'mark the e-mail as verified (no verification mail)' },
    { name: 'quota', type: 'string', value: 'N', description: "monthly credits, instead of the plan's" },
    { name: 'rate-limit', type: 'string', value: 'N', description: "requests a minute, instead of the plan's" },
  ],
  examples: ['tool-service accounts create --email dev@example.com --plan pro --verified'],
  async run(values, ctx) {
    const email = requiredOption(values, 'email');
    if (!accountEmail.safeParse(email).success) throw new UsageError(`--email must be an e-mail address, not "${email}"`, accountsCreate);
    const password = stringOption(values, 'password');
    if (password !== undefined && !accountPassword.safeParse(password).success) throw new UsageError(`--password must be ${PASSWORD_RULE}`, accountsCreate);
    const quota = nonNegativeInt(values, 'quota', accountsCreate);
    const rateLimit = nonNegativeInt(values, 'rate-limit', accountsCreate);
    const result = await withStore(ctx.config(), async (store) => {
      const account = await store.createAccount({ email, plan: stringOption(values, 'plan'), password, verified: values['verified'] === true, quota, rateLimit });
      const { key, secret } = await store.createKey({ accountId: account.id, name: 'default', canManageKeys: true });
      return { accountId: account.id, apiKey: secret, keyId: key.id };
    });
    ctx.print(result);
  },
};

export const accountsList: CommandSpec = {
  path: ['accounts', 'list'],
  summary: 'list accounts, oldest first',
  options: [
    { name: 'limit', type: 'string', value: 'N', description: 'at most N accounts (default 50, at most 1000)' },
    { name: 'offset', type: 'string', value: 'N', description: 'skip the first N' },
  ],
  async run(values, ctx) {
    const limit = Math.min(1000, nonNegativeInt(values, 'limit', accountsList) ?? 50);
    const offset = nonNegativeInt(values, 'offset', accountsList) ?? 0;
    const accounts = await withStore(ctx.config(), (store) => store.listAccounts({ limit, offset }));
    ctx.print(accounts.map(accountView));
  },
};

export const accountsShow: CommandSpec = {
  path: ['accounts', 'show'],
  summary: "show one account: its plan, this month's credits and its keys",
  options: [
    { name: 'account', type: 'string', value: 'ID', description: 'the account id' },
    { name: 'email', type: 'string', value: 'E', description: 'or its e-mail address' },
  ],
  async run(values, ctx) {
    const shown = await withStore(ctx.config(), async (store) => {
      const account = await accountOf(store, values, accountsShow);
      const usage = await store.usageSummary(account, await store.usedCredits(account.id));
      const keys = await store.listKeys(account.id);
      return { ...accountView(account), usage: { period: usage.period, quota: usage.quota, used: usage.used, remaining: usage.remaining, resetAt: usage.resetAt, requestsPerMinute: usage.requestsPerMinute }, keys: keys.map(keyView) };
    });
    ctx.print(shown);
  },
};

export const accountsSetPlan: CommandSpec = {
  path: ['accounts', 'set-plan'],
  summary: "change an account's plan",
  options: [
    { name: 'account', type: 'string', value: 'ID', required: true, description: 'the account id (see accounts list)' },
    { name: 'plan', type: 'string', value: 'P', required: true, description: `the plan: ${PLAN_LIST}` },
  ],
  async run(values, ctx) {
    const accountId = requiredOption(values, 'account');
    const plan = requiredOption(values, 'plan');
    const account = await withStore(ctx.config(), (store) => store.setPlan(accountId, plan));
    ctx.print({ accountId: account.id, plan: account.plan });
  },
};

export const keysCreate: CommandSpec = {
  path: ['keys', 'create'],
  summary: 'create an API key for an account (the secret is printed once)',
  options: [
    { name: 'account', type: 'string', value: 'ID', required: true, description: 'the account id' },
    { name: 'name', type: 'string', value: 'N', description: 'a label for the key' },
    { name: 'tools', type: 'string', value: 'op1,op2', description: 'the operationIds it may call (default: every tool)' },
    { name: 'manage-keys', type: 'boolean', description: 'it may create, list, rotate and revoke keys within its scope' },
  ],
  async run(values, ctx) {
    const list = stringOption(values, 'tools');
    const tools = list?.split(',').map((s) => s.trim()).filter(Boolean);
    const result = await withStore(ctx.config(), async (store) => {
      const account = await accountOf(store, values, keysCreate);
      if (tools) {
        const catalog = await loadCatalog();
        const unknown = tools.filter((id) => !catalog.get(id));
        if (unknown.length > 0) throw new UsageError(`unknown operationIds: ${unknown.join(', ')}`, keysCreate);
      }
      const { key, secret } = await store.createKey({ accountId: account.id, name: stringOption(values, 'name'), tools, canManageKeys: values['manage-keys'] === true });
      return { keyId: key.id, apiKey: secret };
    });
    ctx.print(result);
  },
};

export const keysList: CommandSpec = {
  path: ['keys', 'list'],
  summary: "list an account's keys (never their secrets)",
  options: [
    { name: 'account', type: 'string', value: 'ID', required: true, description: 'the account id' },
    { name: 'all', type: 'boolean', description: 'include revoked keys' },
  ],
  async run(values, ctx) {
    const keys = await withStore(ctx.config(), async (store) => store.listKeys((await accountOf(store, values, keysList)).id));
    ctx.print(keys.filter((k) => values['all'] === true || k.revokedAt === null).map(keyView));
  },
};

export const keysRevoke: CommandSpec = {
  path: ['keys', 'revoke'],
  summary: 'revoke a key at once',
  options: [{ name: 'key', type: 'string', value: 'ID', required: true, description: 'the key id (see keys list)' }],
  async run(values, ctx) {
    const keyId = requiredOption(values, 'key');
    const key = await withStore(ctx.config(), (store) => store.revokeKey(keyId));
    ctx.print({ keyId: key.id, revokedAt: key.revokedAt });
  },
};

export const ACCOUNT_COMMANDS: readonly CommandSpec[] = [accountsCreate, accountsList, accountsShow, accountsSetPlan, keysCreate, keysList, keysRevoke];
