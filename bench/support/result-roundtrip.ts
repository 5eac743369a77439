/**
 * A big result through a server and back: a text file streamed from disk to
 * POST /api/v1/documents/txt-to-md (the service stores a Markdown result about as large, in its
 * FILE_STORE), then downloaded by its downloadUrl and hashed as it arrives (nothing held in this
 * process's memory either). For each half: the time, and the server's RSS growth, the peak minus
 * the RSS just before. The peak is the kernel's high-water mark (VmHWM) reset just before the
 * request (writing 5 to /proc/<pid>/clear_refs), so a spike between two samples is not missed,
 * or the highest of 50 ms samples (rss.ts) if that is higher; where the reset is refused, the
 * samples alone.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { measureRssGrowth, readRssBytes } from './rss.ts';
import { streamUpload } from './streaming-upload.ts';

export interface RssWindow {
  before: number;
  peak: number;
  /** how the peak was read */
  source: 'VmHWM and samples' | 'sampled';
}

export interface RoundTrip {
  /** ms from the first byte sent until the JSON answer arrived (upload and conversion) */
  uploadMs: number;
  /** ms from the download's request until its last byte */
  downloadMs: number;
  resultBytes: number;
  downloadedBytes: number;
  sha256: string;
  uploadRss: RssWindow;
  downloadRss: RssWindow;
}

function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function readHwmBytes(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** The server's RSS just before `during` and its peak until `during` settled. */
async function rssAround<T>(pid: number, during: () => Promise<T>): Promise<{ result: T; rss: RssWindow }> {
  const hwm = resetPeak(pid);
  // Sampled either way; the reset high-water mark, when it worked, is the exact peak.
  const growth = await measureRssGrowth(pid, during);
  if (!hwm) return { result: growth.result, rss: { before: growth.before, peak: growth.peak, source: 'sampled' } };
  // VmHWM is raised when pages are unmapped, not when they are given back by madvise (as V8 may do):
  // the samples can see a peak it missed, so the higher of the two counts.
  return { result: growth.result, rss: { before: growth.before, peak: Math.max(readHwmBytes(pid), readRssBytes(pid), growth.peak), source: 'VmHWM and samples' } };
}

interface Answer {
  result?: { downloadUrl?: string; sizeBytes?: number; mimeType?: string };
}

/** Upload `filePath` to txt-to-md on `base` (server process `pid`), then download the result by its link. */
export async function roundTrip(base: string, apiKey: string, pid: number, filePath: string): Promise<RoundTrip> {
  const up = await rssAround(pid, () =>
    streamUpload({ url: `${base}/api/v1/documents/txt-to-md`, apiKey, filePath, fileName: 'big.txt', contentType: 'text/plain' }),
  );
  if (up.result.status !== 200) throw new Error(`txt-to-md answered ${up.result.status}: ${up.result.body.slice(0, 500)}`);
  const answer = JSON.parse(up.result.body) as Answer;
  const link = answer.result?.downloadUrl;
  if (!link) throw new Error(`no downloadUrl in the answer: ${up.result.body.slice(0, 500)}`);
  // The link names the public base URL; the path and signature are asked of this node.
  const url = new URL(link);
  const down = await rssAround(pid, async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}${url.pathname}${url.search}`);
    if (res.status !== 200 || !res.body) throw new Error(`download of ${url.pathname} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of res.body) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    return { ms: performance.now() - t0, bytes, sha256: hash.digest('hex') };
  });
  return {
    uploadMs: up.result.totalMs,
    downloadMs: down.result.ms,
    resultBytes: answer.result?.sizeBytes ?? Number.NaN,
    downloadedBytes: down.result.bytes,
    sha256: down.result.sha256,
    uploadRss: up.rss,
    downloadRss: down.rss,
  };
}
