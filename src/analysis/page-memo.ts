// The pages one job has fetched, for its later steps. A playbook run on input.url makes one
// catalog call per step, and each URL tool fetches the page it analyses: the seo-audit steps
// fetched the same page five times, which on the real web is a second or more of waiting for the
// same bytes. A job now hands each of its calls one PageMemo (workflow-runner.ts, through
// InvokeRequest.pages): the first plain GET of a page a tool analyses (fetchAndUse) is fetched as
// before and kept, and the job's later plain GETs of that URL (fetchAndUse, or a tool's own fetch,
// as the robots checker reads the page for its links) are given that response. Every step of the
// job then judges the same version of the page, too. A tool's side fetches (robots.txt, sitemaps,
// links, probes) read the memo but are never kept in it.
//
// What stays as it was: every call still holds its page slot while it uses the page (the
// fetcher's fetchAndUse), so the memo never lets more pages be analysed at once than the slots
// allow; it belongs to one job, so nothing fetched for one account reaches another; it makes no
// connection of its own; and it holds at most MAX_PAGES pages, for as long as the job runs.
import type { EgressFetchOptions } from './fetch-supervisor.ts';
import type { PageFacts } from './page-facts.ts';

/** Pages one job keeps: its steps read one page (a redirect's target, a second page, beyond that none is kept). */
export const MAX_PAGES = 3;

export class PageMemo {
  readonly #pages = new Map<string, PageFacts>();
  /** how many fetches the memo answered: for the tests */
  hits = 0;

  /**
   * The page a plain GET of `url` with these options fetched before in this job, as a copy of its
   * own (the analysis worker may take a body's memory); undefined when there is none, or when the
   * fetch is one the memo must not answer.
   */
  take(url: string | URL, options: EgressFetchOptions): PageFacts | undefined {
    const key = keyOf(url, options);
    const facts = key === undefined ? undefined : this.#pages.get(key);
    if (facts === undefined) return undefined;
    this.hits++;
    return { ...facts, body: ownCopy(facts.body) };
  }

  /** Keeps a copy of a page just fetched (before its first use, which may move its body away). */
  keep(url: string | URL, options: EgressFetchOptions, facts: PageFacts): void {
    const key = keyOf(url, options);
    if (key === undefined || this.#pages.size >= MAX_PAGES || this.#pages.has(key)) return;
    this.#pages.set(key, { ...facts, body: ownCopy(facts.body) });
  }
}

/**
 * The key of a fetch the memo may answer, or undefined for one it must not: anything but a plain
 * GET (a method, headers or a body of its own) is fetched every time. The limits that shape an
 * answer (its size cap, the redirects followed) are part of the key; the timeouts only decide
 * whether an answer comes, and a kept page has come.
 */
function keyOf(url: string | URL, options: EgressFetchOptions): string | undefined {
  if ((options.method !== undefined && options.method !== 'GET') || options.headers !== undefined || options.body !== undefined) return undefined;
  return JSON.stringify([String(url), options.limits?.maxBytes ?? null, options.limits?.maxRedirects ?? null]);
}

/**
 * A copy in memory of its own, exactly its size: what analysis-pool.ts moves to a worker rather
 * than copying again (Buffer.from may hand out a slice of a larger allocation).
 */
function ownCopy(body: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(body.byteLength);
  body.copy(copy);
  return copy;
}
