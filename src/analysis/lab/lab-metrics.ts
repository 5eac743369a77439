// What the lab measures inside the page, and how the raw entries become the figures reported.
// The page gets an init script before any of its own code runs: PerformanceObserver on paint,
// largest-contentful-paint, layout-shift and longtask, keeping the entries in a closure the page
// can reach only through one read-only property. Arrays are capped so that a page emitting
// entries in a loop cannot grow what the lab reads back. The figures follow the Web Vitals
// definitions: CLS is the largest session window of shifts (gaps under 1 s, windows up to 5 s),
// TBT the part of every long task beyond 50 ms from first contentful paint on.

/** Entries kept per kind; a page beyond this has long stopped being measurable anyway. */
export const MAX_ENTRIES = 2000;

/** The name the init script runs under (its sourceURL), so the page's script attributions can tell it apart. */
const LAB_SOURCE_URL = 'tool-service-lab-metrics.js';

/** The property the init script defines on window; read once at the end of the run. */
const METRICS_PROPERTY = '__toolServiceLabMetrics';

/**
 * Runs in the page before its scripts. Written as source text: the project compiles without the
 * DOM library, and this never runs in Node.
 */
export const LAB_INIT_SCRIPT = `(() => {
  const max = ${MAX_ENTRIES};
  const lab = { fcp: null, lcp: null, lcpSize: 0, lcpElement: null, lcpUrl: null, shifts: [], longTasks: [], lastLongTaskEnd: 0, scripts: new Map(), dropped: 0 };
  try {
    Object.defineProperty(window, ${JSON.stringify(METRICS_PROPERTY)}, { value: lab, enumerable: false, writable: false, configurable: false });
  } catch (e) { return; }
  const keep = (list, item) => { if (list.length < max) list.push(item); else lab.dropped++; };
  const cut = (text, n) => (typeof text === 'string' ? text.slice(0, n) : null);
  // A short name for an element (tag, id or first classes): enough to find it, never its content.
  const describe = (node) => {
    try {
      if (!node || node.nodeType !== 1) return null;
      let name = node.tagName.toLowerCase();
      if (node.id) name += '#' + node.id;
      else if (node.classList && node.classList.length > 0) name += '.' + Array.from(node.classList).slice(0, 2).join('.');
      return name.slice(0, 200);
    } catch (e) { return null; }
  };
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
  watch('largest-contentful-paint', (e) => { lab.lcp = e.startTime; lab.lcpSize = e.size; lab.lcpElement = describe(e.element); lab.lcpUrl = cut(e.url, 500) || null; });
  watch('layout-shift', (e) => {
    if (e.hadRecentInput) return;
    const source = (e.sources || []).find((s) => s && s.node && s.node.nodeType === 1);
    keep(lab.shifts, [e.startTime, e.value, source ? describe(source.node) : null]);
  });
  watch('longtask', (e) => { keep(lab.longTasks, [e.startTime, e.duration]); lab.lastLongTaskEnd = Math.max(lab.lastLongTaskEnd, e.startTime + e.duration); });
  // Long animation frames name the scripts that ran in them: what the long tasks' time went to.
  watch('long-animation-frame', (e) => {
    if (!(e.blockingDuration > 0)) return;
    for (const s of e.scripts || []) {
      // Our own observers' callbacks (this script, named by the sourceURL below) are the lab's
      // cost, not the page's: on a loaded machine one ran in a long frame and was blamed on the page.
      if (s.sourceURL === ${JSON.stringify(LAB_SOURCE_URL)} || (!s.sourceURL && s.invoker === 'PerformanceObserverCallback')) continue;
      const key = cut(s.sourceURL || s.invoker || 'inline script', 300);
      const held = lab.scripts.get(key);
      if (held) held[1] += s.duration;
      else if (lab.scripts.size < 50) lab.scripts.set(key, [key, s.duration]);
    }
  });
})();
//# sourceURL=${LAB_SOURCE_URL}`;

