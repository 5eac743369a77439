// The lab page's only way out: every request it makes is caught by the context's route and
// answered from the egress-safe fetcher (the account's fetch slots, the egress rules, the size
// and time caps), or aborted and listed. The browser itself has no network (the engines' sandbox),
// so nothing the route does not serve can load. The fetcher follows redirects itself: the page's
// own document is fetched first and the browser sent to where it ended (so relative URLs resolve
// as they would for a visitor), and a redirected subresource is answered with its final bytes.
import type { Route, WebSocketRoute } from 'playwright-core';
import { isServiceError } from '../../core/errors.ts';
import type { PageFetcher } from '../url-report.ts';
import type { PageFacts } from '../page-facts.ts';
import type { LabRequestEntry } from './lab-result.ts';

export interface LabNetworkLimits {
  /** requests the page may make (default 200) */
  maxRequests: number;
  /** bytes all responses may add up to, decoded (default 20 MB) */
  maxBytes: number;
  /** fetches in flight at once: the account's fetch slots are shared with its other calls (default 4) */
  concurrency: number;
}

/** A response served to the page, as the estimate needs it. */
export interface LabServedRequest {
  /** the URL asked for, and the one the fetcher's redirects ended on */
  url: string;
  finalUrl: string;
  /** bytes on the wire */
  transferBytes: number;
  /** request sent to first byte, as the fetcher saw it: the server's own time on a near link */
  serverMs: number;
  redirects: number;
}

/** Resource types Lighthouse's wait counts as critical: one in flight keeps the network busy. */
const CRITICAL_TYPES = new Set(['document', 'stylesheet', 'script', 'font']);

export const DEFAULT_LAB_NETWORK_LIMITS: LabNetworkLimits = { maxRequests: 200, maxBytes: 20 * 1024 * 1024, concurrency: 4 };

/** Listed entries kept; the counts go on beyond them. */
const MAX_LISTED = 100;
const MAX_URL_CHARS = 500;

/** Response headers the route must not pass on: the body is already decoded and whole. */
const DROPPED_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'set-cookie']);

export class LabNetwork {
  /** requests served to the page (each fetch that answered) */
  requests = 0;
  /** fetches tried, refused ones included: what the request limit counts */
  private attempts = 0;
  bytes = 0;
  readonly blocked: LabRequestEntry[] = [];
  readonly failed: LabRequestEntry[] = [];
  /** requests the page asked for beyond MAX_LISTED in either list */
  unlisted = 0;
  /** set once a limit was reached, for the notes */
  readonly limitsHit = new Set<'requests' | 'bytes'>();
  /** requests being answered now */
  inflight = 0;
  /** Date.now() of the last request start or end */
  lastActivity = Date.now();
  /** what each served response cost on the wire, for the throttled estimate (lab-estimate.ts) */
  readonly served: LabServedRequest[] = [];
  /** documents, scripts, stylesheets and fonts being answered now */
  private inflightCritical = 0;
  /** Date.now() when the network last stopped being busy in Lighthouse's sense; null while busy */
  private idleSince: number | null = Date.now();
  private closed = false;
  private running = 0;
  private readonly queue: (() => void)[] = [];
  /** responses read ahead (the page's document), by URL, served once */
  private readonly preloaded = new Map<string, PageFacts>();
  private readonly fetchPage: PageFetcher;
  private readonly limits: LabNetworkLimits;

  constructor(fetchPage: PageFetcher, limits: LabNetworkLimits) {
    this.fetchPage = fetchPage;
    this.limits = limits;
  }

  /** The page's document, fetched before the browser was involved: served at its final URL, counted once. */
  preload(facts: PageFacts): void {
    this.attempts++;
    this.count(facts);
    this.preloaded.set(withoutFragment(facts.finalUrl), facts);
  }

  /** No more fetches: the run is over (late requests are aborted). */
  close(): void {
    this.closed = true;
    for (const start of this.queue.splice(0)) start();
  }

