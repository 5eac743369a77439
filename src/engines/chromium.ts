// HTML to PDF on one long-lived Chromium (playwright-core driving Debian's /usr/bin/chromium).
// Each job gets a fresh browser context whose tab already holds an empty document at a fake
// origin (served once by a route, when the tab is made ahead of time); the job's HTML is written
// into that document (setContent), and every request the page makes is aborted. The browser runs
// in the shared sandbox of the engines (chromium-launcher.ts): a minimal environment, and when
// bubblewrap works here no network and none of the host's files but its own folder; else a
// network namespace when possible.
// Scripts run, bounded by the job's time limit and a per-page memory limit. What one document
// does to its page stays with its own job: a crashed renderer, an unprintable page size or a hung
// script is that job's 422 (or its timeout), and the shared browser is only restarted when it has
// really died; other callers' jobs caught in such a death get one retry on the fresh browser.
// The warm browser and its spare tabs are in chromium-browser.ts; this file launches it and renders.
import { rm } from 'node:fs/promises';
import { writeNewFile } from '../files/engine-output.ts';
import os from 'node:os';
import { z } from 'zod';
import { ServiceError } from '../core/errors.ts';
import { checkCssPageSide, isCrashMessage, largestCssPageSidePx, renderFailed, rendererCrashed } from './chromium-failures.ts';
import { resolvePage, type PageOptions, type ResolvedPage } from './page.ts';
import { defineEngine } from './engine-definition.ts';
import { writeChromiumLauncher, type ChromiumLauncher } from './chromium-launcher.ts';
import { findProgram, runProcess } from './process.ts';
import { minimalEnv } from './sandbox.ts';
import { EngineSupervisor, stderrLogger, type EngineLogger, type EngineProbe, type EngineStatus } from './supervisor.ts';
import { ChromiumBrowser, type PreparedTab } from './chromium-browser.ts';

export interface ChromiumOptions {
  /** the browser program (default /usr/bin/chromium, then chromium on PATH) */
  executablePath?: string;
  /** jobs run at once in the one browser (default 2) */
  concurrency?: number;
  maxQueued?: number;
  /** per-job limit in ms (default 30 s) */
  jobTimeoutMs?: number;
  /** restart the browser after this many jobs (default 500) */
  maxJobsPerBrowser?: number;
  /** run the browser in a network namespace without interfaces when possible (default true) */
  isolateNetwork?: boolean;
  /**
   * Filesystem sandbox: 'auto' (default) uses bubblewrap when it works here, 'bwrap' requires it,
   * 'none' never uses it (the browser still gets the minimal environment).
   */
  sandbox?: 'auto' | 'bwrap' | 'none';
  /** script heap one page may use, in MB (default 512); beyond it the page crashes, not the browser */
  rendererHeapMb?: number;
  /** data memory any one browser process (each renderer) may map, in MB (default 4096) */
  processMemoryMb?: number;
  logger?: EngineLogger;
}

export interface HtmlToPdfOptions {
  html: string | Buffer;
  /** page size, orientation, margins; without a size the document's CSS @page decides (else A4) */
  page?: PageOptions;
  /** run the document's scripts (default true; they are bounded by the job's time limit) */
  javascript?: boolean;
  /** print CSS backgrounds (default true) */
  printBackground?: boolean;
  /** also write the PDF there */
  outputPath?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-dev-shm-usage',
  '--mute-audio',
  '--no-pings',
  '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider',
];

/** Waits for the document's fonts (a page that broke document.fonts is printed as it is). */
const AFTER_FONTS = '(async () => { try { await document.fonts.ready; } catch {} return 0; })()';
/** The same, then the largest side its CSS @page rules ask for (checked before printing). */
const AFTER_FONTS_PAGE_SIDE = `(async () => { try { await document.fonts.ready; } catch {} return (${largestCssPageSidePx.toString()})(); })()`;

export class ChromiumEngine {
  readonly supervisor: EngineSupervisor<ChromiumBrowser>;
  private readonly options: ChromiumOptions;
  private readonly logger: EngineLogger;
  private executable: string | null = null;
  /** written once, at the first launch, and used by every browser after it */
  private launcher: Promise<ChromiumLauncher> | null = null;
  private readonly heapMb: number;
  private readonly processMemoryMb: number;
  private launched = 0;

