// Lab mode: the page loaded in the engines' warm Chromium and measured as a visitor's browser
// would see it (LCP, CLS, TBT), every request it makes answered through the egress-safe fetcher
// (lab-network.ts). A run is an engine job: it waits for a Chromium slot in the fair queue under
// the calling account (engines/job-owner.ts), gets a fresh browser context of its own (made ahead
// of it, lab-tab.ts), and that context is closed when the run ends, whatever happened. It watches
// the page until Lighthouse's gather would stop (lab-wait.ts) and reports the metrics measured and
// as Lighthouse's desktop simulation would estimate them (lab-estimate.ts). The caller has the
// figures as soon as they are read: the answer no longer waits for the close (10-20 ms). The job,
// and so its Chromium slot, still lasts until the context is closed and the next run's tab is on
// its way, so no other job gets that slot before then. Bounded by a time limit (the page is
// measured as it stands when the limit comes), by the request and byte limits of the network, and
// by the engine's own job timeout behind them.
import { setTimeout as delay } from 'node:timers/promises';
import type { BrowserContext } from 'playwright-core';
import type { PageFetcher } from '../url-report.ts';
import { ServiceError } from '../../core/errors.ts';
import type { ChromiumEngine } from '../../engines/chromium.ts';
import type { PageFacts } from '../page-facts.ts';
import { LAB_COLLECT_SCRIPT, MAX_ENTRIES, readRawMetrics, round, largestShiftWindow, totalBlockingTime, type RawLabMetrics } from './lab-metrics.ts';
import { DEFAULT_LAB_NETWORK_LIMITS, LabNetwork, type LabNetworkLimits } from './lab-network.ts';
import type { LabResult } from './lab-result.ts';
import { estimateLikeLighthouse } from './lab-estimate.ts';
import { openLabTab, prepareSpareLabTab } from './lab-tab.ts';
import { LIGHTHOUSE_WAIT, waitLikeLighthouse, type LabWaitSettings } from './lab-wait.ts';

export interface LabOptions {
  /** the whole run, from the context's opening to the figures (default 20 s) */
  timeLimitMs?: number;
  /** when the run stops watching the page (default: Lighthouse's, lab-wait.ts) */
  wait?: Partial<LabWaitSettings>;
  network?: Partial<LabNetworkLimits>;
  /** the page's response already fetched (the proxy analysis's): served to the browser instead of a second fetch; else it is fetched first */
  prefetched?: PageFacts;
  /** the caller's call: aborting it ends the run and closes its context */
  signal?: AbortSignal;
}

const DEFAULT_TIME_LIMIT_MS = 20_000;
/** What the engine job may take beyond the run's own limit before the engine steps in. */
const ENGINE_MARGIN_MS = 10_000;
const CLOSE_WAIT_MS = 5000;
/** How long past the deadline the page may take to hand its figures over. */
const COLLECT_GRACE_MS = 1000;
const BUSY = Symbol('busy');

type LabWorker = Parameters<Parameters<ChromiumEngine['supervisor']['run']>[0]>[0];

/** Loads `url` in a fresh context of the warm Chromium and measures it. */
export async function runLab(chromium: Pick<ChromiumEngine, 'supervisor'>, fetchPage: PageFetcher, url: string, options: LabOptions = {}): Promise<LabResult> {
  const timeLimitMs = Math.max(1000, options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS);
  const runOptions = { timeoutMs: timeLimitMs + ENGINE_MARGIN_MS, ...(options.signal ? { signal: options.signal } : {}) };
  // The document is read before a browser slot is taken: a page that cannot be fetched is the
  // fetcher's 400 or 422, and the browser starts at the URL the redirects ended on.
  const document = options.prefetched ?? (await fetchPage(url));
  let handOver: (result: LabResult) => void = () => undefined;
  const figuresRead = new Promise<LabResult>((resolve) => {
    handOver = resolve;
  });
  const job = chromium.supervisor.run((worker, { signal }) => labJob(worker, signal, fetchPage, document, { ...options, timeLimitMs }, handOver), runOptions);
  // Whichever comes first: the figures (handed over only while the run's signal is not aborted),
  // or the job's failure, abort or timeout before them. The race handles the job's later end too,
  // so a rejection after the figures (the caller leaving while the context closes) is nobody's.
  return Promise.race([figuresRead, job]);
}

