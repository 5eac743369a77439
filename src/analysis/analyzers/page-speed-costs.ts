// What a page-speed finding costs, in the units Lighthouse thinks in: bytes, and milliseconds of
// delay to FCP and LCP or of blocking time, at Lighthouse's desktop simulation (40 ms round trip,
// 10 Mbps, CPU 1x). The proxy runs no browser, so these are estimates from the HTML, the response
// and the sizes of the few subresources the tool fetched; they rank findings (severity, a graded
// check score) and give the estimated metrics the performance score is computed from.
import { logNormalScore } from '../lighthouse-curves.ts';
import type { PageFacts } from '../page-facts.ts';
import type { Severity } from '../findings.ts';

/** Lighthouse's desktop preset (its `throttling` for formFactor desktop). */
export const DESKTOP = { rttMs: 40, throughputKbps: 10 * 1024, cpuSlowdown: 1 } as const;
/** Bytes the link carries per millisecond at DESKTOP.throughputKbps. */
export const BYTES_PER_MS = (DESKTOP.throughputKbps * 1024) / 8 / 1000;
/** TCP's initial window (10 segments of 1,460 bytes), as Lighthouse's simulator starts a connection. */
const INITIAL_WINDOW_BYTES = 10 * 1460;
/** The most one round trip carries once the window has grown to the link's bandwidth-delay product. */
const MAX_WINDOW_BYTES = BYTES_PER_MS * DESKTOP.rttMs;

/**
 * Main-thread milliseconds per KiB of decoded JavaScript (parse, compile and the work a script of
 * that size typically runs) on a desktop CPU at 1x: script bytes are the proxy's stand-in for
 * main-thread work, since it cannot run them.
 */
export const SCRIPT_MS_PER_KIB = 0.6;
/**
 * Main-thread milliseconds per megapixel of images decoded and painted with the page. Chromium
 * decodes and rasterises an image when it is first painted, and headless Chromium (Lighthouse's)
 * rasterises in software, an SVG on the main thread: calibrated on Lighthouse desktop runs of the
 * bench corpus on a quiet machine, where a 1.6-megapixel hero made a task of about 125 ms (TBT 76)
 * and two dozen 240x180 thumbnails one of about 80 ms (TBT 32). (A loaded machine triples it; the
 * proxy estimates what a user's desktop sees, not a busy server.)
 */
export const IMAGE_MS_PER_MEGAPIXEL = 80;
/** The first images the page loads (lazy or not: the lazy margin reaches past the first viewport) that are painted early. */
export const EARLY_IMAGES = 24;

export function imageTaskMs(pixels: number): number {
  return (pixels / 1_000_000) * IMAGE_MS_PER_MEGAPIXEL * DESKTOP.cpuSlowdown;
}

/** Main-thread milliseconds per element for style and layout of the first render. */
const LAYOUT_MS_PER_ELEMENT = 0.015;
/** A task longer than this blocks (Lighthouse's TBT counts the excess of each task over 50 ms). */
export const LONG_TASK_MS = 50;

/** A subresource the tool fetched (or failed to) so the pure analyzer knows its size. */
export interface SubresourceSize {
  url: string;
  kind: 'script' | 'stylesheet' | 'image';
  /** bytes on the wire; null when the size could not be learnt */
  transferBytes: number | null;
  /** bytes after decompression (what a script costs the CPU); null when unknown */
  decodedBytes: number | null;
  /** the fetch stopped at its byte cap: the resource is at least transferBytes */
  atLeast?: boolean;
  /** a script that inserts or resizes content above the page after it painted (a late banner) */
  insertsLate?: boolean;
}

/** At most this many subresources are fetched for one page (the analyzer's plan is no longer). */
export const MAX_SUBRESOURCE_FETCHES = 8;

/** A subresource whose size the analyzer would like to know. */
export interface SizePlanEntry {
  url: string;
  kind: SubresourceSize['kind'];
}

/**
 * Extra facts the page-speed tool attaches to the page's facts before analysis: the sizes of the
 * render-blocking resources and the likely LCP image. They ride on the facts object (which crosses
 * to the analysis worker whole), so the analyzer stays a pure function of what it is given.
 */
export type FactsWithSubresources = PageFacts & { subresources?: readonly SubresourceSize[] };

export function subresourcesOf(facts: PageFacts | null): Map<string, SubresourceSize> {
  const list = (facts as FactsWithSubresources | null)?.subresources;
  return new Map(Array.isArray(list) ? list.map((s) => [s.url, s]) : []);
}

/** Round trips the slow-start window needs to deliver `bytes` on a fresh connection. */
export function roundTrips(bytes: number): number {
  let window = INITIAL_WINDOW_BYTES;
  let sent = 0;
  let trips = 0;
  while (sent < bytes) {
    sent += window;
    window = Math.min(window * 2, MAX_WINDOW_BYTES);
    trips++;
  }
  return trips;
}

/** A request's time from being sent to its last byte: one round trip for the request, then slow start. */
export function downloadMs(bytes: number): number {
  return DESKTOP.rttMs * Math.max(1, roundTrips(bytes));
}

/**
 * Connection set-up to a new origin as Lighthouse's simulator counts it: a DNS lookup (two round
 * trips), the TCP handshake, and TLS on https.
 */
export function handshakeMs(url: string): number {
  return DESKTOP.rttMs * (url.startsWith('https:') ? 4 : 3);
}

/** Bytes of transfer at 10 Mbps, in ms (no round trips): the marginal cost of extra bytes on a busy link. */
export function bandwidthMs(bytes: number): number {
  return bytes / BYTES_PER_MS;
}

export function scriptTaskMs(decodedBytes: number): number {
  return (decodedBytes / 1024) * SCRIPT_MS_PER_KIB * DESKTOP.cpuSlowdown;
}

export function layoutMs(elements: number): number {
  return elements * LAYOUT_MS_PER_ELEMENT * DESKTOP.cpuSlowdown;
}

/**
 * A check's score from the milliseconds a finding costs, graded rather than pass/fail the way
 * Lighthouse grades its opportunities: on a log-normal curve where 150 ms of waste scores 0.9 and
 * 600 ms 0.5 (its opportunities' "average" and "poor" bands lie at 300 and 750 ms).
 */
export function scoreForCostMs(ms: number): number {
  if (ms <= 0) return 1;
  return Math.round(logNormalScore({ p10: 150, median: 600 }, ms) * 100) / 100;
}

/** Severity from the estimated delay: a second or more is high, 200 ms or more medium, less low. */
export function severityForCostMs(ms: number): Severity {
  if (ms >= 1000) return 'high';
  if (ms >= 200) return 'medium';
  return 'low';
}

export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  // A cost is never printed as nothing: a few milliseconds say so.
  if (ms < 10) return `${Math.max(1, Math.round(ms))} ms`;
  return `${Math.round(ms / 10) * 10} ms`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}
