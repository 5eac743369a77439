import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccountStore } from './account-store.ts';

/**
 * On the first start with an empty database: a local account (verified, free plan) and a key
 * that may manage keys, so a newcomer can call a tool within a minute. The secret is returned
 * once and written to DATA_DIR/bootstrap-key with mode 600; only its hash is stored.
 */
export async function bootstrapAccount(accounts: AccountStore, options: { dataDir: string; email: string }): Promise<{ accountId: string; apiKey: string; file: string } | undefined> {
  if ((await accounts.countAccounts()) > 0) return undefined;
  const account = await accounts.createAccount({ email: options.email, plan: 'free', verified: true });
  const { secret } = await accounts.createKey({ accountId: account.id, name: 'bootstrap', canManageKeys: true });
  await mkdir(options.dataDir, { recursive: true });
  const file = join(options.dataDir, 'bootstrap-key');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return { accountId: account.id, apiKey: secret, file };
}
