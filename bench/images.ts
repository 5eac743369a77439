/**
 * Image conversions (issue 12 §7). Run: `npm run bench:images` (node bench/images.ts).
 *
 * In one run, against the real service in a child process (bench/conversions-server.ts, engines
 * warmed, measured once /readyz shows the image engine ready):
 *   1. to-jpg of a 12-megapixel PNG (4000 x 3000, a gradient with noise) through the service
 *      (multipart upload until the JSON answer) against sharp called in this process on the same
 *      file (`sharp(path).jpeg().toFile()`), run the way the image workers run it: libvips cache
 *      off, IMAGE_THREADS libvips threads (2 by default) and MALLOC_ARENA_MAX=2 (see below).
 *      BENCH_RUNS pairs, each a service run and an in-process run back to back (which goes first
 *      alternates), after BENCH_WARMUP unmeasured pairs; the pairs are cut into BENCH_ROUNDS
 *      rounds. The ratio is of the medians, refused when the in-process rounds' medians spread
 *      more than BENCH_MAX_SPREAD; the median of the per-pair ratios is printed beside it as a
 *      cross-check that drift between pairs cannot move. Target: <= 1.3x. Each service result
 *      is checked once (JPEG, 4000 x 3000).
 *   2. the server's RSS (VmRSS sampled every 50 ms) before and while a ~100 MB PNG (5700 x 5700
 *      of noise) is streamed to to-jpg and converted. Target: growth < 150 MB. The conversion
 *      runs in the image engine's worker process, whose own peak is printed beside it.
 * It is a measurement, not a test: it exits 0 whether or not the targets hold.
 *
 * Why MALLOC_ARENA_MAX: with glibc's default arenas, libvips' threads allocate from arenas of
 * their own that are handed back to the kernel after each image, so every run faulted some
 * 12,000 pages back in (~150 ms of system time) and single runs of identical work took 260-700
 * ms; with two arenas, as src/engines/image.ts starts its workers, the pages stay and a run takes
 * ~210-300 ms. glibc reads the variable once at start, so this file runs itself again with it;
 * the server is then started with the environment this bench was given.
 *
 * Environment: BENCH_RUNS (pairs, default 40), BENCH_ROUNDS (default 5), BENCH_WARMUP (default 4).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { imageEngine } from '../src/engines/image.ts';
import { envInt } from './support/env.ts';
import { measureRssGrowth, readRssBytes, rssGrowthReport } from './support/rss.ts';
import { runBench } from './support/run-bench.ts';
import { startConversionsServer, stopServer, waitForEngines } from './support/server-child.ts';
import { MAX_SPREAD, pairedRatio, refusalLine, reportFigure } from './support/report.ts';
import { fmtPct } from './support/spread.ts';
import { fmtMb, fmtMs, fmtRatio, latencyTable, loadAverage, table, verdict } from './support/stats.ts';
import { streamUpload } from './support/streaming-upload.ts';

const RUNS = envInt('BENCH_RUNS', 40);
const ROUNDS = envInt('BENCH_ROUNDS', 5);
const WARMUP = envInt('BENCH_WARMUP', 4);
const TARGET = 1.3;
/** The image workers' malloc arenas (src/engines/image.ts). */
const WORKER_ARENAS = '2';
/** Set on the rerun: the MALLOC_ARENA_MAX this bench was given ('' when none), for the server. */
const SERVER_ARENAS = 'BENCH_IMAGES_SERVER_ARENAS';
let dir = '';
/** A photo-like 12 MP PNG: smooth gradients with a little noise, so it compresses like a photo would. */
async function twelveMegapixelPng(path: string): Promise<void> {
  const width = 4000;
  const height = 3000;
  const raw = Buffer.alloc(width * height * 3);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const noise = (seed >> 16) & 15;
      const i = (y * width + x) * 3;
      raw[i] = ((x * 255) / width + noise) & 255;
      raw[i + 1] = ((y * 255) / height + noise) & 255;
      raw[i + 2] = (((x + y) * 128) / (width + height) + noise) & 255;
    }
  }
  await sharp(raw, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 6 }).toFile(path);
}

/** ~100 MB: noise does not compress. */
async function hundredMegabytePng(path: string): Promise<void> {
  const side = 5700; // about 97 MB: just under the 100 MB upload limit
  const raw = Buffer.alloc(side * side * 3);
  let seed = 11;
  for (let i = 0; i < raw.length; i += 4) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    raw.writeUInt32LE(seed * 2 + (i & 1), i);
  }
  await sharp(raw, { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 1 }).toFile(path);
}

