/**
 * Audio and ebook conversions (issue 12 §7). Run: `npm run bench:audio` (node bench/audio.ts).
 *
 * In one run, against the real service in a child process (bench/conversions-server.ts, production
 * defaults), once /readyz shows ffmpeg and calibre:
 *   1. wav-to-mp3 of a 3-minute 44.1 kHz stereo WAV (pink noise, the hardest case for the encoder;
 *      about 32 MB) through the service (multipart upload streamed from disk until the JSON answer,
 *      the result stored behind its link) against the ffmpeg CLI doing the same conversion in this
 *      process (`ffmpeg -i in.wav -c:a libmp3lame -b:a 192k out.mp3`, the service's default
 *      bitrate). N runs each, interleaved; median and p90; target <= 1.2x the CLI.
 *   2. calibre's start: `ebook-convert --version` (Python and calibre's start, nothing read), a
 *      one-paragraph EPUB to TXT with the CLI, and the same through the service (epub-to-txt).
 *      The first two show what a warm mode could save at most; see src/engines/calibre.ts for why
 *      there is none.
 * It is a measurement, not a test: it exits 0 whether or not the target holds.
 *
 * Environment: BENCH_RUNS (default 3), BENCH_AUDIO_SECONDS (default 180).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { epub } from '../test/ebook/support/ebook-fixtures.ts';
import { startConversionsServer, stopServer, waitForEngines } from './support/server-child.ts';
import { fmtRatio, latencyTable, loadAverage, median, verdict } from './support/stats.ts';
import { runBench } from './support/run-bench.ts';
import { streamUpload } from './support/streaming-upload.ts';

const run = promisify(execFile);
const RUNS = Math.max(1, Math.round(Number(process.env['BENCH_RUNS'] ?? '3')) || 3);
const SECONDS = Math.max(10, Number(process.env['BENCH_AUDIO_SECONDS'] ?? '180') || 180);
const dir = mkdtempSync(join(tmpdir(), 'bench-audio-'));
const calibreEnv = { ...process.env, QT_QPA_PLATFORM: 'offscreen', QTWEBENGINE_DISABLE_SANDBOX: '1' };

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const wav = join(dir, 'noise.wav');
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `anoisesrc=color=pink:amplitude=0.3:sample_rate=44100:duration=${SECONDS}`, '-ac', '2', '-c:a', 'pcm_s16le', wav]);
  const book = join(dir, 'book.epub');
  writeFileSync(book, epub({ title: 'Bench', paragraphs: ['One paragraph to convert.'] }));
  const { child, ready } = await startConversionsServer();
  const base = `http://127.0.0.1:${ready.port}`;
  try {
    const engines = await waitForEngines(base, ['ffmpeg', 'calibre']);
    const version = (name: string) => engines.find((e) => e.name === name)?.version ?? '?';
    const send = (path: string, filePath: string, fileName: string, contentType: string) => streamUpload({ url: `${base}${path}`, apiKey: ready.apiKey, filePath, fileName, contentType });

    // Warm both paths once (page cache, the server's first-call costs), not measured.
    const first = await send('/api/v1/audio/wav-to-mp3', wav, 'noise.wav', 'audio/wav');
    if (first.status !== 200) throw new Error(`wav-to-mp3 answered ${first.status}: ${first.body}`);
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', wav, '-c:a', 'libmp3lame', '-b:a', '192k', join(dir, 'cli.mp3')]);

    const service: number[] = [];
    const cli: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const answer = await send('/api/v1/audio/wav-to-mp3', wav, 'noise.wav', 'audio/wav');
      if (answer.status !== 200) throw new Error(`wav-to-mp3 answered ${answer.status}: ${answer.body}`);
      service.push(answer.totalMs);
      cli.push(await timed(() => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', wav, '-c:a', 'libmp3lame', '-b:a', '192k', join(dir, 'cli.mp3')])));
    }

    const versionRuns: number[] = [];
    const cliBook: number[] = [];
    const serviceBook: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      versionRuns.push(await timed(() => run('ebook-convert', ['--version'], { env: calibreEnv })));
      cliBook.push(await timed(() => run('ebook-convert', [book, join(dir, 'book.txt')], { env: calibreEnv })));
      const answer = await send('/api/v1/ebook/epub-to-txt', book, 'book.epub', 'application/epub+zip');
      if (answer.status !== 200) throw new Error(`epub-to-txt answered ${answer.status}: ${answer.body}`);
      serviceBook.push(answer.totalMs);
    }

    const ratio = median(service) / median(cli);
    console.log(`\naudio and ebook conversions, ${RUNS} runs each, ffmpeg ${version('ffmpeg')}, calibre ${version('calibre')}, load ${loadAverage()}`);
    console.log(`\n1. wav-to-mp3, ${SECONDS} s stereo WAV (${(statSync(wav).size / 1024 / 1024).toFixed(1)} MB), 192 kbit/s`);
    console.log(
      latencyTable(
        [
          ['service (upload to JSON answer)', service],
          ['ffmpeg CLI', cli],
        ],
        'path',
      ),
    );
    console.log(`ratio service/CLI: ${fmtRatio(ratio)} (target <= 1.2x): ${verdict(ratio <= 1.2)}`);
    console.log('\n2. calibre start and a one-paragraph EPUB to TXT');
    console.log(
      latencyTable(
        [
          ['ebook-convert --version (start only)', versionRuns],
          ['ebook-convert CLI, epub to txt', cliBook],
          ['service epub-to-txt (upload to JSON answer)', serviceBook],
        ],
        'what',
      ),
    );
    console.log(`ratio service/CLI for the small book: ${fmtRatio(median(serviceBook) / median(cliBook))}`);
  } finally {
    await stopServer(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main, { cleanup: () => rmSync(dir, { recursive: true, force: true }) });
