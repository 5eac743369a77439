/**
 * URL analysis beside Lighthouse and the MDN HTTP Observatory (issue 19). Run: `npm run
 * bench:agreement` (node bench/url-agreement.ts).
 *
 * The corpus (bench/support/agreement/): 40 pages modelled on real sites on test host names
 * (shop.test, blog.test, ...; robots.txt differs per host) and 28 response-header sets
 * (*.sec.test), all served by one loopback site on 127.0.0.2:80 and :443 with a throwaway CA.
 * Measured, page by page:
 *   - ours: the seo-audit playbook's job SEO score (MCP solve_task, "Audit the SEO of <url>",
 *     the official MCP client), page-speed-analyzer's performance score in mode=proxy and
 *     mode=lab, security-headers-grader's grade (REST); the real app runs as a child
 *     (EGRESS_ALLOW/EGRESS_RESOLVE map the test names to the site, NODE_EXTRA_CA_CERTS trusts the CA);
 *   - Lighthouse 13.5 (node API, desktop preset, seo and performance in one run) on Debian's
 *     Chromium (headless, --no-sandbox, --host-resolver-rules to the site);
 *   - the MDN HTTP Observatory 1.4.8: its own scan() in a child whose DNS maps *.test to the site
 *     and which trusts the CA (bench/support/agreement/observatory-child.ts).
 * Printed: Pearson SEO and the pages Lighthouse scores below 70; Pearson lab and proxy vs
 * Lighthouse performance; lab run time vs a Lighthouse performance-only run on one page,
 * alternating; grade agreement per header set; per SEO audit the pages Lighthouse fails and we
 * are silent on; each target HOLDS or MISSED with the load average. Where a reference tool is
 * wrong, the page is named with the reason (support/agreement/reference-errors.ts) and left out of
 * that figure only. A measurement, not a test: exit 0 whatever the figures (1 only when the run
 * itself breaks), bounded by BENCH_LIMIT_MS, every child and browser closed at the end.
 *
 * Environment:
 *   BENCH_ONLY          seo | perf | security | time: one part alone (default all)
 *   BENCH_PAGES         comma-separated page ids: only these pages
 *   BENCH_TIME_RUNS     alternating lab / Lighthouse runs for the run-time figure (default 3)
 *   BENCH_PERF_RUNS     runs of Lighthouse performance and of our lab per performance page; the
 *                       median score of each is compared (default 3: Lighthouse's own advice on
 *                       its variability; one run of either swings by 30+ points on a loaded machine)
 *   BENCH_LIMIT_MS      the whole run's limit (default 5400000: 90 min; a whole run takes 20-60 min with the machine's load)
 *   BENCH_SITE_ADDRESS  the loopback address the corpus listens on (default 127.0.0.2, else a free 127.0.2.x)
 *   CHROMIUM_PATH       the browser for Lighthouse (default /usr/bin/chromium)
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { serveApp, startAppChild, APP_HOST } from './support/app-child.ts';
import { pageUrl, type PageSpec } from './support/agreement/corpus-types.ts';
import { HEADER_SETS, hostOf } from './support/agreement/header-sets.ts';
import { runLighthouse, SEO_AUDITS, startLighthouseBrowser, type LighthouseBrowser, type LighthouseResult } from './support/agreement/lighthouse-runner.ts';
import { observatoryGrades } from './support/agreement/observatory.ts';
import { Ours, type OurSeo } from './support/agreement/ours.ts';
import { LIGHTHOUSE_AUDIT_WRONG, LIGHTHOUSE_PERF_WRONG, LIGHTHOUSE_SEO_WRONG, OBSERVATORY_WRONG } from './support/agreement/reference-errors.ts';
import { PAGES, startCorpusSite } from './support/agreement/site.ts';
import { envInt } from './support/env.ts';
import { stopServer } from './support/server-child.ts';
import { loadAverage, median, table, verdict } from './support/stats.ts';

const ONLY = process.env['BENCH_ONLY'] ?? '';
const PART = (name: string): boolean => ONLY === '' || ONLY.split(',').includes(name);
const PAGE_FILTER = (process.env['BENCH_PAGES'] ?? '').split(',').filter(Boolean);
const TIME_RUNS = envInt('BENCH_TIME_RUNS', 3);
const PERF_RUNS = Math.max(1, envInt('BENCH_PERF_RUNS', 3));
const LIMIT_MS = envInt('BENCH_LIMIT_MS', 5_400_000);
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const TIME_PAGE = 'perf-late-banner';

/**
 * Which of our rules stand for each Lighthouse SEO audit, for rules that do not yet carry
 * `audit` on their checks: a failing check or finding of any of them means we are not silent.
 */
