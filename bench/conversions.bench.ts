/**
 * File conversions on warm engines (issue 3, section 7). Run: `node bench/conversions.bench.ts`.
 *
 * In one run, against the real service in a child process (bench/conversions-server.ts: buildApp,
 * temporary DATA_DIR, LOG_LEVEL=warn, ENGINES_WARM_ON_START=true, production defaults otherwise,
 * measured only once GET /readyz shows libreoffice and chromium 'ready'), it measures:
 *   1. docx-to-pdf of a 1-page and of a 20-page document through the service (multipart upload
 *      until the JSON answer) against a cold `soffice --headless --convert-to pdf` of the same
 *      files with a fresh profile each run; median and p90 of N runs each, interleaved. Each
 *      service result is downloaded once and checked with pdftotext (the text is there) and
 *      pdfinfo (1 and 20 pages). Target: warm 1-page median <= 0.35x the cold CLI.
 *   2. html-to-pdf through the service against a cold `chromium --headless --no-sandbox
 *      --disable-gpu --no-first-run --disable-background-networking --no-pdf-header-footer
 *      --print-to-pdf` with a fresh --user-data-dir each run, BENCH_HTML_RUNS pairs (see below);
 *      the ratio is refused when the cold runs' round medians spread too far. Target: <= 0.08x.
 *   3. throughput of 1-page docx-to-pdf (support/conversion-throughput.ts): 1 client, 4 clients
 *      of 4 accounts (the pool's scaling, target >= 1.9x) and, for reference, 4 clients of one
 *      account, which the fair queue holds to its share of the pool.
 *   4. the server's RSS (VmRSS of the server process, sampled every 50 ms) before and while a
 *      ~100 MB text file is uploaded to POST /api/v1/documents/txt-to-md, streamed from disk.
 *      Target: growth < 50 MB while the upload streams through. The peak over the whole request,
 *      the conversion included, is printed too.
 * It prints a table per section, the ratios and, for each target, HOLDS or MISSED, with the load
 * average before each section (other work on the machine skews the figures). It is a measurement,
 * not a test: it exits 0 whether or not the targets hold, non-zero only when it could not measure.
 *
 * Environment:
 *   BENCH_RUNS      runs per latency measurement of section 1 (default 7)
 *   BENCH_HTML_RUNS runs of section 2 (default: BENCH_RUNS, at least 12: 4 rounds of 3 cold starts)
 *   BENCH_ACCOUNTS  accounts the server creates for section 3 (default 4)
 *   BENCH_SECONDS   seconds per throughput level (default 20)
 *   BENCH_SECTIONS  which sections to run, e.g. "4" or "1,3" (default all: 1,2,3,4)
 *   BENCH_UPLOAD_MB size of the streamed upload in MiB (default: the server's upload limit, 100,
 *                   minus 64 KiB so it stays under the limit)
 *   LIBREOFFICE_INSTANCES, ENGINE_QUEUE_LIMIT, … are passed to the server (defaults: the service's)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { coldChromium, coldSoffice, programVersion, type ColdRun } from './support/cold-cli.ts';
import { HTML_MARKER, ONE_PAGE_MARKER, TWENTY_PAGE_PARAGRAPHS, onePageDocx, samplePageHtml, twentyPageDocx } from './support/documents.ts';
import { pdfPages, pdfText } from './support/pdf.ts';
import { convert, download, expectOk, isPdfAnswer, type Ctx, type UploadFile } from './support/conversion-calls.ts';
import { throughputSection, type Target } from './support/conversion-throughput.ts';
import { startConversionsServer, stopServer, waitForEngines } from './support/server-child.ts';
import { checkedRatio, MAX_SPREAD, reportFigure, roundMedians } from './support/report.ts';
import { fmtMb, fmtMs, fmtRatio, loadAverage, median, percentile, table, verdict } from './support/stats.ts';
import { rssDuringUpload, TXT_TO_MD } from './support/conversion-rss.ts';
import { envNumber } from './support/env.ts';
import { runBench } from './support/run-bench.ts';


const RUNS = Math.round(envNumber('BENCH_RUNS', 7));
/**
 * Section 2's ratio is refused when the cold starts spread too far; one cold Chromium start varies
 * by itself more than a machine's drift, so the baseline's rounds are the medians of consecutive
 * groups of HTML_ROUND_SIZE cold runs (report.ts's roundMedians), not single runs. bench:all's
 * quick mode asks for 3 runs, too few for that: at least 4 rounds of 3 (~60 s on a quiet machine).
 */
