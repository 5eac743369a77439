/**
 * Our side of the comparison, called as a user calls it: the seo-audit playbook through MCP
 * `solve_task` with the official MCP client (its job's SEO score), and page-speed-analyzer and
 * security-headers-grader over REST with an API key.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface OurSeo {
  score: number | null;
  /** rules with a failing check or a finding */
  failing: Set<string>;
  /** Lighthouse audit ids our failing checks say they stand for (the `audit` field, once rules carry it) */
  failingAudits: Set<string>;
  error: string | null;
  /** the job refused the page (an error status): `page_error 404` */
  refused: string | null;
}

interface CheckLike {
  rule?: string;
  result?: string;
  audit?: string;
}
interface ReportLike {
  scores?: Record<string, number | null>;
  checks?: CheckLike[];
  findings?: { rule?: string }[];
  steps?: { report?: ReportLike }[];
}

/** Every check and finding a (job) report carries, however deep its steps nest them. */
function collect(report: unknown, into: { checks: CheckLike[]; findings: string[] }): void {
  if (report === null || typeof report !== 'object') return;
  const r = report as ReportLike & Record<string, unknown>;
  if (Array.isArray(r.checks)) for (const c of r.checks) into.checks.push(c);
  if (Array.isArray(r.findings)) for (const f of r.findings) if (typeof f?.rule === 'string') into.findings.push(f.rule);
  for (const value of Object.values(r)) if (value !== null && typeof value === 'object' && value !== r.checks && value !== r.findings) collect(value, into);
}

export class Ours {
  readonly #base: string;
  readonly #apiKey: string;
  #client: Client | null = null;

  constructor(base: string, apiKey: string) {
    this.#base = base;
    this.#apiKey = apiKey;
  }

  async connect(): Promise<void> {
    const client = new Client({ name: 'bench-url-agreement', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${this.#base}/mcp`), { requestInit: { headers: { 'x-api-key': this.#apiKey } } }));
    this.#client = client;
  }

  async close(): Promise<void> {
    await this.#client?.close();
  }

  async seo(url: string): Promise<OurSeo> {
    if (this.#client === null) throw new Error('not connected');
    const answer = await this.#client.callTool({ name: 'solve_task', arguments: { goal: `Audit the SEO of ${url}`, input: { url }, responseMode: 'full' } }, undefined, { timeout: 180_000 });
    type Answer = { status?: string; code?: string; pageStatus?: number; job?: { id?: string }; jobReport?: ReportLike };
    // A failed job is a tool result with isError whose text is the JSON answer (no structured content).
    const text = (answer.content as { type: string; text?: string }[] | undefined)?.find((c) => c.type === 'text')?.text;
    let a = answer.structuredContent as Answer | undefined;
    if (a === undefined && text !== undefined) {
      try {
        a = JSON.parse(text) as Answer;
      } catch {
        a = undefined;
      }
    }
    const empty = { failing: new Set<string>(), failingAudits: new Set<string>(), refused: null };
    // An error page stops the job with page_error: the verdict a user reads is that failure.
    if (a?.code === 'page_error') return { score: null, ...empty, failing: new Set(['http-status-code']), refused: `page_error ${a.pageStatus ?? ''}`.trim(), error: null };
    if (answer.isError || a?.jobReport === undefined) return { score: null, ...empty, error: JSON.stringify(answer.structuredContent ?? answer.content).slice(0, 300) };
    if (a.job?.id !== 'seo-audit') return { score: null, ...empty, error: `the goal matched ${a.job?.id}, not seo-audit` };
    if (process.env['BENCH_DUMP']) process.stderr.write(`${JSON.stringify(a.jobReport).slice(0, 4000)}\n`);
    const found = { checks: [] as CheckLike[], findings: [] as string[] };
    collect(a.jobReport, found);
    const failing = new Set(found.findings);
    const failingAudits = new Set<string>();
    for (const c of found.checks) {
      if (c.result !== 'fail') continue;
      if (c.rule) failing.add(c.rule);
      if (c.audit) failingAudits.add(c.audit);
    }
    return { score: a.jobReport.scores?.['seo'] ?? null, failing, failingAudits, error: null, refused: null };
  }

  async #get(path: string, query: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${this.#base}/api/v1/${path}?${new URLSearchParams(query)}`, { headers: { 'x-api-key': this.#apiKey }, signal: AbortSignal.timeout(180_000) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** page-speed-analyzer's performance score in `mode` (proxy or lab), with the lab's metrics when measured. */
  async performance(url: string, mode: 'proxy' | 'lab'): Promise<{ score: number | null; ms: number; lab: Record<string, unknown> | null; error: string | null }> {
    const start = performance.now();
    const { status, body } = await this.#get('seo-apis/page-speed-analyzer', { url, mode });
    const ms = performance.now() - start;
    const result = body['result'] as { report?: { scores?: Record<string, number | null> }; lab?: Record<string, unknown> } | undefined;
    if (status !== 200 || !result?.report) return { score: null, ms, lab: null, error: `${status} ${JSON.stringify(body).slice(0, 300)}` };
    const scores = result.report.scores ?? {};
    const score = scores['performance'] ?? scores['page-speed'] ?? null;
    const lab = result.lab ?? null;
    return { score, ms, lab, error: null };
  }

  async grade(url: string): Promise<{ grade: string | null; score: number | null; tests: Record<string, string>; error: string | null }> {
    const { status, body } = await this.#get('security-apis/security-headers-grader', { url });
    const result = body['result'] as { report?: { details?: { observatory?: { grade?: string; score?: number; tests?: { rule: string; result: string; modifier?: number }[] } } } } | undefined;
    const o = result?.report?.details?.observatory;
    if (status !== 200 || o === undefined) return { grade: null, score: null, tests: {}, error: `${status} ${JSON.stringify(body).slice(0, 300)}` };
    return { grade: o.grade ?? null, score: o.score ?? null, tests: Object.fromEntries((o.tests ?? []).map((t) => [t.rule, `${t.result}${t.modifier ? ` (${t.modifier})` : ''}`])), error: null };
  }
}
