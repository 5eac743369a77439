// One job's steps share one parse of its page. A playbook run on input.html analyses the page once
// per step (workflow-runner.ts: each step's analyzers in a call of their own, so the job keeps its
// per-step progress, cancellation and fair turns on the workers), and each call used to parse the
// same page again: on a 75 KB page the six seo-audit steps took ~16 ms, ~12 of them in six parses
// of ~2 ms. A worker now keeps the last parse it made for a call that named a parse key and hands
// it to the next call with that key, when the page and its URL are the very same strings.
//
// Nothing crosses jobs: the key is a random token a job makes for its own steps, so no account
// ever reuses (or could time) a parse made for another. Memory stays where it was: a call with
// another key, or none, lets the kept parse go before it parses its own page, so a worker never
// holds more than one page's tree; and a parse nobody asked for again is let go after IDLE_MS.
import type { HtmlDocument } from './html-document.ts';
import { parsePage } from './page-analysis.ts';
import type { PageFacts } from './page-facts.ts';

/** How long a kept parse waits for its job's next step (the steps of one job follow within milliseconds). */
export const IDLE_MS = 2000;

interface Kept {
  key: string;
  html: string;
  url: string;
  doc: HtmlDocument;
}

export class ParseReuse {
  #kept: Kept | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** how many parses were made and how many were handed on: for the tests */
  readonly counts = { parsed: 0, reused: 0 };

  /**
   * The parse of the page for a call with parse key `key` (null: a call that shares nothing).
   * Only HTML passed in (facts null) is kept: a fetched page's parse depends on its response.
   */
  parse(key: string | null, html: string, facts: PageFacts | null, url: string): HtmlDocument {
    const kept = this.#kept;
    if (key !== null && facts === null && kept !== null && kept.key === key && kept.html === html && kept.url === url) {
      this.counts.reused++;
      this.#keepAlive();
      return kept.doc;
    }
    // Let the old tree go before the new one is built: one page's tree at a time, as before.
    this.clear();
    const doc = parsePage(html, facts, url);
    this.counts.parsed++;
    if (key !== null && facts === null) {
      this.#kept = { key, html, url, doc };
      this.#keepAlive();
    }
    return doc;
  }

  /** Lets the kept parse go (a call that parses nothing of its own, or its time is up). */
  clear(): void {
    this.#kept = null;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #keepAlive(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    // Unref'd: a kept parse never holds a worker (or a test's process) open.
    this.#timer = setTimeout(() => this.clear(), IDLE_MS);
    this.#timer.unref();
  }
}
