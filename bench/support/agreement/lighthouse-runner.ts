/**
 * Lighthouse 13 (the npm package, node API) on Debian's Chromium, headless and launched once, as
 * bench/lab-vs-lighthouse.ts does; here the browser maps every *.test name to the corpus's
 * address (--host-resolver-rules) and accepts the corpus's test certificate (the one https page,
 * mixed content, needs it). Nothing else leaves the machine: unmapped names fail to resolve.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse, { desktopConfig } from 'lighthouse';

export interface LighthouseBrowser {
  port: number;
  stop(): Promise<void>;
  /** for the bench's watchdog: kill the browser now, synchronously */
  killNow(): void;
}

export async function startLighthouseBrowser(chromium: string, address: string): Promise<LighthouseBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'bench-agreement-lh-'));
  const child = spawn(
    chromium,
    [
      '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', `--user-data-dir=${profile}`,
      `--host-resolver-rules=MAP *.test ${address}, EXCLUDE localhost, MAP * ~NOTFOUND`,
      '--ignore-certificate-errors', '--remote-debugging-port=0', 'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let seen = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`Chromium exited (${code}) before announcing its DevTools port: ${seen.slice(-500)}`)));
  });
  return {
    port,
    killNow: () => void child.kill('SIGKILL'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const SEO_AUDITS = ['document-title', 'meta-description', 'http-status-code', 'link-text', 'crawlable-anchors', 'is-crawlable', 'robots-txt', 'image-alt', 'hreflang', 'canonical'] as const;
export type SeoAudit = (typeof SEO_AUDITS)[number];

export interface LighthouseResult {
  seo: number | null;
  performance: number | null;
  /** each SEO audit's score (1 pass, 0 fail, null not applicable or informative) */
  audits: Record<string, number | null>;
  metrics: { fcpMs: number | null; lcpMs: number | null; tbtMs: number | null; cls: number | null; siMs: number | null };
  error: string | null;
}

export async function runLighthouse(url: string, port: number, categories: readonly ('seo' | 'performance')[]): Promise<LighthouseResult> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: [...categories] }, desktopConfig);
  const lhr = result?.lhr;
  if (!lhr) throw new Error('Lighthouse returned no result');
  const score = (id: string): number | null => {
    const s = lhr.categories[id]?.score;
    return s === null || s === undefined ? null : Math.round(s * 100);
  };
  const value = (id: string): number | null => lhr.audits[id]?.numericValue ?? null;
  const audits: Record<string, number | null> = {};
  for (const id of SEO_AUDITS) {
    const a = lhr.audits[id];
    audits[id] = a === undefined || a.scoreDisplayMode === 'notApplicable' || a.scoreDisplayMode === 'informative' ? null : a.score;
  }
  return {
    seo: score('seo'),
    performance: score('performance'),
    audits,
    metrics: { fcpMs: value('first-contentful-paint'), lcpMs: value('largest-contentful-paint'), tbtMs: value('total-blocking-time'), cls: value('cumulative-layout-shift'), siMs: value('speed-index') },
    error: lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : null,
  };
}