/** A long task's script as the page's long animation frames named it: [source URL or invoker, ms]. */
export type LabScriptTime = [string, number];
/** [startTime, value, the first shifted element's short name or null] */
export type LabShift = [number, number, string | null];
/** A resource as the page's timeline saw it: [URL, startTime, responseEnd, render-blocking, initiator type]. */
export type LabResourceTiming = [string, number, number, boolean, string];

/** What the page hands back at the end: times in ms since navigation start. */
export interface RawLabMetrics {
  fcp: number | null;
  lcp: number | null;
  lcpSize: number;
  /** the LCP element's short name and, for an image, its URL */
  lcpElement: string | null;
  lcpUrl: string | null;
  /** each shift without recent input */
  shifts: LabShift[];
  /** [startTime, duration] of each long task */
  longTasks: [number, number][];
  /** scripts that ran in frames that blocked input, longest first */
  scripts: LabScriptTime[];
  /** the page's resource timing entries */
  resources: LabResourceTiming[];
  /** entries not kept beyond MAX_ENTRIES */
  dropped: number;
  domContentLoaded: number | null;
  load: number | null;
  /** ms since navigation start when read: how long the page was watched */
  now: number;
}

/**
 * Evaluated in the page at the end: copies the figures out as plain numbers, so nothing the page
 * put on the object (getters, huge arrays) travels further than the caps. A promise: the page's
 * answer is awaited.
 */
export const LAB_COLLECT_SCRIPT = `(async () => {
  // Two frames first: a change the page made just now is laid out, and its shift reported, before the read.
  await new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); setTimeout(resolve, 100); });
  const lab = window[${JSON.stringify(METRICS_PROPERTY)}];
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const pairs = (list) => (Array.isArray(list) ? list.slice(0, ${MAX_ENTRIES}).map((p) => [Number(p[0]) || 0, Number(p[1]) || 0]) : []);
  const text = (v, n) => (typeof v === 'string' ? v.slice(0, n) : null);
  const shifts = lab && Array.isArray(lab.shifts) ? lab.shifts.slice(0, ${MAX_ENTRIES}).map((p) => [Number(p[0]) || 0, Number(p[1]) || 0, text(p[2], 200)]) : [];
  const scripts = lab && lab.scripts instanceof Map ? Array.from(lab.scripts.values()).slice(0, 50).map((p) => [String(p[0]).slice(0, 300), Number(p[1]) || 0]).sort((a, b) => b[1] - a[1]) : [];
  const resources = performance.getEntriesByType('resource').slice(0, ${MAX_ENTRIES}).map((r) => [String(r.name).slice(0, 500), r.startTime, r.responseEnd, r.renderBlockingStatus === 'blocking', String(r.initiatorType).slice(0, 40)]);
  try { if (lab && typeof lab.flush === 'function') lab.flush(); } catch (e) { /* what was delivered still counts */ }
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    fcp: lab ? num(lab.fcp) : null,
    lcp: lab ? num(lab.lcp) : null,
    lcpSize: lab ? num(lab.lcpSize) || 0 : 0,
    lcpElement: lab ? text(lab.lcpElement, 200) : null,
    lcpUrl: lab ? text(lab.lcpUrl, 500) : null,
    shifts,
    longTasks: lab ? pairs(lab.longTasks) : [],
    scripts,
    resources,
    dropped: lab ? num(lab.dropped) || 0 : 0,
    domContentLoaded: nav && nav.domContentLoadedEventEnd > 0 ? nav.domContentLoadedEventEnd : null,
    load: nav && nav.loadEventEnd > 0 ? nav.loadEventEnd : null,
    now: performance.now(),
  };
})()`;

const SESSION_GAP_MS = 1000;
const SESSION_MAX_MS = 5000;

