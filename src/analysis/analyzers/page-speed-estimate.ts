// The proxy's estimated lab metrics: FCP, LCP, TBT, CLS and Speed Index as Lighthouse's desktop
// simulation would roughly see them, from the page's document, its render-blocking resources, its
// scripts and its likely LCP image, each with a size (fetched, or estimated when unknown). They
// are scored on Lighthouse's own curves (lighthouse-curves.ts), so the proxy's performance score
// reads on Lighthouse's scale. Estimates, not measurements: details.estimates says so.
import { performanceScore } from '../lighthouse-curves.ts';
import {
  BYTES_PER_MS,
  DESKTOP,
  LONG_TASK_MS,
  bandwidthMs,
  downloadMs,
  handshakeMs,
  imageTaskMs,
  layoutMs,
  scriptTaskMs,
} from './page-speed-costs.ts';

/** Sizes the proxy assumes when a resource was not fetched (typical of the web's median page). */
export const ASSUMED_BYTES = { script: 30 * 1024, stylesheet: 15 * 1024, image: 80 * 1024 } as const;
/** The pixels the proxy counts for an image whose size the HTML does not declare (a 400x300 picture). */
export const ASSUMED_IMAGE_PIXELS = 400 * 300;
/** Bytes per declared pixel of a typical compressed photo, for an image whose size was not learnt. */
const IMAGE_BYTES_PER_PIXEL = 0.25;
/** The layout shift the proxy counts for an unsized image in the first viewport, and for late-inserted content. */
export const CLS_PER_UNSIZED_IMAGE = 0.05;
export const CLS_PER_LATE_INSERT = 0.2;

export interface SizedResource {
  url: string;
  /** wire bytes (fetched, or assumed) */
  bytes: number;
  /** decoded bytes (what a script costs the CPU) */
  decodedBytes: number;
  /** false when the size is an assumption */
  known: boolean;
  sameOrigin: boolean;
}

export interface PageModel {
  url: string;
  /** the server's time to first byte as this service measured it; 0 when unknown */
  ttfbMs: number;
  /** the document's wire bytes */
  documentBytes: number;
  elements: number;
  blocking: readonly (SizedResource & { kind: 'script' | 'stylesheet' | 'css-import' })[];
  /** every script the page runs that does not block render (deferred, async, module, at the end of body, inline) */
  otherScripts: readonly SizedResource[];
  lcpImage: (SizedResource & { lazy: boolean }) | null;
  unsizedAboveFold: number;
  lateInserts: number;
  /** declared pixels of the images painted with the page (the first EARLY_IMAGES; an undeclared one counted at a typical size) */
  earlyImagePixels: number;
}

export interface Estimates {
  documentMs: number;
  /** how long the render-blocking resources hold the first paint back (network and their scripts' run) */
  blockingMs: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  siMs: number;
  /** Lighthouse's performance score (desktop curves and weights) of these estimates */
  score: number;
}

export function imageBytesFor(size: { width: number; height: number } | null): number {
  return size === null ? ASSUMED_BYTES.image : Math.round(size.width * size.height * IMAGE_BYTES_PER_PIXEL);
}

/** Time for resources fetched in parallel from `start`: the slowest alone, or all of their bytes through the one link. */
function parallelMs(resources: readonly SizedResource[]): number {
  if (resources.length === 0) return 0;
  const alone = Math.max(...resources.map((r) => (r.sameOrigin ? 0 : handshakeMs(r.url)) + downloadMs(r.bytes)));
  const shared = DESKTOP.rttMs + bandwidthMs(resources.reduce((sum, r) => sum + r.bytes, 0));
  return Math.max(alone, shared);
}

export function estimate(model: PageModel): Estimates {
  const documentMs = handshakeMs(model.url) + model.ttfbMs + downloadMs(model.documentBytes);
  const blockingScripts = model.blocking.filter((b) => b.kind === 'script');
  const blockingCpu = blockingScripts.reduce((sum, s) => sum + scriptTaskMs(s.decodedBytes), 0);
  const blockingMs = parallelMs(model.blocking) + blockingCpu;
  const fcpMs = documentMs + blockingMs + layoutMs(model.elements);

  // The LCP image: found by the preload scanner with the document, unless lazy-loading holds it
  // until layout (after the first paint); it shares the link with the blocking resources.
  let lcpMs = fcpMs;
  const image = model.lcpImage;
  if (image !== null) {
    const start = image.lazy ? fcpMs : documentMs;
    const alone = start + (image.sameOrigin ? 0 : handshakeMs(image.url)) + downloadMs(image.bytes);
    const sharedBytes = image.bytes + (image.lazy ? 0 : model.blocking.reduce((sum, r) => sum + r.bytes, 0));
    const shared = start + DESKTOP.rttMs + sharedBytes / BYTES_PER_MS;
    lcpMs = Math.max(fcpMs, alone, shared);
  }

  // TBT: each script's run is one task; the part over 50 ms blocks. Script bytes stand in for the
  // work, since the proxy runs nothing. Render-blocking scripts run before the first paint, where
  // TBT (first paint to interactive) does not count them: they cost FCP instead.
  // The early images are decoded and painted together, in one more task.
  const imageTask = imageTaskMs(model.earlyImagePixels);
  const tasks = [...model.otherScripts.map((s) => scriptTaskMs(s.decodedBytes)), imageTask];
  const tbtMs = tasks.reduce((sum, task) => sum + Math.max(0, task - LONG_TASK_MS), 0);
  const cls = Math.min(1, model.unsizedAboveFold * CLS_PER_UNSIZED_IMAGE + model.lateInserts * CLS_PER_LATE_INSERT);
  // Speed Index sits between the first paint and the largest one, nearer the largest when that is
  // an image filling much of the viewport.
  const siMs = fcpMs + (image === null ? 0 : 0.6) * (lcpMs - fcpMs) + imageTask;
  const score = performanceScore({ fcp: fcpMs, lcp: lcpMs, tbt: tbtMs, cls, si: siMs }, 'desktop') ?? 0;
  return { documentMs, blockingMs, fcpMs, lcpMs, tbtMs, cls, siMs, score };
}
