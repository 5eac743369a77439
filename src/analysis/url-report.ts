// What the analysis code needs of a URL tool's context, and the result most URL tools answer. They
// live here, below core/, so analysis never reads a tool definition; core/define-url-tool.ts builds
// the tool context from these.
import { z } from 'zod';
import type { Engines } from '../engines/index.ts';
import type { FetchLimits } from './fetcher.ts';
import { reportSchema, type Report } from './findings.ts';
import type { PageFacts } from './page-facts.ts';
import { reportToMarkdown } from './report-markdown.ts';

export interface FetchPageOptions {
  /** tighter limits for this fetch (a robots.txt, a linked page); never looser than the configured ones */
  limits?: Partial<FetchLimits>;
  /** GET (default), HEAD or OPTIONS */
  method?: 'GET' | 'HEAD' | 'OPTIONS';
  /** extra request headers (e.g. Origin for a CORS check); hop-by-hop and Host are not allowed */
  headers?: Record<string, string>;
}

/** The egress-safe fetcher as a tool sees it: one URL in, the facts of its response out. */
export type PageFetcher = (url: string, options?: FetchPageOptions) => Promise<PageFacts>;

/** The page access a URL tool gets: the fetcher bound to its account's slots and its call's signal. */
export interface PageAccess {
  fetchPage: PageFetcher;
  /** Fetches a page and runs `use` on it while it still holds its fetch slot (see EgressFetcher.fetchAndUse). */
  withPage<T>(url: string, use: (facts: PageFacts) => Promise<T>, options?: FetchPageOptions): Promise<T>;
  /** aborted when the call ends */
  signal: AbortSignal;
  /** the engines (lab mode loads pages in the warm Chromium); absent when the service runs without them */
  engines?: Engines;
}

/** The result most URL tools answer: where the fetch ended, and the report. */
export const urlReportResultSchema = z.object({
  url: z.string().describe('The URL asked for'),
  finalUrl: z.string().describe('Where it led, after redirects'),
  status: z.number().int().nullable().describe('HTTP status of the final response; null when nothing was fetched'),
  report: reportSchema,
});
export type UrlReportResult = z.infer<typeof urlReportResultSchema>;

/** Renders a result for format=markdown: a tool's own renderer, or the standard one for { finalUrl, report }. */
export type MarkdownRenderer = (result: unknown, title: string) => string;

export function standardMarkdown(result: unknown, title: string): string {
  const r = result as Partial<UrlReportResult>;
  if (!r || typeof r !== 'object' || !r.report) throw new Error('standardMarkdown needs a { finalUrl, report } result');
  return reportToMarkdown(title, r.finalUrl ?? r.url ?? '', r.report as Report);
}