const AUDIT_RULES: Record<string, (rule: string) => boolean> = {
  'document-title': (r) => r === 'meta-title-missing',
  'meta-description': (r) => r === 'meta-description-missing',
  'http-status-code': (r) => r === 'http-status-code',
  'link-text': (r) => r.startsWith('link-text'),
  'crawlable-anchors': (r) => r.startsWith('crawlable-anchors') || r.startsWith('link-uncrawlable'),
  'is-crawlable': (r) => r.startsWith('meta-robots-') || r === 'robots-page-disallowed' || r === 'robots-site-disallowed' || r.startsWith('is-crawlable'),
  'robots-txt': (r) => r === 'robots-syntax-error' || r === 'robots-server-error' || r === 'robots-not-text' || r.startsWith('robots-txt'),
  'image-alt': (r) => r === 'image-alt-missing',
  hreflang: (r) => r.startsWith('hreflang-') || r.startsWith('meta-hreflang-'),
  canonical: (r) => (r.startsWith('canonical-') || r.startsWith('meta-canonical-')) && !r.endsWith('-missing'),
};

function pearson(pairs: readonly (readonly [number, number])[]): number {
  const n = pairs.length;
  if (n < 3) return Number.NaN;
  const mx = pairs.reduce((s, [x]) => s + x, 0) / n;
  const my = pairs.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const [x, y] of pairs) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? Number.NaN : sxy / Math.sqrt(sxx * syy);
}

const f = (v: number | null | undefined, digits = 0): string => (v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits));
const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface PageRow {
  page: PageSpec;
  lh: LighthouseResult | null;
  seo: OurSeo | null;
  proxy: number | null;
  lab: number | null;
  labMetrics: Record<string, unknown> | null;
  /** every performance score measured, when a page was run more than once */
  runs?: { lighthouse: number[]; lab: number[] };
  errors: string[];
}

/** What the watchdog kills before it gives up (the browser and the app child), so nothing outlives the run. */
const killOnTimeout: (() => void)[] = [];

const targets: { name: string; holds: boolean; figure: string }[] = [];