  constructor(options: ChromiumOptions = {}) {
    this.options = options;
    this.logger = options.logger ?? stderrLogger;
    this.heapMb = Math.max(64, Math.round(options.rendererHeapMb ?? 512));
    // A renderer maps some 650 MB of data before it runs anything, and the script heap comes on top.
    this.processMemoryMb = Math.max(this.heapMb + 1024, Math.round(options.processMemoryMb ?? 4096));
    const concurrency = Math.max(1, options.concurrency ?? 2);
    this.supervisor = new EngineSupervisor<ChromiumBrowser>({
      name: 'chromium',
      label: 'Chromium',
      probe: () => this.probe(),
      start: () => this.launch(concurrency + 1),
      workers: 1,
      jobsPerWorker: concurrency,
      maxQueued: options.maxQueued ?? 16,
      jobTimeoutMs: options.jobTimeoutMs ?? 30_000,
      maxJobsPerWorker: options.maxJobsPerBrowser ?? 500,
      onTimeout: 'abort',
      graceMs: 3000,
      logger: this.logger,
    });
  }

  /** Browsers started so far: a restart shows as a new one. */
  get launches(): number {
    return this.launched;
  }

  /**
   * Renders HTML to PDF bytes; no request leaves the page but the document's own. A job caught
   * in a real death of the browser runs once more on the fresh one: it was some other document
   * (or the machine) that killed it, and one retry is all it gets, so nothing can loop.
   */
  async htmlToPdf(options: HtmlToPdfOptions): Promise<Buffer> {
    const page = resolvePage(options.page);
    const html = typeof options.html === 'string' ? options.html : options.html.toString('utf8');
    const runOptions: { signal?: AbortSignal; timeoutMs?: number } = {};
    if (options.signal) runOptions.signal = options.signal;
    if (options.timeoutMs !== undefined) runOptions.timeoutMs = options.timeoutMs;
    const first = { browserDied: false };
    let pdf: Buffer;
    try {
      pdf = await this.supervisor.run((worker, { signal }) => this.render(worker, signal, html, page, options, first), runOptions);
    } catch (error) {
      const retry = first.browserDied && error instanceof ServiceError && error.status === 503 && !options.signal?.aborted;
      if (!retry) throw error;
      this.logger.warn({ engine: 'chromium' }, 'the browser died under a job; running it once more on a fresh browser');
      pdf = await this.supervisor.run((worker, { signal }) => this.render(worker, signal, html, page, options, { browserDied: false }), runOptions);
    }
    if (options.outputPath) await writeNewFile(options.outputPath, pdf);
    return pdf;
  }

  /**
   * One attempt on one browser. Failures are sorted here, because the supervisor restarts the
   * browser on any error that is not a ServiceError: a failure of the document's own page while
   * the browser still answers becomes that job's 422, and only a browser that no longer answers
   * (or a step of ours that failed) is left as a plain error for the supervisor to restart.
   */
  private async render(
    worker: ChromiumBrowser,
    signal: AbortSignal,
    html: string,
    page: ResolvedPage | null,
    options: HtmlToPdfOptions,
    attempt: { browserDied: boolean },
  ): Promise<Buffer> {
    let prepared: PreparedTab | null = null;
    let documentGiven = false;
    let crashed = false;
    // Closing the context tears its renderer down from the browser's side, so even a page stuck
    // in an endless script stops at once and the job settles well within the supervisor's grace.
    const closeContext = (): void => {
      void prepared?.context.close().catch(() => undefined);
    };
    signal.addEventListener('abort', closeContext, { once: true });
    try {
      prepared = await worker.take(options.javascript ?? true);
      if (signal.aborted) throw signal.reason;
      const { tab } = prepared;
      tab.once('crash', () => {
        crashed = true;
      });
      documentGiven = true;
      tab.setDefaultTimeout((options.timeoutMs ?? this.options.jobTimeoutMs ?? 30_000) + 1000);
      // 'load': images and styles (data: URLs, the only ones that load) are in before printing.
      await tab.setContent(html, { waitUntil: 'load' });
      // Web fonts, then (without page options) the CSS page size, in one round trip.
      // A failure waiting for fonts alone is not the document's failure (as before: it prints).
      const sidePx = Number(await (page ? tab.evaluate(AFTER_FONTS).catch(() => 0) : tab.evaluate(AFTER_FONTS_PAGE_SIDE)));
      const pdfOptions: Parameters<typeof tab.pdf>[0] = { printBackground: options.printBackground ?? true };
      if (page) {
        pdfOptions.width = `${page.widthMm}mm`;
        pdfOptions.height = `${page.heightMm}mm`;
        const [top, right, bottom, left] = page.marginsMm ?? [10, 10, 10, 10];
        pdfOptions.margin = { top: `${top}mm`, right: `${right}mm`, bottom: `${bottom}mm`, left: `${left}mm` };
      } else {
        // The document's CSS decides the page size here, so it is bounded before printing.
        checkCssPageSide(sidePx);
        pdfOptions.format = 'A4';
        pdfOptions.preferCSSPageSize = true;
        pdfOptions.margin = { top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' };
      }
      return await tab.pdf(pdfOptions);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof ServiceError) throw error;
      if (!(await worker.responsive())) {
        attempt.browserDied = true;
        throw error;
      }
      if (!documentGiven) throw error;
      if (crashed || isCrashMessage(error)) throw rendererCrashed({ heapMb: this.heapMb, processMemoryMb: this.processMemoryMb }, error);
      throw renderFailed(error);
    } finally {
      signal.removeEventListener('abort', closeContext);
      // Closing takes a round trip; the answer does not need to wait for it.
      void prepared?.context.close().catch(() => undefined);
      setImmediate(() => worker.refill());
    }
  }

