// What the lab measures inside the page, and how the raw entries become the figures reported.
// The page gets an init script before any of its own code runs: PerformanceObserver on paint,
// largest-contentful-paint, layout-shift and longtask, keeping the entries in a closure the page
// can reach only through one read-only property. Arrays are capped so that a page emitting
// entries in a loop cannot grow what the lab reads back. The figures follow the Web Vitals
// definitions: CLS is the largest session window of shifts (gaps under 1 s, windows up to 5 s),
// TBT the part of every long task beyond 50 ms from first contentful paint on.

/** Entries kept per kind; a page beyond this has long stopped being measurable anyway. */
export const MAX_ENTRIES = 2000;

/** The property the init script defines on window; read once at the end of the run. */
const METRICS_PROPERTY = '__toolServiceLabMetrics';

/**
 * Runs in the page before its scripts. Written as source text: the project compiles without the
 * DOM library, and this never runs in Node.
 */
export const LAB_INIT_SCRIPT = `(() => {
  const max = ${MAX_ENTRIES};
  const lab = { fcp: null, lcp: null, lcpSize: 0, shifts: [], longTasks: [], dropped: 0 };
  try {
    Object.defineProperty(window, ${JSON.stringify(METRICS_PROPERTY)}, { value: lab, enumerable: false, writable: false, configurable: false });
  } catch (e) { return; }
  const keep = (list, item) => { if (list.length < max) list.push(item); else lab.dropped++; };
  const observers = [];
  const watch = (type, onEntry) => {
    try {
      const observer = new PerformanceObserver((list) => { for (const entry of list.getEntries()) onEntry(entry); });
      observer.observe({ type, buffered: true });
      observers.push([observer, onEntry]);
    } catch (e) { /* an entry type this browser does not know is left unmeasured */ }
  };
  // Entries recorded but not yet handed to their observer (a long task that just ended) are taken at the end.
  Object.defineProperty(lab, 'flush', { value: () => { for (const [o, onEntry] of observers) for (const entry of o.takeRecords()) onEntry(entry); }, enumerable: false, writable: false });
  watch('paint', (e) => { if (e.name === 'first-contentful-paint') lab.fcp = e.startTime; });
  watch('largest-contentful-paint', (e) => { lab.lcp = e.startTime; lab.lcpSize = e.size; });
  watch('layout-shift', (e) => { if (!e.hadRecentInput) keep(lab.shifts, [e.startTime, e.value]); });
  watch('longtask', (e) => keep(lab.longTasks, [e.startTime, e.duration]));
})();`;

/** What the page hands back at the end: times in ms since navigation start. */
export interface RawLabMetrics {
  fcp: number | null;
  lcp: number | null;
  lcpSize: number;
  /** [startTime, value] of each shift without recent input */
  shifts: [number, number][];
  /** [startTime, duration] of each long task */
  longTasks: [number, number][];
  /** entries not kept beyond MAX_ENTRIES */
  dropped: number;
  domContentLoaded: number | null;
  load: number | null;
  /** ms since navigation start when read: how long the page was watched */
  now: number;
}

/**
 * Evaluated in the page at the end: copies the figures out as plain numbers, so nothing the page
 * put on the object (getters, huge arrays) travels further than the caps.
 */
export const LAB_COLLECT_SCRIPT = `(() => {
  const lab = window[${JSON.stringify(METRICS_PROPERTY)}];
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const pairs = (list) => (Array.isArray(list) ? list.slice(0, ${MAX_ENTRIES}).map((p) => [Number(p[0]) || 0, Number(p[1]) || 0]) : []);
  try { if (lab && typeof lab.flush === 'function') lab.flush(); } catch (e) { /* what was delivered still counts */ }
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    fcp: lab ? num(lab.fcp) : null,
    lcp: lab ? num(lab.lcp) : null,
    lcpSize: lab ? num(lab.lcpSize) || 0 : 0,
    shifts: lab ? pairs(lab.shifts) : [],
    longTasks: lab ? pairs(lab.longTasks) : [],
    dropped: lab ? num(lab.dropped) || 0 : 0,
    domContentLoaded: nav && nav.domContentLoadedEventEnd > 0 ? nav.domContentLoadedEventEnd : null,
    load: nav && nav.loadEventEnd > 0 ? nav.loadEventEnd : null,
    now: performance.now(),
  };
})()`;

const SESSION_GAP_MS = 1000;
const SESSION_MAX_MS = 5000;

/** Cumulative Layout Shift: the largest session window (shifts less than 1 s apart, a window at most 5 s long). */
export function cumulativeLayoutShift(shifts: readonly (readonly [number, number])[]): number {
  const sorted = [...shifts].sort((a, b) => a[0] - b[0]);
  let best = 0;
  let windowSum = 0;
  let windowStart = -Infinity;
  let previous = -Infinity;
  for (const [time, value] of sorted) {
    if (time - previous >= SESSION_GAP_MS || time - windowStart >= SESSION_MAX_MS) {
      windowStart = time;
      windowSum = 0;
    }
    windowSum += value;
    previous = time;
    best = Math.max(best, windowSum);
  }
  return round(best, 4);
}

/** A task longer than this blocks input. */
const BLOCKING_THRESHOLD_MS = 50;

/**
 * Total Blocking Time: for each long task, what it runs beyond 50 ms after first contentful paint
 * (a task that began before FCP counts from FCP on, as Lighthouse clips it). Without an FCP the
 * page never painted, and every task counts from navigation start.
 */
export function totalBlockingTime(longTasks: readonly (readonly [number, number])[], fcp: number | null): number {
  const from = fcp ?? 0;
  let total = 0;
  for (const [start, duration] of longTasks) {
    const end = start + duration;
    if (end <= from) continue;
    const counted = end - Math.max(start, from);
    if (counted > BLOCKING_THRESHOLD_MS) total += counted - BLOCKING_THRESHOLD_MS;
  }
  return Math.round(total);
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Reads the raw metrics the collect script returned, defensively: the page had its hands on them. */
export function readRawMetrics(value: unknown): RawLabMetrics | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  const pairs = (x: unknown): [number, number][] =>
    Array.isArray(x) ? x.slice(0, MAX_ENTRIES).flatMap((p) => (Array.isArray(p) && num(p[0]) !== null && num(p[1]) !== null ? [[p[0] as number, p[1] as number] as [number, number]] : [])) : [];
  return {
    fcp: num(v.fcp),
    lcp: num(v.lcp),
    lcpSize: num(v.lcpSize) ?? 0,
    shifts: pairs(v.shifts),
    longTasks: pairs(v.longTasks),
    dropped: num(v.dropped) ?? 0,
    domContentLoaded: num(v.domContentLoaded),
    load: num(v.load),
    now: num(v.now) ?? 0,
  };
}
