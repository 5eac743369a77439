/**
 * The MDN HTTP Observatory (1.4.8, the npm package) scanning the corpus's header sets, in a
 * child process of its own: its own `scan(hostname)`, unchanged, as its CLI runs it. Two things
 * are arranged around it, and nothing in it is replaced:
 *   - DNS: `dns.lookup` answers the bench's address for every *.test name and refuses every other
 *     name, so its requests (the page on https and http, robots.txt, the CORS preflight) reach the
 *     corpus on :443 and :80 and nothing leaves loopback;
 *   - the HSTS preload list (conf/hsts-preload.json), which its postinstall script downloads and
 *     `--ignore-scripts` skips, reads as empty: no .test host is on the real list anyway.
 * The test CA is trusted through NODE_EXTRA_CA_CERTS, set by the parent when it forks this.
 * Protocol: the parent sends { hosts: string[] }, the child answers one message per host.
 */
import dns from 'node:dns';
import fs from 'node:fs';

const ADDRESS = process.env['BENCH_SITE_ADDRESS'] ?? '127.0.0.2';

export interface ObservatoryAnswer {
  kind: 'observatory';
  host: string;
  grade: string | null;
  score: number | null;
  error: string | null;
  /** each test's result name and score modifier */
  tests: Record<string, { result: string; scoreModifier: number }>;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
const originalLookup = dns.lookup;
(dns as unknown as { lookup: unknown }).lookup = (hostname: string, options: unknown, callback?: LookupCallback) => {
  const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
  const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
  if (!hostname.toLowerCase().endsWith('.test')) {
    const error: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (the bench resolves only *.test)`), { code: 'ENOTFOUND' });
    process.nextTick(() => cb(error, ''));
    return;
  }
  process.nextTick(() => (all ? cb(null, [{ address: ADDRESS, family: 4 }]) : cb(null, ADDRESS, 4)));
};
void originalLookup;

const readFileSync = fs.readFileSync;
(fs as unknown as { readFileSync: unknown }).readFileSync = (path: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
  if (typeof path === 'string' && path.endsWith('hsts-preload.json') && !fs.existsSync(path)) return '{}';
  return (readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
};

async function main(): Promise<void> {
  // Imported after the two patches above: its modules read the preload list lazily, but resolve names at request time either way.
  const { scan } = await import('@mdn/mdn-http-observatory');
  process.on('message', async (message: { hosts?: string[] }) => {
    for (const host of message.hosts ?? []) {
      let answer: ObservatoryAnswer;
      try {
        const r = await scan(host);
        const tests = Object.fromEntries(Object.entries(r.tests).map(([name, t]) => [name, { result: t.result, scoreModifier: t.scoreModifier }]));
        answer = { kind: 'observatory', host, grade: r.scan.grade, score: r.scan.score, error: null, tests };
      } catch (error) {
        answer = { kind: 'observatory', host, grade: null, score: null, error: error instanceof Error ? error.message : String(error), tests: {} };
      }
      process.send?.(answer);
    }
    process.send?.({ kind: 'observatory-done' });
  });
  process.send?.({ kind: 'ready' });
  process.once('disconnect', () => process.exit(0));
}

void main();
