/**
 * Archive conversions (issue 12 §7). Run: `npm run bench:archive` (node bench/archive.ts).
 *
 * In one run, against the real service in a child process (bench/conversions-server.ts, started
 * with UPLOAD_LIMIT_BYTES and OUTPUT_LIMIT_BYTES raised to 256 MB so a 200 MB upload is taken;
 * every other setting its production default), measured once /readyz shows 7-Zip ready:
 *   1. tar-to-7z of a 200 MB tar of mixed files (prose-like text, repetitive logs, incompressible
 *      binary, a thousand small source-like files) through the service (multipart upload streamed
 *      from disk until the JSON answer) against the 7zz CLI doing the same conversion in this
 *      process: `7zz x` of the tar into a fresh folder, then `7zz a -t7z` of that folder (default
 *      level, all cores, as the service runs it). Also printed: `7zz a` alone from a folder that
 *      already holds the files (the least any conversion can cost). N runs each, interleaved;
 *      median and p90; target <= 1.2x the CLI conversion. The first service result is downloaded
 *      and listed: every entry must be there with its size.
 *   2. the server's RSS (VmRSS sampled every 50 ms) before and while a ~100 MB tar is converted
 *      by tar-to-7z. Target: growth < 150 MB. The extraction and packing run in 7zz processes.
 * It is a measurement, not a test: it exits 0 whether or not the targets hold.
 *
 * Environment: BENCH_RUNS (default 3), BENCH_ARCHIVE_MB (default 200).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { measureRssGrowth, rssGrowthReport } from './support/rss.ts';
import { runBench } from './support/run-bench.ts';
import { startConversionsServer, stopServer, waitForEngines } from './support/server-child.ts';
import { fmtMb, fmtRatio, latencyTable, loadAverage, median, verdict } from './support/stats.ts';
import { streamUpload } from './support/streaming-upload.ts';

const run = promisify(execFile);
const RUNS = Math.max(1, Math.round(Number(process.env['BENCH_RUNS'] ?? '3')) || 3);
const ARCHIVE_MB = Math.max(10, Number(process.env['BENCH_ARCHIVE_MB'] ?? '200') || 200);
const MB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'bench-archive-'));

/** xorshift32: fast, seeded, the same files every run. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const WORDS = 'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(' ');

function proseFile(size: number, seed: number): Buffer {
  const next = prng(seed);
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const sentence: string[] = [];
    const words = 6 + (next() % 14);
    for (let i = 0; i < words; i += 1) sentence.push(WORDS[next() % WORDS.length]!);
    const line = `${sentence.join(' ')}.${next() % 5 === 0 ? '\n\n' : ' '}`;
    parts.push(line);
    length += line.length;
  }
  return Buffer.from(parts.join('')).subarray(0, size);
}

function logFile(size: number, seed: number): Buffer {
  const next = prng(seed);
  const parts: string[] = [];
  let length = 0;
  let t = 1_700_000_000_000;
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
  while (length < size) {
    t += next() % 500;
    const line = `${new Date(t).toISOString()} ${levels[next() % levels.length]} request id=${(next() % 100000).toString(16)} path=/api/v1/items/${next() % 1000} status=${[200, 200, 201, 404, 500][next() % 5]} ms=${next() % 900}\n`;
    parts.push(line);
    length += line.length;
  }
  return Buffer.from(parts.join('')).subarray(0, size);
}

function binaryFile(size: number, seed: number): Buffer {
  const next = prng(seed);
  const bytes = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4) bytes.writeUInt32LE(next(), i);
  return bytes;
}

/** A folder of `totalMb` MB of mixed files: 40% prose, 35% logs, 20% binary, 5% small files. */
function writeMixedTree(root: string, totalMb: number): { files: number; bytes: number } {
  const total = totalMb * MB;
  let files = 0;
  let bytes = 0;
  const put = (path: string, content: Buffer): void => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
    files += 1;
    bytes += content.length;
  };
  const big = 2 * MB;
  for (let i = 0; i < Math.round((total * 0.4) / big); i += 1) put(`docs/chapter-${i}.txt`, proseFile(big, 100 + i));
  for (let i = 0; i < Math.round((total * 0.35) / big); i += 1) put(`logs/2026-11-${String(i).padStart(3, '0')}.log`, logFile(big, 200 + i));
  for (let i = 0; i < Math.round((total * 0.2) / big); i += 1) put(`media/blob-${i}.bin`, binaryFile(big, 300 + i));
  const small = 4096;
  for (let i = 0; i < Math.round((total * 0.05) / small); i += 1) put(`src/module-${Math.floor(i / 100)}/file-${i}.ts`, proseFile(small, 400 + i));
  return { files, bytes };
}

async function sevenZip(args: readonly string[], cwd: string): Promise<void> {
  await run('7zz', [...args], { cwd, maxBuffer: 64 * MB });
}

