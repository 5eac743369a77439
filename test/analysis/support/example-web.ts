// A small web of example.com pages on 127.0.0.1 for URL tools run through the whole app: one
// HTTP and one HTTPS site (a throwaway CA's certificate for example.com and its subdomains),
// reached the way an operator would reach an intranet site, with EGRESS_ALLOW and EGRESS_RESOLVE,
// through the real fetcher. The sites have ports of their own, so every example.com URL in a
// request, a page or a header is rewritten to carry the right port before it is used.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildEgressPolicy } from '../../../src/analysis/egress-policy.ts';
import { createEgressFetcher, type EgressFetcher } from '../../../src/analysis/fetch-supervisor.ts';
import type { ExamplePage } from '../../../src/core/define-url-tool.ts';
import { createTestCa, startHttpSite, startHttpsSite, type TestCa, type TestSite } from './test-sites.ts';

export const EXAMPLE_HOSTS = ['example.com', 'www.example.com', 'blog.example.com', 'shop.example.com', 'cdn.example.com', 'rival.example.com'];
const EXAMPLE_URL = /\b(https?):\/\/((?:[a-z0-9-]+\.)*example\.com)(?![a-z0-9.-]|:\d)/g;

export interface ExampleWeb {
  http: TestSite;
  https: TestSite;
  ca: TestCa;
  /** the real egress-safe fetcher, allowed to 127.0.0.1, the example hosts pinned there, the test CA trusted */
  fetcher: EgressFetcher;
  /** the pages served from now on, by absolute URL as written (without ports) */
  serve(pages: Record<string, ExamplePage>): void;
  /** how many requests (any method) reached an absolute URL as written (without its port) so far */
  requests(url: string): number;
  /** example.com URLs in a string (or JSON) with the sites' ports put in */
  rewrite(text: string): string;
  /** the same, recursively, in an object */
  rewriteValue<T>(value: T): T;
  close(): Promise<void>;
}

export async function startExampleWeb(): Promise<ExampleWeb> {
  const ca = createTestCa();
  let pages = new Map<string, ExamplePage>();
  const seen = new Map<string, number>();
  let httpPort = 0;
  let httpsPort = 0;
  const rewrite = (text: string): string =>
    text.replace(EXAMPLE_URL, (_all, scheme: string, host: string) => `${scheme}://${host}:${scheme === 'https' ? httpsPort : httpPort}`);
  const handler = (scheme: 'http' | 'https') => (req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const at = `${scheme}://${host}${req.url ?? '/'}`;
    seen.set(at, (seen.get(at) ?? 0) + 1);
    const page = pages.get(at);
    if (page === undefined) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    for (const [name, value] of Object.entries(page.headers ?? {})) headers[name.toLowerCase()] = rewrite(value);
    res.writeHead(page.status ?? 200, headers);
    res.end(req.method === 'HEAD' ? undefined : rewrite(page.body));
  };
  const http = await startHttpSite(handler('http'));
  const https = await startHttpsSite(handler('https'), ca.issue([...EXAMPLE_HOSTS], 30));
  httpPort = http.port;
  httpsPort = https.port;
  const fetcher = createEgressFetcher(
    { policy: buildEgressPolicy('127.0.0.1/32', EXAMPLE_HOSTS.map((h) => `${h}:127.0.0.1`).join(',')), extraCa: [ca.caPem], limits: { totalTimeoutMs: 10_000 } },
    { concurrency: 16, perAccount: 8, maxQueued: 64 },
  );
  const rewriteValue = <T>(value: T): T => JSON.parse(rewrite(JSON.stringify(value))) as T;
  return {
    http,
    https,
    ca,
    fetcher,
    serve(next) {
      pages = new Map(Object.entries(next));
    },
    requests: (url) => seen.get(url) ?? 0,
    rewrite,
    rewriteValue,
    async close() {
      await Promise.all([http.close(), https.close()]);
      ca.dispose();
    },
  };
}
