/**
 * The corpus served as real sites: one http server on :80 and one https server on :443 of a
 * loopback address of its own (127.0.0.2 by default, so nothing else on 127.0.0.1 is in the way),
 * routed by Host. Every page, robots.txt, asset and header set of the corpus answers here; the
 * https certificate names every test host and comes from a throwaway CA (the test suite's own
 * createTestCa) that the app, the Observatory and Lighthouse's Chromium are told to trust.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestCa } from '../../../test/analysis/support/test-sites.ts';
import type { HostSpec, PageSpec } from './corpus-types.ts';
import { HEADER_SETS, hostOf, type HeaderSet } from './header-sets.ts';
import { doc } from './html.ts';
import { PERF_HOSTS, PERF_PAGES } from './pages-perf.ts';
import { SEO_HOSTS, SEO_PAGES } from './pages-seo.ts';

export const PAGES: readonly PageSpec[] = [...SEO_PAGES, ...PERF_PAGES];
const HOSTS: Record<string, HostSpec> = { ...SEO_HOSTS, ...PERF_HOSTS };

export interface CorpusSite {
  address: string;
  /** every host name the corpus uses (for EGRESS_RESOLVE and Chromium's resolver rules) */
  hosts: string[];
  /** the CA certificate's file, for NODE_EXTRA_CA_CERTS */
  caFile: string;
  close(): Promise<void>;
}

type Body = { status: number; headers: Record<string, string | string[]>; body: string | Buffer };

function setHeaders(res: ServerResponse, headers: Record<string, string | string[]>): void {
  // An empty value leaves the header out (a set that drops one header of a shared base).
  for (const [name, value] of Object.entries(headers)) if (value !== '') res.setHeader(name, value);
}

const SEC_PAGE = (set: HeaderSet): string =>
  doc({ title: `${set.id}: ${set.about}`, description: set.about, head: set.head ?? '', body: `<main><h1>${set.id}</h1><p>${set.about}</p></main>` });

function headerSetAnswer(set: HeaderSet, req: IncomingMessage, secure: boolean, host: string): Body | 'reset' {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (secure && set.https === false) return 'reset';
  if (!secure && set.http !== 'serve') {
    if (set.http === 'redirect-via-http' && !host.startsWith('www.')) return { status: 301, headers: { location: `http://www.${host}${path}` }, body: '' };
    return { status: 301, headers: { location: `https://${hostOf(set)}${path}` }, body: '' };
  }
  if (path === '/robots.txt') return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
  if (secure && set.cookieOnRedirect !== undefined && path === '/' && req.method === 'GET') return { status: 302, headers: { location: '/welcome', 'set-cookie': set.cookieOnRedirect }, body: '' };
  const headers: Record<string, string | string[]> = { 'content-type': 'text/html; charset=utf-8', ...(secure ? set.headers : { ...set.headers, 'strict-transport-security': '' }) };
  const origin = req.headers.origin;
  if (set.echoOrigin && typeof origin === 'string') Object.assign(headers, { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' });
  if (req.method === 'OPTIONS') return { status: 204, headers: { ...headers, 'access-control-allow-methods': 'GET, POST' }, body: '' };
  return { status: 200, headers, body: SEC_PAGE(set) };
}

async function listenOn(server: http.Server, port: number, address: string): Promise<void> {
  server.listen(port, address);
  const [outcome] = await Promise.race([once(server, 'listening').then(() => ['ok']), once(server, 'error')]);
  if (outcome !== 'ok') throw outcome as Error;
}

/**
 * :80 and :443 on `wanted`, or (when another run holds them: the corpus is shared with the
 * engineers tuning against it) on the next free address of 127.0.2.0/24.
 */
async function listenOnFreeAddress(plain: http.Server, secure: https.Server, wanted: string | undefined): Promise<string> {
  const candidates = wanted !== undefined ? [wanted] : ['127.0.0.2', ...Array.from({ length: 250 }, (_, i) => `127.0.2.${i + 2}`)];
  for (const address of candidates) {
    try {
      await listenOn(plain, 80, address);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && wanted === undefined) continue;
      throw error;
    }
    try {
      await listenOn(secure, 443, address);
      return address;
    } catch (error) {
      await new Promise((r) => plain.close(r));
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && wanted === undefined) continue;
      throw error;
    }
  }
  throw new Error('no free loopback address for the corpus on :80 and :443');
}

export async function startCorpusSite(address = process.env['BENCH_SITE_ADDRESS']): Promise<CorpusSite> {
  const assets = new Map<string, { type: string; headers: Record<string, string>; body: string | Buffer }>();
  for (const [host, spec] of Object.entries(HOSTS)) {
    for (const [path, a] of Object.entries(spec.assets ?? {})) {
      assets.set(`${host}${path}`, { type: a.type, headers: a.headers ?? {}, body: 'body' in a ? a.body : await a.generate() });
    }
  }
  const pages = new Map(PAGES.map((p) => [`${p.host}${p.path}`, p]));
  const sets = new Map<string, HeaderSet>();
  for (const set of HEADER_SETS) {
    sets.set(hostOf(set), set);
    sets.set(`www.${hostOf(set)}`, set);
  }

  const answer = (req: IncomingMessage, secure: boolean): Body | 'reset' | Promise<Body> => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const set = sets.get(host);
    if (set) return headerSetAnswer(set, req, secure, host);
    if (host === 'cdn.sec.test' || host === 'cdn.publiccdn.test') return { status: 200, headers: { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' }, body: 'window.cdnLoaded = true;' };
    const spec = HOSTS[host];
    if (spec === undefined) return { status: 421, headers: { 'content-type': 'text/plain' }, body: `no site for ${host}` };
    if (path === '/robots.txt') {
      if (spec.robots === null) return { status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>Not found</h1>' };
      return { status: spec.robotsStatus ?? 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: spec.robots };
    }
    const page = pages.get(`${host}${path}`);
    if (page) {
      const body: Body = { status: page.status ?? 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...page.headers }, body: page.html };
      if (page.delayMs === undefined) return body;
      return new Promise((resolve) => setTimeout(() => resolve(body), page.delayMs));
    }
    const a = assets.get(`${host}${path}`);
    if (a) return { status: 200, headers: { 'content-type': a.type, ...a.headers }, body: a.body };
    return { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: doc({ title: 'Not found', body: '<h1>Not found</h1>' }) };
  };

  const handler = (secure: boolean) => (req: IncomingMessage, res: ServerResponse) => {
    void Promise.resolve(answer(req, secure)).then((a) => {
      if (a === 'reset') {
        req.socket.destroy();
        return;
      }
      setHeaders(res, a.headers);
      res.statusCode = a.status;
      res.end(req.method === 'HEAD' ? undefined : a.body);
    });
  };

  const hosts = [...new Set([...Object.keys(HOSTS), ...sets.keys(), 'cdn.sec.test', 'cdn.publiccdn.test'])].sort();
  const ca = createTestCa();
  const dir = mkdtempSync(join(tmpdir(), 'url-agreement-ca-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.caPem);
  const credentials = ca.issue(hosts, 30);
  ca.dispose();

  const sockets = new Set<Socket>();
  const track = (server: http.Server) => server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const plain = http.createServer(handler(false));
  const secure = https.createServer(credentials, handler(true));
  track(plain);
  track(secure);
  const bound = await listenOnFreeAddress(plain, secure, address);
  return {
    address: bound,
    hosts,
    caFile,
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise((r) => plain.close(r)), new Promise((r) => secure.close(r))]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