function reportSeo(rows: PageRow[]): void {
  const seoRows = rows.filter((r) => r.page.kind !== 'perf');
  console.log('\n== SEO: the seo-audit playbook (solve_task) vs Lighthouse SEO ==\n');
  console.log(table([['page', 'ours', 'lighthouse', 'what it is'], ...seoRows.map((r) => [r.page.id, r.seo?.refused ?? f(r.seo?.score), r.lh?.error ? r.lh.error.split(':')[0]! : f(r.lh?.seo), r.page.about.slice(0, 90)])]));
  const excluded = seoRows.filter((r) => LIGHTHOUSE_SEO_WRONG[r.page.id] !== undefined);
  const pairs = seoRows.filter((r) => LIGHTHOUSE_SEO_WRONG[r.page.id] === undefined && r.seo?.score != null && r.lh?.seo != null).map((r) => [r.seo!.score!, r.lh!.seo!] as const);
  const r = pearson(pairs);
  console.log(`\nLeft out of the SEO figures (Lighthouse is wrong there):`);
  for (const row of excluded) console.log(`  ${row.page.id} (ours ${row.seo?.refused ?? f(row.seo?.score)}, Lighthouse ${f(row.lh?.seo)}): ${LIGHTHOUSE_SEO_WRONG[row.page.id]}`);
  console.log(`\nPearson SEO, ours vs Lighthouse, ${pairs.length} pages: ${f(r, 3)}`);
  targets.push({ name: 'SEO Pearson >= 0.8', holds: r >= 0.8, figure: f(r, 3) });
  const low = seoRows.filter((row) => LIGHTHOUSE_SEO_WRONG[row.page.id] === undefined && row.lh?.seo != null && row.lh.seo < 70);
  console.log(`\nPages Lighthouse scores below 70 (ours beside):`);
  // A job that refuses the page (page_error) is a failing verdict, as below 70 as it gets.
  const below = (row: PageRow): boolean => row.seo?.refused != null || (row.seo?.score != null && row.seo.score < 70);
  for (const row of low) console.log(`  ${row.page.id}: Lighthouse ${row.lh?.seo}, ours ${row.seo?.refused ?? f(row.seo?.score)}${below(row) ? '' : '   <- not below 70 with us'}`);
  targets.push({ name: 'every page Lighthouse scores < 70 is < 70 with us', holds: low.every(below), figure: `${low.filter(below).length}/${low.length}` });

  console.log('\n== Per audit: pages where Lighthouse fails it and we are silent ==\n');
  let silentTotal = 0;
  const auditRows: string[][] = [['audit', 'LH fails', 'we fail too', 'silent on']];
  for (const audit of SEO_AUDITS) {
    const wrong = LIGHTHOUSE_AUDIT_WRONG[audit] ?? {};
    const failed = seoRows.filter((row) => row.lh?.audits[audit] === 0 && wrong[row.page.id] === undefined);
    const silent = failed.filter((row) => row.seo !== null && !row.seo.failingAudits.has(audit) && ![...row.seo.failing].some(AUDIT_RULES[audit] ?? (() => false)));
    silentTotal += silent.length;
    auditRows.push([audit, String(failed.length), String(failed.length - silent.length), silent.map((row) => row.page.id).join(', ') || '-']);
    for (const [page, why] of Object.entries(wrong)) console.log(`  left out of ${audit}: ${page}: ${why}`);
  }
  console.log(table(auditRows));
  // And the other way: where we fail a rule of an audit that Lighthouse passes (a disagreement to read, not a target).
  const extra: string[] = [];
  for (const row of seoRows) {
    for (const audit of SEO_AUDITS) {
      if (row.lh?.audits[audit] !== 1 || row.seo === null) continue;
      const ours = [...row.seo.failing].filter(AUDIT_RULES[audit] ?? (() => false));
      if (ours.length > 0) extra.push(`  ${row.page.id}: Lighthouse passes ${audit}; we fail ${ours.join(', ')}`);
    }
  }
  if (extra.length > 0) console.log(`\nWhere we fail what Lighthouse passes:\n${extra.join('\n')}`);
  targets.push({ name: 'no page where Lighthouse fails an SEO audit and we are silent', holds: silentTotal === 0, figure: `${silentTotal} silent` });
}