const HTML_ROUND_SIZE = 3;
const HTML_RUNS = Math.round(envNumber('BENCH_HTML_RUNS', Math.max(RUNS, 4 * HTML_ROUND_SIZE)));
const SECONDS = envNumber('BENCH_SECONDS', 20);
/** The sections asked for (BENCH_SECTIONS); a section not asked for is skipped whole, with its targets. */
const SECTIONS = new Set((process.env['BENCH_SECTIONS'] ?? '1,2,3,4').split(',').map((s) => Number(s.trim())));
const UPLOAD_MB = process.env['BENCH_UPLOAD_MB'] ? envNumber('BENCH_UPLOAD_MB', 100) : undefined;

const DOCX_TO_PDF = '/api/v1/documents/docx-to-pdf';
const HTML_TO_PDF = '/api/v1/documents/html-to-pdf';
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const TARGET_DOCX_RATIO = 0.35;
/** Issue 24's target: html-to-pdf 0.08x the cold CLI (section 3's target is in support/conversion-throughput.ts). */
const TARGET_HTML_RATIO = 0.08;
const TARGET_RSS_MB = 50;

const out = (line = '') => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`bench: ${line}\n`);

const targets: Target[] = [];
const problems: string[] = [];

interface PdfCheck {
  pages: number;
  textOk: boolean;
}

async function checkPdf(path: string, expectPages: number | undefined, texts: readonly string[]): Promise<PdfCheck> {
  const pages = await pdfPages(path);
  const text = await pdfText(path);
  const missing = texts.filter((t) => !text.includes(t));
  if (missing.length > 0) problems.push(`${path}: pdftotext does not hold ${missing.map((m) => `"${m}"`).join(', ')}`);
  if (expectPages !== undefined && pages !== expectPages) problems.push(`${path}: ${pages} pages, expected ${expectPages}`);
  return { pages, textOk: missing.length === 0 };
}

