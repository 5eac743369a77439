// The lab's metrics as Lighthouse's desktop preset would report them. The lab loads the page over
// loopback with no throttling, so its raw FCP and LCP are far below what Lighthouse prints for the
// same page: Lighthouse does not time the load it watched, it replays it on a simulated link
// (Lantern: 40 ms RTT, 10 Mbps, CPU 1x on desktop) and reports the simulated times. The lab sees
// every response through the egress fetcher (its bytes, its server time, its redirects) and the
// page's own timeline (when each request started and ended, whether it blocked rendering), so it
// replays the requests on a metric's critical path the same way and adds their simulated network
// time to the CPU time it measured. As in Lantern (FirstContentfulPaint.js, LargestContentfulPaint.js
// of its trace engine), a metric's requests are those that had ended by it on the observed load:
// for FCP the render-blocking ones; for LCP the mean of an optimistic replay (without the images
// other than the LCP's) and a pessimistic one (all of them). CLS and TBT are not simulated by
// Lighthouse on desktop either (CPU 1x): they are the measured values.
import type { PageFacts } from '../page-facts.ts';
import { performanceScore } from '../lighthouse-curves.ts';
import { largestShiftWindow, totalBlockingTime, type RawLabMetrics } from './lab-metrics.ts';
import type { LabServedRequest } from './lab-network.ts';

/** Lighthouse 13's desktop throttling (constants.js, desktopDense4G), simulated. */
export const DESKTOP_THROTTLING = { rttMs: 40, throughputKbps: 10 * 1024, cpuSlowdownMultiplier: 1 } as const;

const RTT = DESKTOP_THROTTLING.rttMs;
const BYTES_PER_MS = (DESKTOP_THROTTLING.throughputKbps * 1024) / 8 / 1000;
/** TCP's segment and initial congestion window (Lantern's TcpConnection). */
const SEGMENT_BYTES = 1460;
const INITIAL_WINDOW_SEGMENTS = 10;
/** Lantern's DNS cost: two round trips for an origin not yet resolved. */
const DNS_ROUND_TRIPS = 2;

/** Lantern's pessimistic Speed Index coefficient at 40 ms RTT: 0.5 + (0.4 - 0.5) * (40 - 30) / (150 - 30). */
const SI_SIMULATED_SHARE = 0.5 + ((0.4 - 0.5) * (40 - 30)) / (150 - 30);

export interface LabEstimate {
  fcpMs: number | null;
  lcpMs: number | null;
  /** Speed Index, estimated from the simulated paints (the lab records no filmstrip) */
  siMs: number | null;
  tbtMs: number;
  cls: number;
  /** 0-100 on Lighthouse's desktop curves; null when the page painted nothing (Lighthouse fails such a run) */
  score: number | null;
}

interface Timed {
  url: string;
  origin: string;
  secure: boolean;
  bytes: number;
  serverMs: number;
  redirects: number;
  /** the page's own timeline, ms from navigation start */
  start: number;
  end: number;
  blocking: boolean;
  initiator: string;
}

/** Resource timing initiator types of images: low priority in Lantern's LCP graph unless they are the LCP's. */
const IMAGE_INITIATORS = new Set(['img', 'image', 'css']);

/** Time on the simulated link from sending a request to its last byte. */
export function simulatedRequestMs(request: Pick<Timed, 'secure' | 'bytes' | 'serverMs' | 'redirects'>, warm: boolean): number {
  const setup = warm ? 0 : (DNS_ROUND_TRIPS + (request.secure ? 2 : 1)) * RTT;
  return setup + request.redirects * RTT + RTT + request.serverMs + transferMs(request.bytes);
}

/** Slow start from 10 segments, the window doubling each round trip until the link's rate is the limit. */
function transferMs(bytes: number): number {
  let remaining = bytes - INITIAL_WINDOW_SEGMENTS * SEGMENT_BYTES;
  let window = INITIAL_WINDOW_SEGMENTS * 2;
  let time = 0;
  while (remaining > 0) {
    const flight = window * SEGMENT_BYTES;
    if (flight >= BYTES_PER_MS * RTT) return time + remaining / BYTES_PER_MS;
    time += RTT;
    remaining -= flight;
    window *= 2;
  }
  return time;
}

/**
 * Simulated time to load a set of requests after the document: requests that started only after
 * another of the set had ended (a stylesheet's @import, a script's image) wait for it; requests
 * side by side share the link's rate.
 */
function replayMs(set: readonly Timed[], warm: Set<string>): number {
  const sorted = [...set].sort((a, b) => a.start - b.start);
  const level = new Map<Timed, number>();
  for (const request of sorted) {
    let depth = 0;
    for (const before of sorted) if (before !== request && before.end <= request.start) depth = Math.max(depth, (level.get(before) ?? 0) + 1);
    level.set(request, depth);
  }
  let total = 0;
  const depths = [...new Set(level.values())].sort((a, b) => a - b);
  for (const depth of depths) {
    const wave = sorted.filter((r) => level.get(r) === depth);
    let longest = 0;
    let setup = 0;
    let bytes = 0;
    for (const request of wave) {
      const isWarm = warm.has(request.origin);
      const alone = simulatedRequestMs(request, isWarm);
      longest = Math.max(longest, alone);
      setup = Math.max(setup, alone - transferMs(request.bytes));
      bytes += request.bytes;
    }
    for (const request of wave) warm.add(request.origin);
    total += Math.max(longest, setup + bytes / BYTES_PER_MS);
  }
  return total;
}

