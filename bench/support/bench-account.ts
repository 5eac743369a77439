import type { Services } from '../../src/server.ts';

/** An account no benchmark can exhaust (a billion credits and requests a minute) and its key. */
export async function benchApiKey(services: Services, email = 'bench@example.com'): Promise<string> {
  const account = await services.accounts.createAccount({
    email,
    plan: 'business',
    verified: true,
    quota: 1_000_000_000,
    rateLimit: 1_000_000_000,
  });
  return (await services.accounts.createKey({ accountId: account.id, name: 'bench' })).secret;
}

/**
 * `count` such accounts, each with its own key (the first is bench@example.com, as benchApiKey's):
 * clients of different accounts, which the engines' fair queue treats as the different customers
 * they are, where clients of one account share that account's fair share of a pool.
 */
export async function benchApiKeys(services: Services, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) keys.push(await benchApiKey(services, i === 0 ? 'bench@example.com' : `bench-${i + 1}@example.com`));
  return keys;
}