/** Measures the page; `onFigures` gets the result before the context's close, which the job still awaits. */
async function labJob(
  worker: LabWorker,
  signal: AbortSignal,
  fetchPage: PageFetcher,
  document: PageFacts,
  options: LabOptions & { timeLimitMs: number },
  onFigures: (result: LabResult) => void,
): Promise<LabResult> {
  const started = Date.now();
  const deadline = started + options.timeLimitMs;
  const network = new LabNetwork(fetchPage, { ...DEFAULT_LAB_NETWORK_LIMITS, ...options.network });
  network.preload(document);
  const notes: string[] = [];
  let context: BrowserContext | null = null;
  let navigated = false;
  // Closing the context tears its renderer down from the browser's side, so even a page stuck in
  // an endless script stops at once when the caller leaves or the engine's timeout fires.
  const stop = (): void => {
    network.close();
    void context?.close().catch(() => undefined);
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    const tab = await openLabTab(worker.browser);
    context = tab.context;
    signal.throwIfAborted();
    tab.use(network);
    const page = tab.page;
    let crashed = false;
    page.once('crash', () => {
      crashed = true;
    });
    navigated = true;
    try {
      await page.goto(document.finalUrl, { waitUntil: 'load', timeout: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      signal.throwIfAborted();
      notes.push(Date.now() >= deadline ? `the page had not loaded within the ${options.timeLimitMs} ms time limit; figures are as it stood then` : `the page did not load: ${firstLine(error)}`);
    }
    const waited = crashed ? null : await waitLikeLighthouse(page, network, deadline, signal, { ...LIGHTHOUSE_WAIT, ...options.wait });
    // A page whose script never yields cannot answer: it gets until the deadline (and a little).
    const answer = crashed ? null : await Promise.race([page.evaluate(LAB_COLLECT_SCRIPT).catch(() => null), delay(Math.max(0, deadline - Date.now()) + COLLECT_GRACE_MS, BUSY, { ref: false })]);
    signal.throwIfAborted();
    const raw = answer === BUSY ? null : readRawMetrics(answer);
    if (crashed) notes.push('the page crashed its renderer (most likely by using more memory than a page may): nothing could be measured');
    else if (answer === BUSY) notes.push(`the page's scripts kept it busy past the ${options.timeLimitMs} ms time limit: nothing could be read from it`);
    else if (raw === null) notes.push('the page could not be read once loaded: nothing could be measured');
    else if (waited === 'deadline' && raw.load !== null) notes.push(`the page was still busy (network or scripts) at the ${options.timeLimitMs} ms time limit; figures are as it stood then`);
    const measured = figures(raw, notes);
    const estimate = raw === null ? null : estimateLikeLighthouse(raw, document, network.served);
    const result = { ...measured, ...networkFacts(network, notes), estimate, durationMs: Date.now() - started, notes };
    onFigures(result);
    return result;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof ServiceError) throw error;
    // Before the page was given its URL, a failure is the browser's (or ours): the supervisor
    // restarts it. After it, a browser that still answers failed on this page alone.
    if (!navigated || !(await worker.responsive())) throw error;
    throw new ServiceError(422, 'lab_failed', 'The page could not be measured in the browser', { detail: firstLine(error), extra: { engine: 'chromium' }, cause: error });
  } finally {
    signal.removeEventListener('abort', stop);
    network.close();
    const closing = context?.close().catch(() => undefined);
    if (closing) await Promise.race([closing, delay(CLOSE_WAIT_MS, undefined, { ref: false })]);
    if (!signal.aborted) prepareSpareLabTab(worker.browser);
  }
}

type Figures = Pick<LabResult, 'fcpMs' | 'lcpMs' | 'cls' | 'tbtMs' | 'longTasks' | 'domContentLoadedMs' | 'loadMs' | 'lcpElement' | 'shiftedElements' | 'blockingScripts'>;

function figures(raw: RawLabMetrics | null, notes: string[]): Figures {
  if (raw === null) return { fcpMs: null, lcpMs: null, cls: 0, tbtMs: 0, longTasks: 0, domContentLoadedMs: null, loadMs: null, lcpElement: null, shiftedElements: [], blockingScripts: [] };
  if (raw.fcp === null) notes.push('the page painted no content: FCP and LCP are unknown, and TBT counts from navigation start');
  else if (raw.lcp === null) notes.push('no largest contentful paint was recorded');
  if (raw.dropped > 0) notes.push(`the page produced more than ${MAX_ENTRIES} layout shifts or long tasks; ${raw.dropped} were not counted`);
  const ms = (v: number | null): number | null => (v === null ? null : round(v, 1));
  const shiftWindow = largestShiftWindow(raw.shifts);
  return {
    fcpMs: ms(raw.fcp),
    lcpMs: ms(raw.lcp),
    cls: shiftWindow.value,
    tbtMs: totalBlockingTime(raw.longTasks, raw.fcp),
    longTasks: raw.longTasks.length,
    domContentLoadedMs: ms(raw.domContentLoaded),
    loadMs: ms(raw.load),
    lcpElement: raw.lcp === null ? null : { element: raw.lcpElement, url: raw.lcpUrl },
    shiftedElements: shiftWindow.elements,
    blockingScripts: raw.scripts.slice(0, 5).map(([script, time]) => ({ script, ms: Math.round(time) })),
  };
}

function networkFacts(network: LabNetwork, notes: string[]): Pick<LabResult, 'requests' | 'bytes' | 'blocked' | 'failed'> {
  if (network.limitsHit.has('requests')) notes.push('the page asked for more requests than a lab run may make; the rest were blocked');
  if (network.limitsHit.has('bytes')) notes.push('the page loaded more bytes than a lab run may; the rest were blocked');
  if (network.unlisted > 0) notes.push(`${network.unlisted} more blocked or failed requests are not listed`);
  return { requests: network.requests, bytes: network.bytes, blocked: [...network.blocked], failed: [...network.failed] };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