  /** The context's route handler for every http(s) and other request. */
  readonly handle = async (route: Route): Promise<void> => {
    const request = route.request();
    const url = request.url();
    const critical = CRITICAL_TYPES.has(request.resourceType());
    this.inflight++;
    if (critical) this.inflightCritical++;
    this.activity();
    try {
      const refusal = this.refusal(url, request.method());
      if (refusal !== null) {
        this.list(this.blocked, url, refusal);
        await route.abort('blockedbyclient');
        return;
      }
      const facts = await this.obtain(url);
      if (facts === null) {
        await route.abort('failed');
        return;
      }
      await route.fulfill({ status: facts.status, headers: passedHeaders(facts.headers), body: facts.body });
    } catch {
      // The page or the context went away while this request was answered: nothing to do.
    } finally {
      this.inflight--;
      if (critical) this.inflightCritical--;
      this.activity();
    }
  };

  /**
   * How long the network has been quiet as Lighthouse's gather counts it: at most 2 requests in
   * flight (a long poll or a slow beacon does not hold the run) and none of them critical
   * (document, script, stylesheet, font). 0 while busy.
   */
  quietFor(now = Date.now()): number {
    return this.idleSince === null ? 0 : Math.max(0, now - this.idleSince);
  }

  private activity(): void {
    const now = Date.now();
    this.lastActivity = now;
    const busy = this.inflight > 2 || this.inflightCritical > 0;
    if (busy) this.idleSince = null;
    else this.idleSince ??= now;
  }

  /** Websockets never reach anything: closed at once and listed. */
  readonly handleWebSocket = (ws: WebSocketRoute): void => {
    this.list(this.blocked, ws.url(), 'websockets are not opened by the lab');
    void ws.close({ code: 1008, reason: 'blocked by the lab' }).catch(() => undefined);
  };

  private refusal(url: string, method: string): string | null {
    if (this.closed) return 'the lab run was over';
    if (!/^https?:/i.test(url)) return `the scheme ${url.split(':')[0] ?? ''} is not fetched (http and https only)`;
    if (method !== 'GET' && method !== 'HEAD') return `${method} requests are not sent (the lab only reads: GET and HEAD)`;
    if (this.preloaded.has(withoutFragment(url))) return null;
    if (this.attempts >= this.limits.maxRequests) {
      this.limitsHit.add('requests');
      return `beyond the ${this.limits.maxRequests} requests a lab run may make`;
    }
    if (this.bytes >= this.limits.maxBytes) {
      this.limitsHit.add('bytes');
      return `beyond the ${this.limits.maxBytes} bytes a lab run may load`;
    }
    return null;
  }

  /** The facts for a URL: the preloaded document, or a fetch. */
  private async obtain(url: string): Promise<PageFacts | null> {
    const known = this.preloaded.get(withoutFragment(url));
    if (known !== undefined) {
      this.preloaded.delete(withoutFragment(url));
      return known;
    }
    this.attempts++;
    await this.slot();
    try {
      if (this.closed) throw new Error('the lab run was over');
      const facts = await this.fetchPage(url, { limits: { maxBytes: Math.max(1024, this.limits.maxBytes - this.bytes) } });
      this.count(facts);
      return facts;
    } catch (error) {
      const refusedByRules = isServiceError(error) && (error.error === 'url_not_allowed' || error.error === 'invalid_url');
      this.list(refusedByRules ? this.blocked : this.failed, url, reasonOf(error));
      return null;
    } finally {
      this.release();
    }
  }

  private count(facts: PageFacts): void {
    this.requests++;
    this.bytes += facts.transferBytes;
    if (this.served.length < this.limits.maxRequests) {
      this.served.push({
        url: withoutFragment(facts.requestedUrl),
        finalUrl: withoutFragment(facts.finalUrl),
        transferBytes: facts.transferBytes,
        serverMs: facts.timings.ttfbMs ?? 0,
        redirects: facts.redirects.length,
      });
    }
  }

  private slot(): Promise<void> {
    if (this.running < this.limits.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(() => {
      this.running++;
      resolve();
    }));
  }

  private release(): void {
    this.running--;
    this.queue.shift()?.();
  }

  private list(into: LabRequestEntry[], url: string, reason: string): void {
    if (into.length >= MAX_LISTED) {
      this.unlisted++;
      return;
    }
    into.push({ url: url.length > MAX_URL_CHARS ? `${url.slice(0, MAX_URL_CHARS)}…` : url, reason });
  }
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

function passedHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!DROPPED_HEADERS.has(name)) out[name] = value;
  return out;
}

function reasonOf(error: unknown): string {
  if (isServiceError(error)) return `${error.error}: ${error.detail}`;
  return error instanceof Error ? error.message : String(error);
}