function reportPerf(rows: PageRow[]): void {
  const perfRows = rows.filter((r) => r.page.kind !== 'seo');
  console.log(`\n== Performance: page-speed-analyzer (lab, proxy) vs Lighthouse performance (desktop); lab and LH are the median of ${PERF_RUNS} runs, the metrics columns the first run's ==\n`);
  console.log(
    table([
      ['page', 'lab', 'proxy', 'LH', 'LH runs', 'lab runs', 'LH FCP', 'LH LCP', 'LH TBT', 'LH CLS', 'lab LCP', 'lab TBT', 'lab CLS'],
      ...perfRows.map((r) => {
        const m = r.lh?.metrics;
        const lab = r.labMetrics ?? {};
        const num = (k: string): number | null => (typeof lab[k] === 'number' ? (lab[k] as number) : null);
        return [r.page.id, f(r.lab), f(r.proxy), f(r.lh?.performance), r.runs?.lighthouse.join('/') ?? '-', r.runs?.lab.join('/') ?? '-', f(m?.fcpMs), f(m?.lcpMs), f(m?.tbtMs), f(m?.cls, 3), f(num('lcpMs')), f(num('tbtMs')), f(num('cls'), 3)];
      }),
    ]),
  );
  for (const row of perfRows) if (LIGHTHOUSE_PERF_WRONG[row.page.id]) console.log(`  left out: ${row.page.id}: ${LIGHTHOUSE_PERF_WRONG[row.page.id]}`);
  const counted = perfRows.filter((r) => LIGHTHOUSE_PERF_WRONG[r.page.id] === undefined && r.lh?.performance != null);
  const lab = pearson(counted.filter((r) => r.lab !== null).map((r) => [r.lab!, r.lh!.performance!] as const));
  const proxy = pearson(counted.filter((r) => r.proxy !== null).map((r) => [r.proxy!, r.lh!.performance!] as const));
  console.log(`\nPearson lab vs Lighthouse performance (${counted.length} pages): ${f(lab, 3)}`);
  console.log(`Pearson proxy vs Lighthouse performance (${counted.length} pages): ${f(proxy, 3)}`);
  targets.push({ name: 'lab Pearson >= 0.8', holds: lab >= 0.8, figure: f(lab, 3) });
  targets.push({ name: 'proxy Pearson >= 0.6', holds: proxy >= 0.6, figure: f(proxy, 3) });
}

async function measureTime(ours: Ours, browser: LighthouseBrowser): Promise<void> {
  const page = PAGES.find((p) => p.id === TIME_PAGE)!;
  const url = pageUrl(page);
  // A warm-up of each first: neither side pays its browser's start inside the timed runs.
  await ours.performance(url, 'lab');
  await runLighthouse(url, browser.port, ['performance']);
  const labMs: number[] = [];
  const lhMs: number[] = [];
  for (let i = 0; i < TIME_RUNS; i++) {
    labMs.push((await ours.performance(url, 'lab')).ms);
    const start = performance.now();
    await runLighthouse(url, browser.port, ['performance']);
    lhMs.push(performance.now() - start);
    log(`time run ${i + 1}/${TIME_RUNS}: lab ${Math.round(labMs[i]!)} ms, lighthouse ${Math.round(lhMs[i]!)} ms`);
  }
  const ratio = median(labMs) / median(lhMs);
  console.log(`\n== Run time on ${page.id} (${TIME_RUNS} alternating runs each, median) ==\n`);
  console.log(table([['', 'median ms', 'min ms', 'max ms'], ['page-speed-analyzer mode=lab (REST, whole call)', f(median(labMs)), f(Math.min(...labMs)), f(Math.max(...labMs))], ['Lighthouse performance only', f(median(lhMs)), f(Math.min(...lhMs)), f(Math.max(...lhMs))]]));
  console.log(`lab / Lighthouse: ${ratio.toFixed(3)}x`);
  targets.push({ name: 'lab run time <= 0.2x Lighthouse', holds: ratio <= 0.2, figure: `${ratio.toFixed(3)}x` });
}