/** What the main thread spends before a paint in tasks too short to be recorded (parse, style, layout of a small page). */
const SHORT_TASKS_MS = 50;

/**
 * One metric: the document's simulated time, then the set's, then the main-thread time between the
 * set's last response and the metric (the CPU is not slowed on desktop). That gap counts only as
 * far as the main thread was busy in it (its long tasks, and a little for short ones): a headless
 * compositor that holds back frames from a renderer it finds slow (viz's BeginFrame throttling on
 * a loaded machine; Lighthouse issue 17148) delays the observed paint by up to seconds with the
 * main thread idle, and that wait is no cost of the page.
 */
function metricMs(observed: number, set: readonly Timed[], documentMs: number, documentOrigin: string, busyMs: number): number {
  const networkEnd = set.reduce((end, r) => Math.max(end, r.end), 0);
  const cpu = Math.min(Math.max(0, observed - networkEnd), busyMs + SHORT_TASKS_MS);
  return documentMs + replayMs(set, new Set([documentOrigin])) + cpu;
}

/** Main-thread time in long tasks before `time`. */
function busyBefore(longTasks: readonly (readonly [number, number])[], time: number): number {
  let busy = 0;
  for (const [start, duration] of longTasks) if (start < time) busy += Math.min(duration, time - start);
  return busy;
}

export function estimateLikeLighthouse(raw: RawLabMetrics, document: Pick<PageFacts, 'finalUrl' | 'transferBytes' | 'timings' | 'redirects'>, served: readonly LabServedRequest[]): LabEstimate {
  const cls = largestShiftWindow(raw.shifts).value;
  const tbtMs = totalBlockingTime(raw.longTasks, raw.fcp);
  const documentOrigin = originOf(document.finalUrl);
  const documentMs = simulatedRequestMs(
    { secure: document.finalUrl.startsWith('https:'), bytes: document.transferBytes, serverMs: document.timings.ttfbMs ?? 0, redirects: document.redirects.length },
    false,
  );
  const byUrl = new Map<string, LabServedRequest>();
  for (const request of served) {
    byUrl.set(request.url, request);
    byUrl.set(request.finalUrl, request);
  }
  const timed: Timed[] = raw.resources.flatMap(([url, start, end, blocking, initiator]) => {
    const fetched = byUrl.get(url.split('#')[0] ?? url);
    if (fetched === undefined) return [];
    return [{ url, origin: originOf(url), secure: url.startsWith('https:'), bytes: fetched.transferBytes, serverMs: fetched.serverMs, redirects: fetched.redirects, start, end, blocking, initiator }];
  });
  // Lantern's graphs keep the requests that had ended by the metric's time on the observed load.
  const endedBy = (time: number): Timed[] => timed.filter((r) => r.end <= time);
  const lantern = (observed: number, optimistic: readonly Timed[], pessimistic: readonly Timed[]): number => {
    const busy = busyBefore(raw.longTasks, observed);
    return (metricMs(observed, optimistic, documentMs, documentOrigin, busy) + metricMs(observed, pessimistic, documentMs, documentOrigin, busy)) / 2;
  };
  if (raw.fcp === null) return { fcpMs: null, lcpMs: null, siMs: null, tbtMs, cls, score: null };
  // FCP: the render-blocking requests (the page's own timeline says which blocked), in both graphs.
  const blocking = endedBy(raw.fcp).filter((r) => r.blocking);
  const fcpMs = Math.round(lantern(raw.fcp, blocking, blocking));
  let lcpMs: number | null = null;
  if (raw.lcp !== null) {
    // LCP: everything that had ended by it; the optimistic graph leaves out the images that are not the LCP's (low priority).
    const ended = endedBy(raw.lcp);
    const optimistic = ended.filter((r) => r.blocking || r.url === raw.lcpUrl || !IMAGE_INITIATORS.has(r.initiator));
    lcpMs = Math.max(fcpMs, Math.round(lantern(raw.lcp, optimistic, ended)));
  }
  // Speed Index as Lantern weighs it at desktop's 40 ms RTT (SpeedIndex.js, coefficients scaled by
  // RTT: 0.575 of the observed index, 0.49 of the layout-weighted simulated time, never below FCP).
  // The observed index of an unthrottled load is a fraction of the simulated times and the lab
  // films nothing, so it is left out; the last layouts are taken at LCP.
  const siMs = Math.max(fcpMs, Math.round(SI_SIMULATED_SHARE * (lcpMs ?? fcpMs)));
  // No LCP entry while FCP has one: the first paint is the largest the lab saw, and stands for it.
  const score = performanceScore({ fcp: fcpMs, lcp: lcpMs ?? fcpMs, tbt: tbtMs, cls, si: siMs }, 'desktop') ?? null;
  return { fcpMs, lcpMs, siMs, tbtMs, cls, score };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
