// When a lab run stops watching the page: the way Lighthouse's gather decides a navigation is
// over (core/gather/driver/wait-for-condition.js, waitForFullyLoaded, with the default and desktop
// settings of core/config/constants.js): first contentful paint and 1 s after it, the load event
// and 1 s after it, the network quiet for 1 s (at most 2 requests in flight, none critical), and
// then no long task for 1 s. A late banner, a script's second wave of requests or a task after
// load is seen as Lighthouse sees it, and a paint the compositor delivers late (a busy machine)
// is waited for instead of read as "no paint". Everything is bounded by the run's deadline.
// One difference is deliberate: Lighthouse starts counting its quiet CPU second only once the
// other conditions hold (its observer notes "now" as the last long task when it is installed), so
// it always records a second and more past them; the lab counts that second from the page's last
// long task, as the condition reads, and does not watch the extra second.
import { setTimeout as delay } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { LAB_STATE_SCRIPT, readPageState } from './lab-metrics.ts';
import type { LabNetwork } from './lab-network.ts';

export interface LabWaitSettings {
  pauseAfterFcpMs: number;
  pauseAfterLoadMs: number;
  networkQuietMs: number;
  cpuQuietMs: number;
  /** a page loaded and quiet that has still not painted gets this long to paint (Lighthouse waits 30 s, then fails) */
  noPaintGraceMs: number;
  /**
   * a page loaded, painted and with its network quiet gets this long for its CPU to go quiet too:
   * a page that never stops running tasks (a ticker, a loaded machine's slow tasks) is measured
   * then, not at the time limit
   */
  cpuQuietMaxWaitMs: number;
}

/**
 * Lighthouse keeps recording after its conditions hold (its CPU-quiet check starts its second only
 * once the others hold: on bench:lab's page its trace ends 2.35 s after load), so a shift made
 * exactly 1 s after load is in its trace: the lab waits past the second too, long enough for
 * that shift's frame to be drawn and recorded (a few frames), not longer.
 */
const TRACE_STOP_MS = 150;

/** Lighthouse 13's defaults (the desktop preset keeps them), the pause after load with its trace's tail. */
export const LIGHTHOUSE_WAIT: LabWaitSettings = { pauseAfterFcpMs: 1000, pauseAfterLoadMs: 1000 + TRACE_STOP_MS, networkQuietMs: 1000, cpuQuietMs: 1000, noPaintGraceMs: 5000, cpuQuietMaxWaitMs: 2000 };

/**
 * How often the page is asked: a few times a second. Each question is a task on the page's main
 * thread, and a renderer kept busy answering is one the compositor may find slow and hold frames
 * back from (the very paint being waited for), so not more often.
 */
const POLL_MS = 250;
/** Bounds on the sleep until the conditions' own time: a little past it, and never so long that a stuck state goes unseen. */
const MIN_ASK_MS = 15;
const MAX_ASK_MS = 1000;
const SLOW = Symbol('slow');

/** settled: every condition held; no-paint: loaded and quiet but never painted; deadline: time ran out; busy: the page's script would not let it answer. */
export type LabWaitOutcome = 'settled' | 'no-paint' | 'deadline' | 'busy';

export async function waitLikeLighthouse(page: Page, network: LabNetwork, deadline: number, signal: AbortSignal, wait: LabWaitSettings = LIGHTHOUSE_WAIT): Promise<LabWaitOutcome> {
  let quietUnpaintedSince: number | null = null;
  let cpuWaitSince: number | null = null;
  let asking: Promise<unknown> | null = null;
  let nudged = false;
  // How long to sleep before asking again: until every condition can hold, once that is known.
  let nextAskMs = POLL_MS;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return 'deadline';
    asking ??= page.evaluate(LAB_STATE_SCRIPT).catch(() => null);
    const answer = await Promise.race([asking, delay(Math.min(remaining, NUDGE_AFTER_MS), SLOW, { ref: false, signal })]);
    if (answer === SLOW) {
      if (Date.now() >= deadline) return 'busy';
      // No answer yet: a script holds the main thread, or the renderer waits on a frame the compositor holds back.
      if (!nudged) nudged = await nudge(page);
      continue;
    }
    asking = null;
    nextAskMs = POLL_MS;
    // null: the page was between documents (a script navigated it); the next step reads the new one.
    const state = readPageState(answer);
    if (state !== null) {
      const loaded = state.load !== null && state.now - state.load >= wait.pauseAfterLoadMs;
      const networkQuiet = network.quietFor() >= wait.networkQuietMs;
      const painted = state.fcp !== null && state.now - state.fcp >= wait.pauseAfterFcpMs;
      if (loaded && networkQuiet && painted) cpuWaitSince ??= Date.now();
      const cpuQuiet = state.now - state.lastLongTaskEnd >= wait.cpuQuietMs || (cpuWaitSince !== null && Date.now() - cpuWaitSince >= wait.cpuQuietMaxWaitMs);
      const quiet = networkQuiet && cpuQuiet;
      if (state.fcp === null && state.load !== null && !nudged && state.now - state.load >= NUDGE_AFTER_MS) nudged = await nudge(page);
      if (loaded && quiet) {
        if (painted) return 'settled';
        if (state.fcp === null) {
          quietUnpaintedSince ??= Date.now();
          if (Date.now() - quietUnpaintedSince >= wait.noPaintGraceMs) return 'no-paint';
        }
      }
      // Loaded and painted: nothing can hold before the last condition's time comes, so the next
      // question is asked then (new activity only moves it later, and the answer then says so),
      // not on a fixed beat that overshoots the settle time by up to a beat.
      if (state.load !== null && state.fcp !== null) {
        const latest = Math.max(
          state.load + wait.pauseAfterLoadMs - state.now,
          state.fcp + wait.pauseAfterFcpMs - state.now,
          wait.networkQuietMs - network.quietFor(),
          cpuWaitSince !== null ? Math.min(state.lastLongTaskEnd + wait.cpuQuietMs - state.now, cpuWaitSince + wait.cpuQuietMaxWaitMs - Date.now()) : state.lastLongTaskEnd + wait.cpuQuietMs - state.now,
        );
        nextAskMs = Math.max(MIN_ASK_MS, Math.min(MAX_ASK_MS, latest + MIN_ASK_MS));
      }
    }
    await delay(Math.max(0, Math.min(nextAskMs, deadline - Date.now())), undefined, { signal });
  }
}

/** How long a page may leave the wait's question, or its first paint after load, unanswered before it is nudged. */
const NUDGE_AFTER_MS = 1500;

/**
 * Headless Chromium's compositor stops offering frames to a renderer it finds slow (a loaded
 * machine), and a page can then sit loaded, idle and unpainted for seconds: the "painted no
 * content" runs. Bringing the tab to the front and capturing a few pixels of it makes the browser
 * draw a frame, so the page paints as it would on a screen. Done once per run, only for a page
 * that has not painted or answered; true when tried.
 */
async function nudge(page: Page): Promise<boolean> {
  const attempt = (async () => {
    const cdp = await page.context().newCDPSession(page);
    try {
      await cdp.send('Page.bringToFront');
      await cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: 10, clip: { x: 0, y: 0, width: 8, height: 8, scale: 1 } });
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  })().catch(() => undefined);
  await Promise.race([attempt, delay(NUDGE_WAIT_MS, undefined, { ref: false })]);
  return true;
}

const NUDGE_WAIT_MS = 2000;