async function security(ours: Ours, site: { address: string; caFile: string }): Promise<void> {
  const sets = HEADER_SETS;
  const theirs = await observatoryGrades(sets.map(hostOf), site, 300_000);
  const rows: string[][] = [['header set', 'ours', 'observatory', 'agree', 'what it is']];
  const differ: string[] = [];
  const scoreOnly: string[] = [];
  let agree = 0;
  let counted = 0;
  for (const set of sets) {
    const url = `${set.https === false ? 'http' : 'https'}://${hostOf(set)}/`;
    const mine = await ours.grade(url);
    const o = theirs.get(hostOf(set));
    const same = mine.grade !== null && mine.grade === o?.grade;
    if (same && mine.score !== o?.score) scoreOnly.push(`  ${set.id}: same grade ${mine.grade}, score ours ${mine.score}, observatory ${o?.score}`);
    const wrong = OBSERVATORY_WRONG[set.id];
    if (wrong === undefined) {
      counted++;
      if (same) agree++;
    }
    rows.push([set.id, `${mine.grade ?? mine.error ?? '-'} ${f(mine.score)}`, `${o?.grade ?? o?.error ?? '-'} ${f(o?.score)}`, wrong ? 'left out' : same ? 'yes' : 'NO', set.about.slice(0, 70)]);
    if (!same) {
      const theirTests = Object.entries(o?.tests ?? {}).filter(([, t]) => t.scoreModifier !== 0).map(([n, t]) => `${n}=${t.result} (${t.scoreModifier})`).join('; ');
      const myTests = Object.entries(mine.tests).filter(([, t]) => /\(-?\d+\)$/.test(t)).map(([n, t]) => `${n}=${t}`).join('; ');
      differ.push(`  ${set.id}:\n    observatory ${o?.grade} ${o?.score}: ${theirTests}\n    ours        ${mine.grade} ${mine.score}: ${myTests}${wrong ? `\n    left out: ${wrong}` : ''}`);
    }
  }
  console.log('\n== Security headers: security-headers-grader vs the MDN HTTP Observatory 1.4.8 (its scan(), live) ==\n');
  console.log(table(rows));
  if (differ.length > 0) console.log(`\nWhere the grades differ:\n${differ.join('\n')}`);
  if (scoreOnly.length > 0) console.log(`\nSame grade, different score:\n${scoreOnly.join('\n')}`);
  console.log(`\nGrades agree on ${agree} of ${counted} header sets (${sets.length - counted} left out where the Observatory is wrong)`);
  targets.push({ name: 'grade = the Observatory\'s where it is right', holds: agree === counted, figure: `${agree}/${counted}` });
}