/** Cumulative Layout Shift: the largest session window (shifts less than 1 s apart, a window at most 5 s long). */
export function cumulativeLayoutShift(shifts: ReadonlyArray<readonly [number, number, ...unknown[]]>): number {
  return largestShiftWindow(shifts).value;
}

/** The session window CLS is, and the elements that moved in it (as the page named them). */
export function largestShiftWindow(shifts: ReadonlyArray<readonly [number, number, ...unknown[]]>): { value: number; elements: string[] } {
  const sorted = [...shifts].sort((a, b) => a[0] - b[0]);
  let best = 0;
  let bestElements: string[] = [];
  let windowSum = 0;
  let windowStart = -Infinity;
  let previous = -Infinity;
  let elements: string[] = [];
  for (const [time, value, element] of sorted) {
    if (time - previous >= SESSION_GAP_MS || time - windowStart >= SESSION_MAX_MS) {
      windowStart = time;
      windowSum = 0;
      elements = [];
    }
    windowSum += value;
    if (typeof element === 'string' && !elements.includes(element)) elements.push(element);
    previous = time;
    if (windowSum > best) {
      best = windowSum;
      bestElements = [...elements];
    }
  }
  return { value: round(best, 4), elements: bestElements.slice(0, 5) };
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
  const text = (x: unknown, n: number): string | null => (typeof x === 'string' ? x.slice(0, n) : null);
  const list = (x: unknown): unknown[][] => (Array.isArray(x) ? x.slice(0, MAX_ENTRIES).filter((p): p is unknown[] => Array.isArray(p)) : []);
  return {
    fcp: num(v.fcp),
    lcp: num(v.lcp),
    lcpSize: num(v.lcpSize) ?? 0,
    lcpElement: text(v.lcpElement, 200),
    lcpUrl: text(v.lcpUrl, 500),
    shifts: list(v.shifts).flatMap((p) => (num(p[0]) !== null && num(p[1]) !== null ? [[p[0] as number, p[1] as number, text(p[2], 200)] as LabShift] : [])),
    longTasks: pairs(v.longTasks),
    scripts: list(v.scripts).slice(0, 50).flatMap((p) => (typeof p[0] === 'string' && num(p[1]) !== null ? [[p[0].slice(0, 300), p[1] as number] as LabScriptTime] : [])),
    resources: list(v.resources).flatMap((p) =>
      typeof p[0] === 'string' && num(p[1]) !== null && num(p[2]) !== null ? [[p[0].slice(0, 500), p[1] as number, p[2] as number, p[3] === true, text(p[4], 40) ?? 'other'] as LabResourceTiming] : [],
    ),
    dropped: num(v.dropped) ?? 0,
    domContentLoaded: num(v.domContentLoaded),
    load: num(v.load),
    now: num(v.now) ?? 0,
  };
}

/** What the wait reads of the page while it loads: cheap, a few numbers. */
export interface LabPageState {
  fcp: number | null;
  load: number | null;
  /** when the last long task ended, 0 when there was none */
  lastLongTaskEnd: number;
  now: number;
}

/** Evaluated in the page at each step of the wait (lab-wait.ts). */
export const LAB_STATE_SCRIPT = `(() => {
  const lab = window[${JSON.stringify(METRICS_PROPERTY)}];
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  try { if (lab && typeof lab.flush === 'function') lab.flush(); } catch (e) { /* read what was delivered */ }
  const nav = performance.getEntriesByType('navigation')[0];
  return { fcp: lab ? num(lab.fcp) : null, load: nav && nav.loadEventEnd > 0 ? nav.loadEventEnd : null, lastLongTaskEnd: lab ? num(lab.lastLongTaskEnd) || 0 : 0, now: performance.now() };
})()`;

export function readPageState(value: unknown): LabPageState | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  const now = num(v.now);
  if (now === null) return null;
  return { fcp: num(v.fcp), load: num(v.load), lastLongTaskEnd: num(v.lastLongTaskEnd) ?? 0, now };
}