async function coldOnce(run: () => Promise<ColdRun>, check: ((pdf: string) => Promise<PdfCheck>) | undefined): Promise<{ ms: number; check?: PdfCheck }> {
  const r = await run();
  try {
    return check ? { ms: r.ms, check: await check(r.pdf) } : { ms: r.ms };
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Sections 1 and 2: latency, warm service against cold CLI

interface LatencyCase {
  name: string;
  path: string;
  file: UploadFile;
  diskPath: string;
  pages: number | undefined;
  texts: string[];
  cold: (input: string) => Promise<ColdRun>;
}

interface LatencyResult {
  c: LatencyCase;
  service: number[];
  cli: number[];
  serviceFailures: string[];
  servicePages: number;
  serviceTextOk: boolean;
  cliPages: number;
  cliTextOk: boolean;
}

async function latency(ctx: Ctx, cases: readonly LatencyCase[], warmups: number, runs = RUNS): Promise<LatencyResult[]> {
  const results: LatencyResult[] = [];
  for (const c of cases) {
    // Warm-up, not counted: one job per warm worker at once, so every instance has served once.
    const warm = await Promise.all(Array.from({ length: warmups }, () => convert(ctx, c.path, c.file)));
    for (const w of warm) expectOk(`warm-up ${c.name}`, w);
    // The result is downloaded once and checked by independent means.
    const pdf = await download(ctx, warm[0]!, `service-${c.file.name}.pdf`);
    const check = await checkPdf(pdf, c.pages, c.texts);
    results.push({ c, service: [], cli: [], serviceFailures: [], servicePages: check.pages, serviceTextOk: check.textOk, cliPages: 0, cliTextOk: false });
  }
  // Interleaved (service, CLI, next case, …) so a change of load on the machine hits both alike.
  for (let i = 0; i < runs; i++) {
    for (const r of results) {
      const call = await convert(ctx, r.c.path, r.c.file);
      if (isPdfAnswer(call)) r.service.push(call.ms);
      else r.serviceFailures.push(`${call.status} ${call.text.slice(0, 200)}`);
      const cold = await coldOnce(() => r.c.cold(r.c.diskPath), i === 0 ? (p) => checkPdf(p, r.c.pages, r.c.texts) : undefined);
      r.cli.push(cold.ms);
      if (cold.check) {
        r.cliPages = cold.check.pages;
        r.cliTextOk = cold.check.textOk;
      }
      note(`  ${r.c.name} run ${i + 1}/${runs}: service ${fmtMs(r.service.at(-1) ?? Number.NaN)} ms, cold CLI ${fmtMs(cold.ms)} ms`);
    }
  }
  for (const r of results) {
    if (r.service.length === 0) throw new Error(`${r.c.name}: every measured service call failed: ${r.serviceFailures[0]}`);
    if (r.serviceFailures.length > 0) problems.push(`${r.c.name}: ${r.serviceFailures.length} failed service call(s), e.g. ${r.serviceFailures[0]}`);
  }
  return results;
}

function latencyTable(results: readonly LatencyResult[], cliName: string): string {
  const rows = [
    ['document', 'service median ms', 'service p90 ms', 'service min ms', `${cliName} median ms`, `${cliName} p90 ms`, 'ratio median', 'ratio p90', 'pages (service/CLI)', 'text ok', 'fails'],
    ...results.map((r) => [
      r.c.name,
      fmtMs(median(r.service)),
      fmtMs(percentile(r.service, 90)),
      fmtMs(Math.min(...r.service)),
      fmtMs(median(r.cli)),
      fmtMs(percentile(r.cli, 90)),
      fmtRatio(median(r.service) / median(r.cli)),
      fmtRatio(percentile(r.service, 90) / percentile(r.cli, 90)),
      `${r.servicePages}/${r.cliPages}`,
      r.serviceTextOk && r.cliTextOk ? 'yes' : 'NO',
      String(r.serviceFailures.length),
    ]),
  ];
  return table(rows);
}

// ---------------------------------------------------------------------------------------------

function section(title: string): void {
  out();
  out(`== ${title}`);
  out(`Load average before this section: ${loadAverage()}`);
  out();
}

async function main(): Promise<void> {
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), 'bench-conversions-'));
  let child: ChildProcess | undefined;
  const cleanup = async () => {
    if (child) await stopServer(child);
    rmSync(work, { recursive: true, force: true });
  };
  const interrupt = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const [soffice, chromium] = await Promise.all([programVersion('soffice', ['--version']), programVersion('chromium', ['--version'])]);
    const onePage = onePageDocx();
    const twentyPages = twentyPageDocx();
    const html = samplePageHtml();
    const onePagePath = join(work, 'one-page.docx');
    const twentyPagePath = join(work, 'twenty-pages.docx');
    const htmlPath = join(work, 'page.html');
    writeFileSync(onePagePath, onePage);
    writeFileSync(twentyPagePath, twentyPages);
    writeFileSync(htmlPath, html);

    out(`File conversions on warm engines — ${RUNS} runs per docx-to-pdf latency figure, ${HTML_RUNS} for html-to-pdf, ${SECONDS} s per throughput level`);
    out(`Node ${process.version}, ${cpus().length} CPU(s): ${cpus()[0]?.model ?? 'unknown'}`);
    out(`${soffice}; ${chromium}`);
    out(`Load average at start: ${loadAverage()} (other work on the machine skews the figures)`);

    note('starting the server (child process)…');
    const t0 = performance.now();
    const started_ = await startConversionsServer();
    child = started_.child;
    const ready = started_.ready;
    const ctx: Ctx = { base: `http://127.0.0.1:${ready.port}`, apiKey: ready.apiKey, work };
    const engines = await waitForEngines(ctx.base, ['libreoffice', 'chromium'], { libreoffice: ready.libreofficeInstances, chromium: 1 });
    const readyMs = performance.now() - t0;
    out(`Server pid ${ready.pid}: LIBREOFFICE_INSTANCES=${ready.libreofficeInstances}, ENGINE_QUEUE_LIMIT=${ready.engineQueueLimit}, ` +
      `upload limit ${fmtMb(ready.uploadLimitBytes)} MiB; engines ready ${(readyMs / 1000).toFixed(1)} s after the start:`);
    for (const e of engines) {
      out(`  ${e.name}: ${e.state}, ${e.version ?? 'no version'}${e.workers !== undefined ? `, ${e.workers} worker(s), concurrency ${e.concurrency}` : ''}`);
    }

    const docxCases: LatencyCase[] = [
      {
        name: '1 page',
        path: DOCX_TO_PDF,
        file: { name: 'one-page.docx', content: onePage, type: DOCX_TYPE },
        diskPath: onePagePath,
        pages: 1,
        texts: [ONE_PAGE_MARKER],
        cold: (input) => coldSoffice(input),
      },
      {
        name: '20 pages',
        path: DOCX_TO_PDF,
        file: { name: 'twenty-pages.docx', content: twentyPages, type: DOCX_TYPE },
        diskPath: twentyPagePath,
        pages: 20,
        texts: ['Paragraph 1. Quarterly revenue', `Paragraph ${TWENTY_PAGE_PARAGRAPHS}. Quarterly revenue`],
        cold: (input) => coldSoffice(input),
      },
    ];

    // 1. docx-to-pdf
    if (SECTIONS.has(1)) {
    section(`1. docx-to-pdf: warm service (upload -> JSON answer) vs cold \`soffice --headless --convert-to pdf\` (fresh profile each run)`);
    const docx = await latency(ctx, docxCases, ready.libreofficeInstances);
    out(latencyTable(docx, 'soffice'));
    out(`(${ready.libreofficeInstances} warm-up conversions per document first, not counted; each service result downloaded once and checked with pdfinfo and pdftotext)`);
    const docxRatio = median(docx[0]!.service) / median(docx[0]!.cli);
    const docx20Ratio = median(docx[1]!.service) / median(docx[1]!.cli);
    out();
    out(`Ratio 1-page  service/cold CLI (medians): ${fmtRatio(docxRatio)}  (cold CLI is ${(1 / docxRatio).toFixed(1)}x slower)`);
    out(`Ratio 20-page service/cold CLI (medians): ${fmtRatio(docx20Ratio)}  (cold CLI is ${(1 / docx20Ratio).toFixed(1)}x slower)`);
    targets.push({ label: `warm 1-page docx-to-pdf median <= ${TARGET_DOCX_RATIO}x the cold CLI`, holds: docxRatio <= TARGET_DOCX_RATIO, figure: fmtRatio(docxRatio), target: `<= ${TARGET_DOCX_RATIO}x` });

    }

    // 2. html-to-pdf
    if (SECTIONS.has(2)) {
    section('2. html-to-pdf: warm service vs cold `chromium --headless --print-to-pdf` (fresh --user-data-dir each run)');
    const htmlResults = await latency(
      ctx,
      [
        {
          name: 'HTML page',
          path: HTML_TO_PDF,
          file: { name: 'page.html', content: html, type: 'text/html' },
          diskPath: htmlPath,
          pages: undefined,
          texts: [HTML_MARKER, 'Item 12'],
          cold: (input) => coldChromium(input),
        },
      ],
      1,
      HTML_RUNS,
    );
    out(latencyTable(htmlResults, 'chromium'));
    out(`(${HTML_RUNS} runs each, interleaved; 1 warm-up conversion first, not counted; the service result downloaded once and checked with pdftotext)`);
    const htmlRatio = median(htmlResults[0]!.service) / median(htmlResults[0]!.cli);
    // The baseline's rounds: medians of consecutive groups of cold runs; spread too far, no verdict.
    const coldRounds = roundMedians(htmlResults[0]!.cli, Math.max(1, Math.round(HTML_RUNS / HTML_ROUND_SIZE)));
    const htmlCheck = checkedRatio(median(htmlResults[0]!.service), median(htmlResults[0]!.cli), coldRounds);
    out(`Cold CLI round medians (${HTML_ROUND_SIZE} runs each): ${coldRounds.map((m) => fmtMs(m)).join(', ')} ms, spread ${Math.round(htmlCheck.spread * 100)}% (a ratio needs <= ${Math.round(MAX_SPREAD * 100)}%)`);
    out();
    out(`Ratio html-to-pdf service/cold CLI (medians): ${fmtRatio(htmlRatio)}  (cold CLI is ${(1 / htmlRatio).toFixed(1)}x slower)`);
    targets.push({ label: `html-to-pdf median <= ${TARGET_HTML_RATIO}x the cold CLI`, holds: htmlCheck.ratio === undefined ? undefined : htmlRatio <= TARGET_HTML_RATIO, figure: fmtRatio(htmlRatio), target: `<= ${TARGET_HTML_RATIO}x`, ...(htmlCheck.refusal ? { note: htmlCheck.refusal } : {}) });

    }

    // 3. throughput
    if (SECTIONS.has(3)) {
    section(`3. Throughput: 1-page docx-to-pdf, each client looping upload -> answer for ${SECONDS} s: 1 client, then 4 of as many accounts (the pool), then 4 of one account (its fair share)`);
    const result = await throughputSection({ ctx, pid: ready.pid, seconds: SECONDS, file: docxCases[0]!.file, instances: ready.libreofficeInstances, accountKeys: ready.accountKeys, out, note });
    targets.push(...result.targets);
    problems.push(...result.problems);
    }

    // 4. RSS
    if (SECTIONS.has(4)) {
    section(`4. Server RSS while a ~100 MB text upload streams to POST ${TXT_TO_MD} (VmRSS of pid ${ready.pid} every 50 ms)`);
    const rss = await rssDuringUpload(ctx, ready.pid, UPLOAD_MB !== undefined ? Math.round(UPLOAD_MB * 1024 * 1024) : ready.uploadLimitBytes - 64 * 1024);
    const growUpload = (rss.peakUpload - rss.before) / (1024 * 1024);
    const growWhole = (rss.peakWhole - rss.before) / (1024 * 1024);
    out(
      table([
        ['upload', 'RSS before MB', 'peak while uploading MB', 'growth MB', 'peak incl. conversion MB', 'growth incl. conversion MB', 'RSS 1 s after MB', 'upload s', 'answer s', 'status'],
        [
          `${fmtMb(rss.fileBytes)} MiB`,
          fmtMb(rss.before),
          fmtMb(rss.peakUpload),
          growUpload.toFixed(1),
          fmtMb(rss.peakWhole),
          growWhole.toFixed(1),
          fmtMb(rss.after),
          (rss.uploadMs / 1000).toFixed(1),
          (rss.totalMs / 1000).toFixed(1),
          String(rss.status),
        ],
      ]),
    );
    out(`(${rss.samples} samples; "while uploading" runs until the last body byte was handed to the socket, ` +
      `"incl. conversion" until the answer arrived; ${fmtMb(rss.fileBytes / (rss.uploadMs / 1000))} MiB/s upload)`);
    out(`Answer: ${rss.status}, ${rss.answer}`);
    if (rss.status !== 200) problems.push(`the ~100 MB upload answered ${rss.status}`);
    targets.push({ label: `RSS grows < ${TARGET_RSS_MB} MB while the 100 MB upload streams through`, holds: growUpload < TARGET_RSS_MB && rss.status === 200, figure: `${growUpload.toFixed(1)} MB`, target: `< ${TARGET_RSS_MB} MB` });
    targets.push({ label: `(extra) RSS grows < ${TARGET_RSS_MB} MB over the whole request, txt-to-md conversion included`, holds: growWhole < TARGET_RSS_MB && rss.status === 200, figure: `${growWhole.toFixed(1)} MB`, target: `< ${TARGET_RSS_MB} MB` });
    }

    // Summary
    out();
    out('== Targets');
    const width = Math.max(...targets.map((t) => t.label.length));
    for (const t of targets) {
      out(`${t.label.padEnd(width)}  ${(t.holds === undefined ? 'NO VERDICT' : verdict(t.holds)).padEnd(6)}  (${t.figure})${t.note ? `  !! ${t.note}` : ''}`);
      const ratio = t.figure.endsWith('x');
      reportFigure({ bench: 'bench:conversions', name: t.label, figure: ratio ? '' : t.figure, baseline: '', ratio: ratio ? t.figure : '', target: t.target, holds: t.holds, ...(t.note ? { note: t.note } : {}) });
    }
    if (problems.length > 0) {
      out();
      out('!! Problems seen during the run (figures involving them are suspect):');
      for (const p of problems) out(`   - ${p}`);
    }
    out();
    out(`Load average at the end: ${loadAverage()}; whole run ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await cleanup();
  }
}

runBench(main, { prefix: 'bench: ', exitOnSuccess: true });
