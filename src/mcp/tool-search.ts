// discover_tools' search: the catalog ranked for a few words, so an agent finds the one operation it
// needs without reading a hundred schemas (the search -> schema -> execute pattern). Pure: the
// catalog's own metadata (title, aliases, slug, family, description) is all it reads.
import type { AnyTool } from '../core/define-tool.ts';

export interface ToolSummary {
  operationId: string;
  family: string;
  title: string;
  /** the description's first sentence, at most 200 characters */
  summary: string;
  credits: number;
  /** json: fields in, result out; file: a file in, a download link out; url: reads a web page */
  kind: AnyTool['kind'];
  method: AnyTool['method'];
}

export interface SearchPage {
  tools: ToolSummary[];
  total: number;
  page: number;
  pageSize: number;
  /** the next page's number, or null on the last */
  nextPage: number | null;
}

const WORD = /[a-z0-9]+/g;

function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

export function summaryOf(tool: AnyTool): ToolSummary {
  const first = tool.description.split(/(?<=[.!?])\s/)[0] ?? tool.description;
  const summary = first.length > 200 ? `${first.slice(0, 197)}...` : first;
  return { operationId: tool.operationId, family: tool.family, title: tool.title, summary, credits: tool.credits, kind: tool.kind, method: tool.method };
}

/** How well a tool matches the query's words: whole words in the name and aliases count most. */
function score(tool: AnyTool, query: string[]): number {
  if (query.length === 0) return 1;
  const fields: [string[], number][] = [
    [words(`${tool.slug} ${tool.operationId}`), 4],
    [words(tool.title), 4],
    [tool.aliases.flatMap(words), 3],
    [words(tool.family), 2],
    [words(tool.description), 1],
  ];
  let total = 0;
  for (const q of query) {
    let best = 0;
    for (const [terms, weight] of fields) {
      if (terms.includes(q)) best = Math.max(best, weight);
      else if (q.length >= 3 && terms.some((t) => t.startsWith(q))) best = Math.max(best, weight / 2);
    }
    total += best;
  }
  // The words in the slug's order ("pdf to docx") beat the same words in another order (docx-to-pdf).
  const phrase = query.join('-');
  if (tool.slug === phrase || tool.operationId === query.join('_')) total += 10;
  else if (tool.slug.includes(phrase)) total += 3;
  return total;
}

export function searchTools(tools: readonly AnyTool[], options: { query?: string; family?: string; page?: number; pageSize?: number }): SearchPage {
  const query = words(options.query ?? '');
  const pageSize = Math.min(50, Math.max(1, options.pageSize ?? 10));
  const page = Math.max(1, options.page ?? 1);
  const ranked = tools
    .filter((t) => options.family === undefined || t.family === options.family)
    .map((tool) => ({ tool, score: score(tool, query) }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.operationId.localeCompare(b.tool.operationId));
  const slice = ranked.slice((page - 1) * pageSize, page * pageSize);
  return {
    tools: slice.map((r) => summaryOf(r.tool)),
    total: ranked.length,
    page,
    pageSize,
    nextPage: page * pageSize < ranked.length ? page + 1 : null,
  };
}
