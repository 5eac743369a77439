// The real app on a real loopback port for the SDK's REST tests, with PUBLIC_BASE_URL set to
// that port so the downloadUrls it signs are fetchable as they are (no rewriting by the test).
import { createServer } from 'node:net';
import { startTestApp, type TestApp } from '../../../../test/support/test-app.ts';
import type { EgressFetcher } from '../../../../src/analysis/fetch-supervisor.ts';

export interface SdkTestApp {
  t: TestApp;
  baseUrl: string;
}

export async function startSdkTestApp(options: { env?: Record<string, string>; fetcher?: EgressFetcher } = {}): Promise<SdkTestApp> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ env: { PUBLIC_BASE_URL: baseUrl, ...options.env }, ...(options.fetcher ? { fetcher: options.fetcher } : {}) });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, baseUrl };
}

/** A port nothing listens on right now (the kernel's pick, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
