// What a finished workflow means for the job's answer beyond its report and gate:
//   - a step refused for the quota (or the rate limit) is why the job could not judge the page:
//     the answer says so at the top (code, resetAt or retryAfterSeconds) and loop.next tells the
//     host to wait, not that "the page may be unreachable";
//   - a page that answered an error status (404, 500 ...) was not the page the job was asked to
//     judge: the runner stopped after the step that saw it (workflow-runner.ts), and the answer
//     names the status and what to check instead of a report about an error page;
//   - a one-tool job answers the tool's result at the top, in every response mode: a conversion
//     its file (downloadUrl, fileId), a text tool its figures.
import { periodResetAt } from '../../accounts/periods.ts';
import type { AnyTool } from '../../core/define-tool.ts';
import type { LoopBlock } from '../loop/loop-state.ts';
import type { WorkflowResult } from './workflow-runner.ts';

export interface JobOutcome {
  /** fields at the top of the answer */
  top: Record<string, unknown>;
  /** the file a conversion made (its tool's whole result): a conversion records no feature */
  fileResult?: unknown;
  /** why no fix can be judged now: loop.next says this instead of a fix */
  blocked?: LoopBlock;
}

/** The status a URL tool's result reports for the page it fetched, when it is an error. */
function pageErrorOf(results: Record<string, unknown>): { url: string; status: number } | undefined {
  for (const value of Object.values(results)) {
    if (value === null || typeof value !== 'object') continue;
    // a comparison's own page is `yours`
    const r = ('yours' in value ? (value as { yours: unknown }).yours : value) as Record<string, unknown> | null;
    if (r === null || typeof r !== 'object') continue;
    if (typeof r['status'] === 'number' && r['status'] >= 400 && typeof r['url'] === 'string') return { url: r['url'], status: r['status'] };
  }
  return undefined;
}

export function jobOutcome(run: WorkflowResult, tool: AnyTool | undefined): JobOutcome {
  const codes = new Set(run.report.steps.map((s) => s.errorCode).filter((c): c is string => c !== undefined));
  if (codes.has('quota_exhausted')) {
    const resetAt = periodResetAt(new Date()).toISOString();
    const message = `The account's monthly credit quota is used up, so the job could not run its billed steps; it resets at ${resetAt}`;
    return { top: { code: 'quota_exhausted', message, resetAt }, blocked: { code: 'quota_exhausted', next: `${message}: do not call verify_task before then (or raise the plan); the report is incomplete for that reason alone.` } };
  }
  if (codes.has('rate_limited')) {
    const message = "The account's per-minute rate limit refused the job's steps";
    return { top: { code: 'rate_limited', message, retryAfterSeconds: 60 }, blocked: { code: 'rate_limited', next: `${message}: wait a minute, then run the same call again; the report is incomplete for that reason alone.` } };
  }
  const page = pageErrorOf(run.results);
  if (page !== undefined) {
    const message = `The page answered HTTP ${page.status}, so there was no page to judge: the job stopped after the first step and charged only what ran`;
    const check = page.status >= 500 ? 'the server logs and the deploy (a 5xx is the server failing)' : 'that the URL is right and the page is published (a 4xx means it is not there for visitors)';
    return { top: { code: 'page_error', message, pageStatus: page.status, pageUrl: page.url }, blocked: { code: 'page_error', next: `${message}. Check ${check}, then call verify_task again with the same baseline.` } };
  }
  // A one-tool job answers what the tool answered, in every mode (a report alone would hide it);
  // a URL tool's answer is its report, which jobReport already carries.
  const answered = tool === undefined || tool.kind === 'url' ? undefined : run.results['call'];
  if (answered !== undefined) return { top: { result: answered }, ...(tool?.kind === 'file' ? { fileResult: answered } : {}) };
  return { top: {} };
}
