// The warm browser a Chromium job runs on, and the tabs it keeps ready: apart from the engine
// (chromium.ts), which launches the browser and renders each job, since this is the worker's own
// state (its spare tabs, the round trip that proves it alive) and nothing of any one job.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { EngineWorker } from './engine-types.ts';

/** The document's own address; nothing else is ever answered. */
const DOCUMENT_URL = 'http://document.invalid/';

/** The empty document a tab holds at DOCUMENT_URL until a job writes its HTML into it. */
const EMPTY_DOCUMENT = '<!doctype html><html><head></head><body></body></html>';

/**
 * A context with its route and an open tab at DOCUMENT_URL, made ahead of time: a new tab costs a
 * renderer start, and its first navigation a round of request interception and a commit. A job
 * then only writes its HTML into the document (setContent, a document.open/write/close): no
 * navigation, no request. The route serves the empty document to that first navigation alone and
 * aborts everything else, this tab's later requests to DOCUMENT_URL included.
 */
export interface PreparedTab {
  context: BrowserContext;
  tab: Page;
}

async function prepareTab(browser: Browser, javascript: boolean): Promise<PreparedTab> {
  const context = await browser.newContext({ javaScriptEnabled: javascript, serviceWorkers: 'block', acceptDownloads: false });
  let served = false;
  try {
    await context.route('**/*', async (route) => {
      const request = route.request();
      if (!served && request.url() === DOCUMENT_URL && request.isNavigationRequest() && request.frame().parentFrame() === null) {
        served = true;
        await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: EMPTY_DOCUMENT });
      } else {
        await route.abort('blockedbyclient');
      }
    });
    const tab = await context.newPage();
    await tab.goto(DOCUMENT_URL, { waitUntil: 'load' });
    return { context, tab };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/** How long a live browser may take to answer a round trip before it counts as dead. */
const RESPONSIVE_TIMEOUT_MS = 5000;

export class ChromiumBrowser implements EngineWorker {
  readonly browser: Browser;
  /** the browser's own DevTools session, for round trips that prove it is alive */
  private readonly session: CDPSession;
  private connected = true;
  private readonly gone: Promise<false>;
  private readonly spares: Promise<PreparedTab | null>[] = [];
  private readonly spareCount: number;

  constructor(browser: Browser, session: CDPSession, spareCount: number) {
    this.browser = browser;
    this.session = session;
    this.spareCount = spareCount;
    this.gone = new Promise((resolve) => {
      browser.on('disconnected', () => {
        this.connected = false;
        resolve(false);
      });
    });
    this.refill();
  }

  alive(): boolean {
    return this.connected && this.browser.isConnected();
  }

  /**
   * Whether the browser itself still answers. A job that failed asks this before blaming its
   * document: a dying browser fails its pages before it reports its own end, so alive() alone
   * could still say yes.
   */
  async responsive(): Promise<boolean> {
    if (!this.alive()) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), RESPONSIVE_TIMEOUT_MS);
    });
    try {
      const answered = this.session.send('Browser.getVersion').then(
        () => true,
        () => false,
      );
      return (await Promise.race([answered, this.gone, late])) && this.alive();
    } finally {
      clearTimeout(timer);
    }
  }

  /** A fresh context and tab, from the spares when the job allows scripts (the default). */
  async take(javascript: boolean): Promise<PreparedTab> {
    if (javascript) {
      const spare = this.spares.shift();
      const prepared = spare ? await spare : null;
      if (prepared) return prepared;
    }
    return prepareTab(this.browser, javascript);
  }

  /**
   * Makes new spares once a job is done: starting a renderer costs CPU, and doing it while a job
   * renders would slow that job down.
   */
  refill(): void {
    while (this.alive() && this.spares.length < this.spareCount) {
      this.spares.push(prepareTab(this.browser, true).catch(() => null));
    }
  }

  async stop(): Promise<void> {
    this.connected = false;
    // close() kills the browser process if it does not exit by itself.
    await Promise.race([this.browser.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  }
}
