// Broken-links checker: fetch a page, then every link, stylesheet, image and script it references
// (deduplicated, capped), HEAD first and GET when HEAD is refused, at most 4 at a time within the
// account's own fetch slots, and judge the outcomes with the broken-links analyzer.
import { z } from 'zod';
import { defineUrlTool, urlField, urlReportResultSchema, type PageFetcher } from '../../core/define-url-tool.ts';
import { extractLinks, judgeLinks, outcomeFromError, outcomeFromFacts, type LinkOutcome, type LinkTarget } from '../../analysis/analyzers/broken-links.ts';
import { parseHtml } from '../../analysis/html-document.ts';
import { isHtmlResponse, pageNotes } from '../../analysis/page-analysis.ts';

const PARALLEL = 4;
const LINK_LIMITS = { maxBytes: 256 * 1024, totalTimeoutMs: 6000, connectTimeoutMs: 4000, maxRedirects: 5 };
/** No new link is started after this much of the tool's time: the page fetch (15 s) and the last HEAD+GET (2 x 6 s) still fit in TIMEOUT_MS. */
const START_BUDGET_MS = 40_000;
const TIMEOUT_MS = 60_000;

/** GET query values arrive as text; true/false as words or JSON booleans. */
const booleanField = z.union([z.boolean(), z.enum(['true', 'false'])]).transform((v) => v === true || v === 'true');

export async function checkLink(fetchPage: PageFetcher, url: string): Promise<LinkOutcome> {
  let head: LinkOutcome;
  try {
    head = outcomeFromFacts(url, await fetchPage(url, { method: 'HEAD', limits: LINK_LIMITS }), 'HEAD');
  } catch (error) {
    head = outcomeFromError(error, 'HEAD');
  }
  // Servers that do not implement HEAD say so with 405 or 501; GET is the real answer then.
  if (head.status !== 405 && head.status !== 501) return head;
  try {
    return outcomeFromFacts(url, await fetchPage(url, { limits: LINK_LIMITS }), 'GET');
  } catch (error) {
    return outcomeFromError(error, 'GET');
  }
}

const page = (body: string) => `<!doctype html><html lang="en"><head><title>Shoes</title><link rel="stylesheet" href="/style.css"></head><body>${body}</body></html>`;
const OK = { body: 'ok' };

