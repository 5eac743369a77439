import type { Services } from '../../src/server.ts';

/** An account no benchmark can exhaust (a billion credits and requests a minute) and its key. */
export async function benchApiKey(services: Services): Promise<string> {
  const account = await services.accounts.createAccount({
    email: 'bench@example.com',
    plan: 'business',
    verified: true,
    quota: 1_000_000_000,
    rateLimit: 1_000_000_000,
  });
  return (await services.accounts.createKey({ accountId: account.id, name: 'bench' })).secret;
}
