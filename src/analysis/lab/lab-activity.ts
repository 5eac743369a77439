// Whether a page is still: nothing it has set going can change it within the next moments. The
// wait (lab-wait.ts) keeps watching 150 ms past the second after load so that a change made right
// at that second is recorded, as it is in Lighthouse's longer trace; a page that has nothing due
// then and has done nothing lately cannot make such a change, so its run ends at the second
// itself. The tracker records when the page's timers fall due and which other sources of later
// work it has opened; it never wraps a callback (the browser's long-animation-frame entries name
// the page's own function as each task's script, and a wrapper would take that name), so a timer
// counts as done once its due time is past. Anything it cannot see through (a frame of another
// document, a worker, more timers than it keeps) makes the page count as not still, and the run
// waits as it always did.

/** The property of the lab's metrics object the tracker lives on (lab-metrics.ts defines the object). */
const ACTIVITY_KEY = 'activity';

/** Timers kept at once; a page past this is taken as never still. */
const MAX_TIMERS = 1000;

/**
 * Init-script source, run inside the lab's own init script with `lab` (the metrics object) in
 * scope: wraps the page's scheduling functions (timeouts, intervals, animation frames, idle
 * callbacks) to note due times, and its worker constructors to note that one was made.
 */
export const LAB_ACTIVITY_INIT = `(() => {
  const w = window;
  const act = { timeouts: new Map(), intervals: new Map(), lastFrameAsk: -1, idles: new Map(), spawned: false, overflow: false };
  Object.defineProperty(lab, ${JSON.stringify(ACTIVITY_KEY)}, { value: act, enumerable: false, writable: false, configurable: false });
  const now = () => performance.now();
  const keep = (map, id, value) => {
    if (map.size >= ${MAX_TIMERS}) { const t = now(); for (const [k, due] of map) if (typeof due === 'number' && due < t - 1000) map.delete(k); }
    if (map.size >= ${MAX_TIMERS}) act.overflow = true; else map.set(id, value);
  };
  const wrap = (name, make) => { const original = w[name]; if (typeof original !== 'function') return; try { w[name] = make(original); } catch (e) { act.overflow = true; } };
  const delayOf = (v) => { const n = Number(v); return Number.isFinite(n) && n > 0 ? n : 0; };
  wrap('setTimeout', (st) => function setTimeout(handler, timeout) { const id = st.apply(w, arguments); keep(act.timeouts, id, now() + delayOf(timeout)); return id; });
  wrap('setInterval', (si) => function setInterval(handler, timeout) { const id = si.apply(w, arguments); keep(act.intervals, id, [now(), Math.max(1, delayOf(timeout))]); return id; });
  // The two clear functions take each other's ids in browsers.
  const clear = (original) => function (id) { act.timeouts.delete(id); act.intervals.delete(id); return original.apply(w, arguments); };
  wrap('clearTimeout', (ct) => { const f = clear(ct); Object.defineProperty(f, 'name', { value: 'clearTimeout' }); return f; });
  wrap('clearInterval', (ci) => { const f = clear(ci); Object.defineProperty(f, 'name', { value: 'clearInterval' }); return f; });
  wrap('requestAnimationFrame', (raf) => function requestAnimationFrame(callback) { act.lastFrameAsk = now(); return raf.apply(w, arguments); });
  wrap('requestIdleCallback', (ric) => function requestIdleCallback(callback, options) { const id = ric.apply(w, arguments); keep(act.idles, id, now() + (options && delayOf(options.timeout) > 0 ? delayOf(options.timeout) : 50)); return id; });
  wrap('cancelIdleCallback', (cic) => function cancelIdleCallback(id) { act.idles.delete(id); return cic.apply(w, arguments); });
  for (const name of ['Worker', 'SharedWorker']) wrap(name, (W) => new Proxy(W, { construct(target, args, newTarget) { act.spawned = true; return Reflect.construct(target, args, newTarget); } }));
})();`;

/**
 * Evaluated inside the state script with \`lab\` and \`now\` in scope: an expression for what the
 * page has in hand. nextDue: the earliest time a timeout, interval or idle callback falls due
 * after now (null: none); lastDue: the latest one that fell due, or animation frame asked for, up
 * to now (null: none); open: a source of later work the tracker cannot time is open.
 */
export const LAB_ACTIVITY_READ = `(() => {
  const act = lab && lab[${JSON.stringify(ACTIVITY_KEY)}];
  if (!act) return { nextDue: null, lastDue: null, open: true };
  let nextDue = null;
  let lastDue = act.lastFrameAsk >= 0 ? act.lastFrameAsk : null;
  const seen = (due) => {
    if (due > now) nextDue = nextDue === null ? due : Math.min(nextDue, due);
    else lastDue = lastDue === null ? due : Math.max(lastDue, due);
  };
  for (const [id, due] of act.timeouts) { if (due < now - 1000) act.timeouts.delete(id); else seen(due); }
  for (const [id, due] of act.idles) { if (due < now - 1000) act.idles.delete(id); else seen(due); }
  for (const [start, period] of act.intervals.values()) { const fired = Math.max(0, Math.floor((now - start) / period)); seen(start + (fired + 1) * period); if (fired > 0) seen(start + fired * period); }
  let open = act.spawned || act.overflow || window.frames.length > 0;
  try { if (!open && document.fonts && document.fonts.status === 'loading') open = true; } catch (e) { open = true; }
  try { if (!open && document.getAnimations().some((a) => a.playState === 'running')) open = true; } catch (e) { open = true; }
  try { if (!open) for (const m of document.querySelectorAll('video, audio')) if (!m.paused) { open = true; break; } } catch (e) { open = true; }
  return { nextDue, lastDue, open };
})()`;

/** What the page has in hand, as the state script read it (times in ms since navigation start). */
export interface LabActivity {
  nextDue: number | null;
  lastDue: number | null;
  open: boolean;
}

export function readActivity(value: unknown): LabActivity {
  if (typeof value !== 'object' || value === null) return { nextDue: null, lastDue: null, open: true };
  const v = value as Record<string, unknown>;
  const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  return { nextDue: num(v['nextDue']), lastDue: num(v['lastDue']), open: v['open'] !== false };
}

/**
 * Still until `until` (page time): nothing falls due before then, nothing fell due in the last
 * `recentMs`, the page's last layout shift and long task are older than that too, and no source
 * of work the tracker cannot time is open.
 */
export function stillUntil(activity: LabActivity, state: { now: number; lastLongTaskEnd: number; lastShift: number | null }, until: number, recentMs: number): boolean {
  if (activity.open) return false;
  if (activity.nextDue !== null && activity.nextDue <= until) return false;
  const since = state.now - recentMs;
  if (activity.lastDue !== null && activity.lastDue > since) return false;
  if (state.lastLongTaskEnd > since) return false;
  return state.lastShift === null || state.lastShift <= since;
}
