/**
 * bench:conversions, section 4: the server's RSS (VmRSS of its process) before and while a ~100 MB
 * text file is uploaded to POST /api/v1/documents/txt-to-md, streamed from disk, and over the
 * whole request, the conversion included.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from './conversion-calls.ts';
import { writeBigText } from './documents.ts';
import { RssSampler } from './rss.ts';
import { fmtMb, median } from './stats.ts';
import { streamUpload } from './streaming-upload.ts';

export const TXT_TO_MD = '/api/v1/documents/txt-to-md';
const note = (line: string) => process.stderr.write(`bench: ${line}\n`);

export interface RssResult {
  fileBytes: number;
  before: number;
  peakUpload: number;
  peakWhole: number;
  after: number;
  status: number;
  answer: string;
  uploadMs: number;
  totalMs: number;
  samples: number;
}

/** The answer in one line: the result's name, type and size, or the error body. */
function describeAnswer(text: string): string {
  try {
    const body = JSON.parse(text) as { result?: { fileName?: string; mimeType?: string; sizeBytes?: number } };
    const r = body.result;
    if (r?.fileName !== undefined) return `result ${r.fileName} (${r.mimeType}), ${(r.sizeBytes ?? 0).toLocaleString('en-US')} bytes`;
  } catch {
    // not JSON: shown as it is
  }
  return text.slice(0, 400);
}

/**
 * Streams a text file of `fileBytes` (written to ctx.work, removed after) to txt-to-md while the
 * server's VmRSS is sampled every 50 ms: a second of idle samples first (the baseline), the upload,
 * the wait for the answer, and a second after it.
 */
export async function rssDuringUpload(ctx: Ctx, pid: number, fileBytes: number): Promise<RssResult> {
  const path = join(ctx.work, 'big.txt');
  note(`  writing a ${fmtMb(fileBytes)} MiB text file…`);
  await writeBigText(path, fileBytes);

  const sampler = new RssSampler(pid, 50);
  sampler.start();
  await new Promise((r) => setTimeout(r, 1000)); // 1 s of idle samples: the baseline
  sampler.phase = 'upload';
  const res = await streamUpload({
    url: `${ctx.base}${TXT_TO_MD}`,
    apiKey: ctx.apiKey,
    filePath: path,
    fileName: 'big.txt',
    contentType: 'text/plain',
    onUploaded: () => {
      sampler.sample();
      sampler.phase = 'answer';
    },
  });
  sampler.sample();
  sampler.phase = 'after';
  await new Promise((r) => setTimeout(r, 1000));
  sampler.stop();
  rmSync(path, { force: true });

  const bytesOf = (phases: string[]) => sampler.inPhase(...phases).map((s) => s.bytes);
  const before = median(bytesOf(['before']));
  return {
    fileBytes,
    before,
    peakUpload: Math.max(...bytesOf(['upload'])),
    peakWhole: Math.max(...bytesOf(['upload', 'answer'])),
    after: median(bytesOf(['after'])),
    status: res.status,
    answer: describeAnswer(res.body),
    uploadMs: res.uploadMs,
    totalMs: res.totalMs,
    samples: sampler.samples.length,
  };
}