async function main(): Promise<void> {
  const started = performance.now();
  const site = await startCorpusSite();
  // The app child inherits these: the fetcher reaches the corpus's address (only), resolves the
  // test names to it and trusts the corpus's CA.
  process.env['EGRESS_ALLOW'] = `${site.address}/32`;
  process.env['EGRESS_RESOLVE'] = site.hosts.map((h) => `${h}:${site.address}`).join(',');
  process.env['NODE_EXTRA_CA_CERTS'] = site.caFile;
  let app: Awaited<ReturnType<typeof startAppChild>> | null = null;
  let browser: LighthouseBrowser | null = null;
  let ours: Ours | null = null;
  try {
    app = await startAppChild(fileURLToPath(import.meta.url));
    const appChild = app.child;
    killOnTimeout.push(() => appChild.kill('SIGKILL'));
    ours = new Ours(`http://${APP_HOST}:${app.ready.port}`, app.ready.apiKey);
    await ours.connect();
    const pages = PAGES.filter((p) => PAGE_FILTER.length === 0 || PAGE_FILTER.includes(p.id));
    const rows: PageRow[] = [];
    if (PART('seo') || PART('perf') || PART('time')) {
      browser = await startLighthouseBrowser(CHROMIUM, site.address);
      killOnTimeout.push(browser.killNow);
    }
    if (PART('seo') || PART('perf')) {
      // A warm-up of each browser first (the first Lighthouse run on a fresh browser and the lab's
      // first, which starts its Chromium, are slow), so the first page is measured as the others.
      const warm = pageUrl(PAGES.find((p) => p.id === 'perf-fast')!);
      await runLighthouse(warm, browser!.port, ['performance']).catch(() => undefined);
      if (PART('perf')) await ours.performance(warm, 'lab');
      for (const [i, page] of pages.entries()) {
        const wantSeo = PART('seo') && page.kind !== 'perf';
        const wantPerf = PART('perf') && page.kind !== 'seo';
        if (!wantSeo && !wantPerf) continue;
        const url = pageUrl(page);
        const row: PageRow = { page, lh: null, seo: null, proxy: null, lab: null, labMetrics: null, errors: [] };
        const categories = [...(wantSeo ? (['seo'] as const) : []), ...(wantPerf ? (['performance'] as const) : [])];
        const took: string[] = [];
        const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
          const t0 = performance.now();
          try {
            return await work();
          } finally {
            took.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
          }
        };
        try {
          row.lh = await timed('lighthouse', () => runLighthouse(url, browser!.port, categories));
          if (row.lh.error) row.errors.push(`lighthouse: ${row.lh.error}`);
        } catch (error) {
          row.errors.push(`lighthouse: ${(error as Error).message}`);
        }
        if (wantSeo) {
          row.seo = await timed('solve_task', () => ours!.seo(url));
          if (row.seo.error) row.errors.push(`solve_task: ${row.seo.error}`);
        }
        if (wantPerf) {
          const proxy = await timed('proxy', () => ours!.performance(url, 'proxy'));
          const lab = await timed('lab', () => ours!.performance(url, 'lab'));
          row.proxy = proxy.score;
          row.lab = lab.score;
          row.labMetrics = lab.lab;
          for (const e of [proxy.error, lab.error]) if (e) row.errors.push(e);
          // More runs of both sides, alternating: each figure is the median of its runs.
          const lhScores = row.lh?.performance != null ? [row.lh.performance] : [];
          const labScores = lab.score !== null ? [lab.score] : [];
          for (let run = 1; run < PERF_RUNS; run++) {
            const again = await timed('lighthouse', () => runLighthouse(url, browser!.port, ['performance']).catch(() => null));
            if (again?.performance != null) lhScores.push(again.performance);
            const labAgain = await timed('lab', () => ours!.performance(url, 'lab'));
            if (labAgain.score !== null) labScores.push(labAgain.score);
          }
          if (row.lh !== null && lhScores.length > 0) row.lh = { ...row.lh, performance: median(lhScores) };
          if (labScores.length > 0) row.lab = median(labScores);
          row.runs = { lighthouse: lhScores, lab: labScores };
        }
        rows.push(row);
        log(`${i + 1}/${pages.length} ${page.id}: seo ours ${f(row.seo?.score)} LH ${f(row.lh?.seo)}; perf lab ${f(row.lab)} proxy ${f(row.proxy)} LH ${f(row.lh?.performance)} (${took.join(', ')})${row.errors.length ? `; ${row.errors.join(' | ')}` : ''}`);
      }
    }
    console.log(`URL analysis vs Lighthouse ${'13.5'} and the MDN HTTP Observatory 1.4.8: ${pages.length} pages, ${HEADER_SETS.length} header sets (load ${loadAverage()})`);
    if (PART('seo')) reportSeo(rows);
    if (PART('perf')) reportPerf(rows);
    const errors = rows.flatMap((r) => r.errors.map((e) => `  ${r.page.id}: ${e}`));
    if (errors.length > 0) console.log(`\nErrors (these pages lack a figure):\n${errors.join('\n')}`);
    if (PART('time')) await measureTime(ours, browser!);
    if (PART('security')) await security(ours, site);
    console.log(`\n== Targets (load ${loadAverage()}, ${((performance.now() - started) / 1000).toFixed(0)} s) ==\n`);
    console.log(table([['target', 'figure', ''], ...targets.map((t) => [t.name, t.figure, verdict(t.holds)])]));
  } finally {
    await ours?.close().catch(() => undefined);
    await browser?.stop();
    if (app) await stopServer(app.child);
    await site.close();
  }
}

if (process.argv.includes('--serve')) {
  void serveApp('url-agreement server', 'tool-service-bench-agreement-');
} else {
  const watchdog = setTimeout(() => {
    process.stderr.write(`url-agreement: over the ${LIMIT_MS} ms limit; giving up\n`);
    for (const kill of killOnTimeout) kill();
    process.exit(1);
  }, LIMIT_MS);
  watchdog.unref();
  // Interrupted (Ctrl-C, a kill): the browser and the app child go too, not left behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const kill of killOnTimeout) kill();
      process.exit(1);
    });
  }
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`url-agreement failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
