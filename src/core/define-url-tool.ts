// A URL tool: a catalog tool that reads the web through the egress-safe fetcher (or judges text a
// caller sends, such as a CSP) and answers a report of scores and findings. It is a JSON tool
// with two more things: `ctx.fetchPage`, the fetcher bound to the calling account's fetch slots
// and to the call's abort signal (tools never see the account), and a Markdown rendering of its
// result, which the REST surface serves for `format=markdown`. Its examples are pages: the
// examples suite serves each example's pages on loopback under their names and checks which
// rules fire and which pass, since a live fetch has timings no fixed output could match.
import { z } from 'zod';
import type { ScoreKey } from '../analysis/findings.ts';
import type { Analyzer } from '../analysis/scoring.ts';
import { standardMarkdown, type MarkdownRenderer, type PageAccess } from '../analysis/url-report.ts';

export {
  standardMarkdown,
  urlReportResultSchema,
  type FetchPageOptions,
  type MarkdownRenderer,
  type PageAccess,
  type PageFetcher,
  type UrlReportResult,
} from '../analysis/url-report.ts';
import { defineTool, type HttpMethod, type ToolContext, type ToolDefinition, type ToolLimits, type ToolSpec } from './define-tool.ts';

export interface UrlToolContext extends ToolContext, PageAccess {}

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
  /** The analyzers that make the whole report from the page's HTML alone, when that is so (see ToolDefinition.htmlAnalyzers). */
  htmlAnalyzers?: readonly Analyzer[];
  /** For `format=markdown`; tools whose result is urlReportResultSchema get the standard one. */
  markdown?: (result: z.output<O>, title: string) => string;
  run(input: z.output<I>, ctx: UrlToolContext): Promise<z.output<O>> | z.output<O>;
}

/** The `url` field every GET URL tool takes. */
export const urlField = z
  .string()
  .min(1)
  .max(2048)
  .describe('The page to analyse: an absolute http or https URL (public addresses only)');

export function defineUrlTool<I extends z.ZodType, O extends z.ZodType>(spec: UrlToolSpec<I, O>): ToolDefinition<I, O> {
  const { examples, markdown, run, method, htmlAnalyzers, ...rest } = spec;
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
    ...(htmlAnalyzers === undefined ? {} : { htmlAnalyzers }),
  };
}