/** The image worker processes of the server: node children running image-worker.ts. */
function workerPids(serverPid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.includes('image-worker.ts') && cmdline.startsWith(process.execPath)) pids.push(Number(name));
    } catch {
      // gone
    }
  }
  void serverPid;
  return pids;
}

/** The machine's busy share (all cores) over `ms`, from /proc/stat. */
async function busyShare(ms: number): Promise<number> {
  const sample = (): [number, number] => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return [fields.reduce((a, b) => a + b, 0), idle];
  };
  const [total0, idle0] = sample();
  await new Promise((done) => setTimeout(done, ms));
  const [total1, idle1] = sample();
  return total1 === total0 ? 0 : 1 - (idle1 - idle0) / (total1 - total0);
}

/**
 * Waits (30 s at most) until the machine is under 25% busy for a second: the server warms every
 * engine at start (LibreOffice, Chromium ...), and /readyz shows the image engine ready before
 * they are done, which made the first round the slowest on a quiet machine (sharp 279 ms against
 * 203-220 ms). Returns the seconds waited and the last busy share.
 */
async function settle(): Promise<{ seconds: number; busy: number }> {
  const started = performance.now();
  let busy = 1;
  while (performance.now() - started < 30_000) {
    busy = await busyShare(1000);
    if (busy < 0.25) break;
  }
  return { seconds: (performance.now() - started) / 1000, busy };
}

/** One in-process run, as a worker runs it (the workers' encode: quality 80, no mozjpeg; flatten is a no-op without alpha). */
async function direct(input: string, output: string): Promise<number> {
  const started = performance.now();
  await sharp(input).jpeg({ quality: 80, mozjpeg: false }).toFile(output);
  return performance.now() - started;
}

