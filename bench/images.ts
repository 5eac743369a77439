/**
 * Image conversions (issue 12 §7). Run: `npm run bench:images` (node bench/images.ts).
 *
 * In one run, against the real service in a child process (bench/conversions-server.ts, engines
 * warmed, measured once /readyz shows the image engine ready):
 *   1. to-jpg of a 12-megapixel PNG (4000 x 3000, a gradient with noise) through the service
 *      (multipart upload until the JSON answer) against sharp called in this process on the same
 *      file (`sharp(path).jpeg().toFile()`, libvips cache off, as the workers run it); N runs
 *      each, interleaved; median and p90, and the ratio of the medians. Target: <= 1.3x. Each
 *      service result is downloaded once and checked (JPEG, 4000 x 3000).
 *   2. the server's RSS (VmRSS sampled every 50 ms) before and while a ~100 MB PNG (5700 x 5700
 *      of noise) is streamed to to-jpg and converted. Target: growth < 150 MB. The conversion
 *      runs in the image engine's worker process, whose own peak is printed beside it.
 * It is a measurement, not a test: it exits 0 whether or not the targets hold.
 *
 * Environment: BENCH_RUNS (default 7).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { measureRssGrowth, readRssBytes, rssGrowthReport } from './support/rss.ts';
import { runBench } from './support/run-bench.ts';
import { startConversionsServer, stopServer, waitForEngines } from './support/server-child.ts';
import { checkedRatio, refusalLine, reportFigure } from './support/report.ts';
import { fmtMb, fmtRatio, latencyTable, loadAverage, median, verdict } from './support/stats.ts';
import { streamUpload } from './support/streaming-upload.ts';

const RUNS = Math.max(1, Math.round(Number(process.env['BENCH_RUNS'] ?? '7')) || 7);
const dir = mkdtempSync(join(tmpdir(), 'bench-images-'));

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

async function main(): Promise<void> {
  const png12 = join(dir, 'photo-12mp.png');
  const png100 = join(dir, 'noise-100mb.png');
  console.log(`preparing images ... (load ${loadAverage()})`);
  await twelveMegapixelPng(png12);
  await hundredMegabytePng(png100);
  console.log(`12 MP PNG: ${fmtMb(statSync(png12).size)} MB; big PNG: ${fmtMb(statSync(png100).size)} MB`);

  sharp.cache(false);
  const { child, ready } = await startConversionsServer();
  const base = `http://127.0.0.1:${ready.port}`;
  try {
    await waitForEngines(base, ['image']);
    const url = `${base}/api/v1/convertors/to-jpg`;
    const send = (filePath: string, fileName: string) => streamUpload({ url, apiKey: ready.apiKey, filePath, fileName, contentType: 'image/png', field: 'image' });

    // Warm both sides once (the worker's first job loads codecs; so does this process's).
    const first = await send(png12, 'photo.png');
    if (first.status !== 200) throw new Error(`to-jpg answered ${first.status}: ${first.body}`);
    const result = JSON.parse(first.body) as { result: { downloadUrl: string } };
    const link = new URL(result.result.downloadUrl);
    const jpeg = Buffer.from(await (await fetch(`${base}${link.pathname}${link.search}`)).arrayBuffer());
    const meta = await sharp(jpeg).metadata();
    if (meta.format !== 'jpeg' || meta.width !== 4000 || meta.height !== 3000) throw new Error(`unexpected result ${meta.format} ${meta.width}x${meta.height}`);
    await sharp(png12).jpeg().toFile(join(dir, 'direct.jpg'));

    console.log(`\n1. to-jpg of a 12 MP PNG, ${RUNS} runs each, interleaved (load ${loadAverage()})`);
    const service: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const res = await send(png12, 'photo.png');
      if (res.status !== 200) throw new Error(`to-jpg answered ${res.status}: ${res.body}`);
      service.push(performance.now() - t0);
      const t1 = performance.now();
      await sharp(png12).jpeg().toFile(join(dir, `direct-${i}.jpg`));
      direct.push(performance.now() - t1);
    }
    // Each in-process run is one of the baseline's rounds: a machine that ran them at very
    // different speeds gives no ratio (support/report.ts).
    const check = checkedRatio(median(service), median(direct), direct);
    console.log(
      latencyTable([
        ['service (upload -> JSON answer)', service],
        ['sharp in-process', direct],
      ]),
    );
    if (check.ratio === undefined) console.log(refusalLine('to-jpg ratio', check));
    else console.log(`ratio ${fmtRatio(check.ratio)} (target <= 1.3x): ${verdict(check.ratio <= 1.3)}`);
    reportFigure({
      bench: 'bench:images',
      name: 'to-jpg of a 12 MP PNG vs sharp in-process (medians)',
      figure: `${median(service).toFixed(0)} ms`,
      baseline: `${median(direct).toFixed(0)} ms`,
      ratio: check.ratio === undefined ? 'refused' : fmtRatio(check.ratio),
      target: '<= 1.3x',
      holds: check.ratio === undefined ? undefined : check.ratio <= 1.3,
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

runBench(main, { cleanup: () => rmSync(dir, { recursive: true, force: true }) });
