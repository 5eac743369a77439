// A URL tool: a catalog tool that reads the web through the egress-safe fetcher (or judges text a
// caller sends, such as a CSP) and answers a report of scores and findings. It is a JSON tool
// with two more things: `ctx.fetchPage`, the fetcher bound to the calling account's fetch slots
// and to the call's abort signal (tools never see the account), and a Markdown rendering of its
// result, which the REST surface serves for `format=markdown`. Its examples are pages: the
// examples suite serves each example's pages on loopback under their names and checks which
// rules fire and which pass, since a live fetch has timings no fixed output could match.
import { z } from 'zod';
import type { FetchLimits } from '../analysis/fetcher.ts';
import { reportSchema, type Report, type ScoreKey } from '../analysis/findings.ts';
import type { PageFacts } from '../analysis/page-facts.ts';
import { reportToMarkdown } from '../analysis/report-markdown.ts';
import type { Engines } from '../engines/index.ts';
import { defineTool, type HttpMethod, type ToolContext, type ToolDefinition, type ToolLimits, type ToolSpec } from './define-tool.ts';

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

export interface UrlToolContext extends ToolContext {
  fetchPage: PageFetcher;
  /** Fetches a page and runs `use` on it while it still holds its fetch slot (see EgressFetcher.fetchAndUse). */
  withPage<T>(url: string, use: (facts: PageFacts) => Promise<T>, options?: FetchPageOptions): Promise<T>;
  /** the engines (lab mode loads pages in the warm Chromium); absent when the service runs without them */
  engines?: Engines;
}

/** A page the examples suite serves: on the example's host (any port), http and https alike. */
export interface ExamplePage {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

export interface UrlToolExample<I> {
  /** Shown in the docs; also the name of the generated test. */
  title: string;
  /** URLs in it name hosts under example.com (http or https); the suite serves `pages` there. */
  input: I;
  /** absolute URL (as written in input) → the page served there; other URLs answer 404 */
  pages: Record<string, ExamplePage>;
  expect: {
    /** rules that must have at least one finding */
    fires?: readonly string[];
    /** rules that must be judged and pass */
    passes?: readonly string[];
    /** exact scores */
    scores?: Partial<Record<ScoreKey, number>>;
    /** fields of the result that must equal these (compared key by key, recursively) */
    result?: Record<string, unknown>;
  };
}

export interface UrlToolSpec<I extends z.ZodType, O extends z.ZodType> extends Omit<ToolSpec<I, O>, 'examples' | 'run' | 'method'> {
  /** GET with `url` unless said */
  method?: HttpMethod;
  examples: readonly UrlToolExample<z.input<I>>[];
  limits?: ToolLimits;
  /** For `format=markdown`; tools whose result is urlReportResultSchema get the standard one. */
  markdown?: (result: z.output<O>, title: string) => string;
  run(input: z.output<I>, ctx: UrlToolContext): Promise<z.output<O>> | z.output<O>;
}

/** The result most URL tools answer: where the fetch ended, and the report. */
export const urlReportResultSchema = z.object({
  url: z.string().describe('The URL asked for'),
  finalUrl: z.string().describe('Where it led, after redirects'),
  status: z.number().int().nullable().describe('HTTP status of the final response; null when nothing was fetched'),
  report: reportSchema,
});
export type UrlReportResult = z.infer<typeof urlReportResultSchema>;

/** The `url` field every GET URL tool takes. */
export const urlField = z
  .string()
  .min(1)
  .max(2048)
  .describe('The page to analyse: an absolute http or https URL (public addresses only)');

/** Renders a result for format=markdown: a tool's own renderer, or the standard one for { finalUrl, report }. */
export type MarkdownRenderer = (result: unknown, title: string) => string;

export function standardMarkdown(result: unknown, title: string): string {
  const r = result as Partial<UrlReportResult>;
  if (!r || typeof r !== 'object' || !r.report) throw new Error('standardMarkdown needs a { finalUrl, report } result');
  return reportToMarkdown(title, r.finalUrl ?? r.url ?? '', r.report as Report);
}

export function defineUrlTool<I extends z.ZodType, O extends z.ZodType>(spec: UrlToolSpec<I, O>): ToolDefinition<I, O> {
  const { examples, markdown, run, method, ...rest } = spec;
  const tool = defineTool<I, O>({
    ...rest,
    method: method ?? 'GET',
    examples: [],
    // The invoke path hands URL tools a UrlToolContext (see Invoker#run).
    run: run as unknown as ToolSpec<I, O>['run'],
  });
  return {
    ...tool,
    kind: 'url',
    urlExamples: examples as readonly UrlToolExample<unknown>[],
    markdown: (markdown as MarkdownRenderer | undefined) ?? standardMarkdown,
  };
}