async function main(): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'bench-images-'));
  const png12 = join(dir, 'photo-12mp.png');
  const png100 = join(dir, 'noise-100mb.png');
  console.log(`preparing images ... (load ${loadAverage()})`);
  await twelveMegapixelPng(png12);
  await hundredMegabytePng(png100);
  console.log(`12 MP PNG: ${fmtMb(statSync(png12).size)} MB; big PNG: ${fmtMb(statSync(png100).size)} MB`);

  // The baseline runs as a worker does: no operation cache, the workers' libvips threads (the
  // server reads IMAGE_THREADS from the same environment). sharp's own default here would be 1
  // thread: it drops to 1 on glibc without jemalloc unless MALLOC_ARENA_MAX is set.
  const threads = imageEngine.settings.parse(process.env).IMAGE_THREADS;
  sharp.cache(false);
  sharp.concurrency(threads);
  const arenas = process.env['MALLOC_ARENA_MAX'] ?? 'unset';
  // The server gets the environment this bench was given, not this process's malloc setting.
  const given = process.env[SERVER_ARENAS];
  if (given !== undefined) {
    if (given === '') delete process.env['MALLOC_ARENA_MAX'];
    else process.env['MALLOC_ARENA_MAX'] = given;
    delete process.env[SERVER_ARENAS];
  }
  const { child, ready } = await startConversionsServer();
  const base = `http://127.0.0.1:${ready.port}`;
  try {
    await waitForEngines(base, ['image']);
    const url = `${base}/api/v1/convertors/to-jpg`;
    const send = (filePath: string, fileName: string) => streamUpload({ url, apiKey: ready.apiKey, filePath, fileName, contentType: 'image/png', field: 'image' });
    const service = async (): Promise<number> => {
      const started = performance.now();
      const res = await send(png12, 'photo.png');
      if (res.status !== 200) throw new Error(`to-jpg answered ${res.status}: ${res.body}`);
      return performance.now() - started;
    };

    // The result is checked once.
    const first = await send(png12, 'photo.png');
    if (first.status !== 200) throw new Error(`to-jpg answered ${first.status}: ${first.body}`);
    const result = JSON.parse(first.body) as { result: { downloadUrl: string } };
    const link = new URL(result.result.downloadUrl);
    const jpeg = Buffer.from(await (await fetch(`${base}${link.pathname}${link.search}`)).arrayBuffer());
    const meta = await sharp(jpeg).metadata();
    if (meta.format !== 'jpeg' || meta.width !== 4000 || meta.height !== 3000) throw new Error(`unexpected result ${meta.format} ${meta.width}x${meta.height}`);

    const settled = await settle();
    console.log(`waited ${settled.seconds.toFixed(0)} s for the server's start to settle (machine ${fmtPct(settled.busy)} busy)`);
    // Warm-up pairs, not measured: a fresh process's first few runs of either side are up to
    // twice as slow (codecs loading, malloc's heap growing to an image's working set).
    const output = (i: number) => join(dir, `direct-${i % 2}.jpg`);
    for (let i = 0; i < WARMUP; i++) {
      await service();
      await direct(png12, output(i));
    }

    console.log(`\n1. to-jpg of a 12 MP PNG: ${RUNS} interleaved pairs in ${ROUNDS} rounds, after ${WARMUP} warm-up pairs; sharp in-process with ${sharp.concurrency()} libvips thread(s), MALLOC_ARENA_MAX=${arenas} here (load ${loadAverage()})`);
    const served: number[] = [];
    const inProcess: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Which side goes first alternates: neither always runs right after the other's I/O and garbage.
      if (i % 2 === 0) {
        served.push(await service());
        inProcess.push(await direct(png12, output(i)));
      } else {
        inProcess.push(await direct(png12, output(i)));
        served.push(await service());
      }
    }
    const check = pairedRatio(served, inProcess, ROUNDS);
    console.log(
      latencyTable([
        ['service (upload -> JSON answer)', served],
        ['sharp in-process', inProcess],
      ]),
    );
    console.log(
      `\n${table([
        ['round', 'service median ms', 'sharp median ms', 'ratio'],
        ...check.baselineRounds.map((b, r) => [String(r + 1), fmtMs(check.measuredRounds[r]!), fmtMs(b), fmtRatio(check.measuredRounds[r]! / b)]),
      ])}`,
    );
    console.log(`sharp's rounds spread ${fmtPct(check.spread)} (limit ${fmtPct(MAX_SPREAD)}); median of the per-pair ratios ${fmtRatio(check.pairMedian)}`);
    if (check.ratio === undefined) console.log(refusalLine('to-jpg ratio', check));
    else console.log(`ratio of the medians ${fmtRatio(check.ratio)} (target <= ${TARGET}x): ${verdict(check.ratio <= TARGET)}`);
    reportFigure({
      bench: 'bench:images',
      name: 'to-jpg of a 12 MP PNG vs sharp in-process (medians)',
      figure: `${check.measuredMedian.toFixed(0)} ms`,
      baseline: `${check.baselineMedian.toFixed(0)} ms`,
      ratio: check.ratio === undefined ? 'refused' : fmtRatio(check.ratio),
      target: `<= ${TARGET}x`,
      holds: check.ratio === undefined ? undefined : check.ratio <= TARGET,
      ...(check.refusal ? { note: check.refusal } : {}),
    });

    console.log(`\n2. server RSS while a ${fmtMb(statSync(png100).size)} MB PNG goes through to-jpg (load ${loadAverage()})`);
    const workers = workerPids(ready.pid);
    let workerPeak = 0;
    const workerTimer = setInterval(() => {
      for (const pid of workers) {
        try {
          workerPeak = Math.max(workerPeak, readRssBytes(pid));
        } catch {
          // recycled
        }
      }
    }, 50);
    const big = await measureRssGrowth(ready.pid, () => send(png100, 'big.png')).finally(() => clearInterval(workerTimer));
    if (big.result.status !== 200) throw new Error(`to-jpg of the big PNG answered ${big.result.status}: ${big.result.body}`);
    console.log(rssGrowthReport(big, [['image worker process peak RSS', fmtMb(workerPeak)]]));
  } finally {
    await stopServer(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env['MALLOC_ARENA_MAX'] !== WORKER_ARENAS) {
  // Once more with the workers' malloc arenas (see the top of this file); stdio, exit code and
  // the rest of the environment are this run's.
  const rerun = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, MALLOC_ARENA_MAX: WORKER_ARENAS, [SERVER_ARENAS]: process.env['MALLOC_ARENA_MAX'] ?? '' },
  });
  process.exit(rerun.status ?? 1);
} else {
  runBench(main, { cleanup: () => (dir ? rmSync(dir, { recursive: true, force: true }) : undefined) });
}