  status(): Promise<EngineStatus> {
    return this.supervisor.status();
  }

  warm(): Promise<void> {
    return this.supervisor.warm();
  }

  availability(): Promise<EngineProbe> {
    return this.supervisor.probe();
  }

  async close(): Promise<void> {
    await this.supervisor.close();
    const launcher = await this.launcher?.catch(() => null);
    if (launcher) await rm(launcher.dir, { recursive: true, force: true });
  }

  private async probe(): Promise<EngineProbe> {
    const candidates = this.options.executablePath ? [this.options.executablePath] : ['/usr/bin/chromium', 'chromium', 'chromium-browser'];
    for (const candidate of candidates) {
      const found = await findProgram(candidate);
      if (found) {
        this.executable = found;
        break;
      }
    }
    if (this.executable === null) return { ok: false, missing: 'chromium (Debian package chromium)' };
    try {
      await import('playwright-core');
    } catch {
      return { ok: false, missing: 'playwright-core (npm package)' };
    }
    const result = await runProcess(this.executable, ['--version'], { env: minimalEnv(os.tmpdir()), signal: AbortSignal.timeout(20_000) }).catch(() => null);
    const match = /(\d+\.\d+\.\d+\.\d+)/.exec(result?.stdout.toString('utf8') ?? '');
    return { ok: true, version: match?.[1] ?? 'unknown' };
  }

  private async launch(spares: number): Promise<ChromiumBrowser> {
    const { chromium } = await import('playwright-core');
    this.launcher ??= writeChromiumLauncher({
      executable: this.executable!,
      processMemoryMb: this.processMemoryMb,
      isolateNetwork: this.options.isolateNetwork !== false,
      sandbox: this.options.sandbox ?? 'auto',
      logger: this.logger,
    });
    // A launcher that could not be written is tried again at the next start.
    const launcher = await this.launcher.catch((error: unknown) => {
      this.launcher = null;
      throw error;
    });
    const browser = await chromium.launch({
      executablePath: launcher.executablePath,
      headless: true,
      // V8's heap limit applies to each renderer: a page that outgrows it crashes alone.
      args: [...LAUNCH_ARGS, `--js-flags=--max-old-space-size=${this.heapMb}`],
      timeout: 60_000,
      // Never the server's environment: it holds secrets (signing secret, SMTP password).
      env: launcher.env,
    });
    try {
      const session = await browser.newBrowserCDPSession();
      this.launched++;
      return new ChromiumBrowser(browser, session, spares);
    } catch (error) {
      await browser.close().catch(() => undefined);
      throw error;
    }
  }
}

export const chromiumEngine = defineEngine({
  name: 'chromium',
  label: 'Chromium',
  credits: 3,
  settings: z.object({
    CHROMIUM_PROGRAM: z.string().min(1).default('/usr/bin/chromium').describe('the Chromium program, a path or a name on PATH'),
  }),
  fromSettings: (s): ChromiumOptions => ({ executablePath: s.CHROMIUM_PROGRAM }),
  create: (options) => new ChromiumEngine(options),
});