export const brokenLinksCheckerTool = defineUrlTool({
  family: 'seo-apis',
  slug: 'broken-links-checker',
  title: 'Broken links checker',
  description:
    'Fetches a page and checks every <a href>, stylesheet <link href>, <img src> and <script src> on it (deduplicated; mailto:, tel:, ' +
    'javascript:, data: and fragment-only links not fetched), up to maxLinks, with a HEAD request (GET when HEAD answers 405 or 501), at most 4 ' +
    'at a time. Each link is ok, redirect (with its final URL), broken (4xx/5xx or unreachable), refused (a private or disallowed address, ' +
    'never fetched) or failed (the fetch phase). Findings: broken internal link (high), broken external link (medium), broken image, script ' +
    'or stylesheet (high), internal link through a redirect (low), link to a private address (medium), links a crawler cannot follow (crawlable-anchors: javascript:, onclick-only). ' +
    'details.links lists every checked link with its outcome, status and the elements pointing to it; links over the cap are listed in ' +
    'details.notChecked; details.notFollowable counts the unfollowable ones.',
  aliases: ['dead link checker', 'link checker', '404 checker', 'broken image checker', 'link validator'],
  credits: 5,
  input: z.object({
    url: urlField,
    maxLinks: z.coerce.number().int().min(1).max(100).default(50).describe('How many distinct links to check, in document order (1-100, default 50); the rest are listed as not checked'),
    includeExternal: booleanField.default(true).describe('Check links to other sites too (default true); false checks only links on the page\'s own host'),
  }),
  output: urlReportResultSchema,
  limits: { timeoutMs: TIMEOUT_MS },
  examples: [
    {
      title: 'Every link, image, script and stylesheet works',
      input: { url: 'https://example.com/shoes' },
      pages: {
        'https://example.com/shoes': { body: page('<a href="/shoes/trail">Trail</a> <a href="https://rival.example.com/">Rival</a> <img src="https://cdn.example.com/a.png" alt="A"><script src="/app.js"></script> <a href="mailto:shop@example.com">Mail</a>') },
        'https://example.com/shoes/trail': OK,
        'https://rival.example.com/': OK,
        'https://cdn.example.com/a.png': OK,
        'https://example.com/app.js': OK,
        'https://example.com/style.css': OK,
      },
      expect: {
        scores: { seo: 100, 'best-practices': 100, overall: 100 },
        passes: ['broken-link-internal', 'broken-link-external', 'broken-resource', 'redirected-internal-link', 'link-to-private-address', 'crawlable-anchors'],
        result: { report: { details: { checked: 5, skipped: 1, notFollowable: 0, outcomes: { ok: 5, redirect: 0, broken: 0, refused: 0, failed: 0 } } } },
      },
    },
    {
      title: 'Links whose destination is only in a script: a javascript: href and an onclick without href',
      input: { url: 'https://example.com/news' },
      pages: {
        'https://example.com/news': {
          body: page('<a href="/news/storm">Storm closes the harbour</a> <a href="javascript:void(0)" onclick="location.href=\'/news?page=2\'">More stories</a> <a onclick="openLive()">Live blog</a>'),
        },
        'https://example.com/news/storm': OK,
        'https://example.com/style.css': OK,
      },
      expect: {
        fires: ['crawlable-anchors'],
        passes: ['broken-link-internal', 'broken-resource'],
        result: { report: { details: { checked: 2, skipped: 1, notFollowable: 2 } } },
      },
    },
    {
      title: 'A missing page, a dead external link, a missing image, a redirect and a private address',
      input: { url: 'https://example.com/deals', maxLinks: 10 },
      pages: {
        'https://example.com/deals': {
          body: page('<a href="/old-deals">Old</a> <a href="/moved">Moved</a> <a href="https://rival.example.com/gone">Rival</a> <img src="/missing.png" alt="x"> <a href="http://192.168.1.1/admin">Router</a>'),
        },
        'https://example.com/moved': { status: 301, headers: { location: 'https://example.com/new' }, body: '' },
        'https://example.com/new': OK,
        'https://example.com/style.css': OK,
        'https://rival.example.com/gone': { status: 500, body: 'error' },
      },
      expect: {
        fires: ['broken-link-internal', 'broken-link-external', 'broken-resource', 'redirected-internal-link', 'link-to-private-address'],
        result: { report: { details: { checked: 6, outcomes: { ok: 1, redirect: 1, broken: 3, refused: 1, failed: 0 } } } },
      },
    },
  ],
  async run({ url, maxLinks, includeExternal }, ctx) {
    const started = Date.now();
    const facts = await ctx.fetchPage(url);
    const notes = pageNotes(facts);
    const doc = parseHtml(isHtmlResponse(facts) ? facts.text : '', facts.finalUrl);
    notes.push(...doc.notes);
    const { links, skipped, unfollowable } = extractLinks(doc, facts.finalUrl);
    const eligible = includeExternal ? links : links.filter((l) => l.internal);
    if (!includeExternal && eligible.length < links.length) notes.push(`${links.length - eligible.length} links to other sites were left out (includeExternal=false)`);
    const queue = eligible.slice(0, maxLinks);
    const notChecked: LinkTarget[] = eligible.slice(maxLinks);
    const results: ({ link: LinkTarget; outcome: LinkOutcome } | undefined)[] = new Array(queue.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < queue.length) {
        const i = next++;
        const link = queue[i] as LinkTarget;
        if (Date.now() - started > START_BUDGET_MS) {
          notChecked.push(link);
          continue;
        }
        results[i] = { link, outcome: await checkLink(ctx.fetchPage, link.url) };
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
    const checked = results.filter((r) => r !== undefined);
    return { url, finalUrl: facts.finalUrl, status: facts.status, report: judgeLinks({ checked, notChecked, skipped, notes, unfollowable }) };
  },
});
