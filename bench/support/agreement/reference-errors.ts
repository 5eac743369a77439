/**
 * Where a reference tool is wrong on this corpus: each entry names the page (or header set) and
 * why, and the bench leaves exactly these out of the figure they would distort, printing them.
 * Nothing is left out silently.
 */

/** Pages whose Lighthouse SEO score is left out of the SEO Pearson and the below-70 list. */
export const LIGHTHOUSE_SEO_WRONG: Record<string, string> = {
  'shop-404':
    'Lighthouse 13.5 stops on an error status (runtime error ERRORED_DOCUMENT_REQUEST) and scores nothing, so there is no figure to compare (older Lighthouse, as the issue saw, scored such a page 92+ with only http-status-code failing at weight 1); an error page cannot rank, and our seo-audit job fails it (page_error).',
  'shop-500':
    'as the 404: Lighthouse 13.5 gives no score for a 500 page (ERRORED_DOCUMENT_REQUEST); our job fails it (page_error).',
  'unavailable-after-past':
    'X-Robots-Tag: unavailable_after: 2025-06-25T15:00:00+00:00 (an ISO 8601 date, one of the formats Google documents) is in the past, so Google drops the page; Lighthouse\'s is-crawlable splits the directive on ":" and Date.parse()s the rest with its leading space (" 2025-06-25t15:00:00+00:00"), which is NaN, so it passes the page with 100. The RFC 822 form (page unavailable-after-rfc822) it reads.',
};

/** Per Lighthouse audit, pages where its verdict is wrong: left out of "Lighthouse fails it and we are silent". */
export const LIGHTHOUSE_AUDIT_WRONG: Record<string, Record<string, string>> = {
  'is-crawlable': { 'unavailable-after-past': 'Lighthouse passes it: an ISO 8601 unavailable_after date is NaN to its parser (see the SEO list).' },
};

/** Pages whose Lighthouse performance score is left out of the lab and proxy Pearson figures. */
export const LIGHTHOUSE_PERF_WRONG: Record<string, string> = {
  // perf-slow-ttfb is not left out: Lighthouse scores it 97-99 on some runs (its simulation gives
  // every request of an origin the median server time of that origin's requests, so one slow
  // document among fast assets looks fast) and 79 on others; the bench compares the median of its
  // runs, which on a quiet machine agrees with ours (79-80). Its runs are printed beside it.
};

/** Header sets where the Observatory's live scan contradicts its own published rules. */
export const OBSERVATORY_WRONG: Record<string, string> = {
  'cors-echo':
    'its CORS test reads the Origin it sent from response.request.headers (src/analyzer/tests/cors.js), but axios on Node puts a ClientRequest there, which has no headers property: the Origin is never seen, so an echoed Origin with credentials can never be "universal access" (-50, src/grader/charts.js) and the scan grades the set as if it were restricted. We apply the -50 its charts say.',
};
