import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccountStore } from './account-store.ts';
import { PLANS } from './plans.ts';

/** The plan with the most credits: the operator's own account must not hit the free plan's limits. */
export function highestPlan(): string {
  return Object.values(PLANS).reduce((best, plan) => (plan.monthlyCredits > best.monthlyCredits ? plan : best)).id;
}

/**
 * On the first start with an empty database: the local operator's account (verified, on the
 * highest plan, so walking through the docs' examples does not hit the free plan's 30 requests a
 * minute) and a key that may manage keys, so a newcomer can call a tool within a minute. The
 * secret is returned once and written to DATA_DIR/bootstrap-key with mode 600; only its hash is stored.
 */
export async function bootstrapAccount(accounts: AccountStore, options: { dataDir: string; email: string }): Promise<{ accountId: string; apiKey: string; file: string; plan: string } | undefined> {
  if ((await accounts.countAccounts()) > 0) return undefined;
  const plan = highestPlan();
  const account = await accounts.createAccount({ email: options.email, plan, verified: true });
  const { secret } = await accounts.createKey({ accountId: account.id, name: 'bootstrap', canManageKeys: true });
  await mkdir(options.dataDir, { recursive: true });
  const file = join(options.dataDir, 'bootstrap-key');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return { accountId: account.id, apiKey: secret, file, plan };
}