async function cliConversion(tar: string, index: number): Promise<number> {
  const work = join(dir, `cli-${index}`);
  mkdirSync(join(work, 'out'), { recursive: true });
  const t0 = performance.now();
  await sevenZip(['x', '-ttar', '-y', '-bd', '-oout', tar], work);
  await sevenZip(['a', '-t7z', '-snl', '-y', '-bd', join(work, 'result.7z'), '.'], join(work, 'out'));
  const ms = performance.now() - t0;
  rmSync(work, { recursive: true, force: true });
  return ms;
}

async function cliPackOnly(tree: string, index: number): Promise<number> {
  const out = join(dir, `pack-${index}.7z`);
  const t0 = performance.now();
  await sevenZip(['a', '-t7z', '-snl', '-y', '-bd', out, '.'], tree);
  const ms = performance.now() - t0;
  rmSync(out, { force: true });
  return ms;
}

async function makeTar(tree: string, tar: string): Promise<void> {
  await run('tar', ['-cf', tar, '-C', tree, '.'], { maxBuffer: 64 * MB });
}

async function main(): Promise<void> {
  console.log(`preparing ${ARCHIVE_MB} MB and 95 MB of mixed files ... (load ${loadAverage()})`);
  const tree = join(dir, 'tree');
  const made = writeMixedTree(tree, ARCHIVE_MB);
  const tar = join(dir, 'mixed.tar');
  await makeTar(tree, tar);
  const smallTree = join(dir, 'tree-100');
  writeMixedTree(smallTree, 95);
  const tar100 = join(dir, 'mixed-100.tar');
  await makeTar(smallTree, tar100);
  rmSync(smallTree, { recursive: true, force: true });
  console.log(`tar of ${made.files} files: ${fmtMb(statSync(tar).size)} MB; second tar ${fmtMb(statSync(tar100).size)} MB`);

  process.env['UPLOAD_LIMIT_BYTES'] = String(256 * MB);
  process.env['OUTPUT_LIMIT_BYTES'] = String(256 * MB);
  const { child, ready } = await startConversionsServer();
  const base = `http://127.0.0.1:${ready.port}`;
  try {
    await waitForEngines(base, ['sevenzip']);
    const url = `${base}/api/v1/archive/tar-to-7z`;
    const send = (filePath: string, fileName: string) => streamUpload({ url, apiKey: ready.apiKey, filePath, fileName, contentType: 'application/x-tar' });

    // Check the first result: every file is there with its size.
    const first = await send(tar, 'mixed.tar');
    if (first.status !== 200) throw new Error(`tar-to-7z answered ${first.status}: ${first.body}`);
    const link = new URL((JSON.parse(first.body) as { result: { downloadUrl: string } }).result.downloadUrl);
    const result = Buffer.from(await (await fetch(`${base}${link.pathname}${link.search}`)).arrayBuffer());
    writeFileSync(join(dir, 'result.7z'), result);
    const listing = (await run('7zz', ['l', '-slt', join(dir, 'result.7z')], { maxBuffer: 64 * MB })).stdout;
    const listedFiles = listing.split('\n').filter((line) => line.startsWith('Attributes = A')).length;
    const listedBytes = [...listing.matchAll(/^Size = (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    if (listedFiles !== made.files || listedBytes !== made.bytes) throw new Error(`the 7z holds ${listedFiles} files of ${listedBytes} bytes; expected ${made.files} of ${made.bytes}`);
    console.log(`result: ${fmtMb(result.length)} MB 7z holding all ${listedFiles} files (${fmtMb(listedBytes)} MB)`);

    console.log(`\n1. tar-to-7z of ${fmtMb(statSync(tar).size)} MB, ${RUNS} runs each, interleaved (load ${loadAverage()})`);
    const service: number[] = [];
    const cli: number[] = [];
    const pack: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const t0 = performance.now();
      const res = await send(tar, 'mixed.tar');
      if (res.status !== 200) throw new Error(`tar-to-7z answered ${res.status}: ${res.body}`);
      service.push(performance.now() - t0);
      cli.push(await cliConversion(tar, i));
      pack.push(await cliPackOnly(tree, i));
    }
    const ratio = median(service) / median(cli);
    console.log(
      latencyTable([
        ['service (upload -> JSON answer)', service],
        ['7zz CLI: x then a -t7z', cli],
        ['7zz CLI: a -t7z of the folder only', pack],
      ]),
    );
    console.log(`ratio to the CLI conversion ${fmtRatio(ratio)} (target <= 1.2x): ${verdict(ratio <= 1.2)}; to packing alone ${fmtRatio(median(service) / median(pack))}`);

    console.log(`\n2. server RSS while a ${fmtMb(statSync(tar100).size)} MB tar goes through tar-to-7z (load ${loadAverage()})`);
    const big = await measureRssGrowth(ready.pid, () => send(tar100, 'mixed-100.tar'));
    if (big.result.status !== 200) throw new Error(`tar-to-7z of the 100 MB tar answered ${big.result.status}: ${big.result.body}`);
    console.log(rssGrowthReport(big));
  } finally {
    await stopServer(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main, { cleanup: () => rmSync(dir, { recursive: true, force: true }) });
