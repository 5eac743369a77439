// Runs analyses in a worker thread (see analysis-pool.ts): the parse of a large page is the
// biggest allocation the service makes per call, and in a worker with a small heap of its own it
// is collected at once and can never grow the server's heap, or stall the event loop serving
// every other request.
import { parentPort } from 'node:worker_threads';
import { loadAnalyzers } from './analyzer-registry.ts';
import { decodeBody } from './charset.ts';
import { analyzeFetchedKeepingReadings, analyzeParsed, analyzeReadings, type KeptAnalysis } from './page-analysis.ts';
import type { PageFacts } from './page-facts.ts';
import { ParseReuse } from './parse-reuse.ts';
import type { Analyzer } from './scoring.ts';

export interface AnalysisJob {
  id: number;
  analyzers: string[];
  /** null: HTML passed in, no response facts */
  facts: PageFacts | null;
  html: string;
  url: string;
  /** answer each analyzer's reading of the parse too, for a second analysis of the page (page-analysis.ts) */
  keepReadings: boolean;
  /** a second analysis: the readings a first one kept, judged with these facts instead of a parse of the page */
  readings: unknown[] | null;
  /** the job's own token when its calls may share one parse of the same page (parse-reuse.ts), else null */
  parseKey: string | null;
}

/** A job's answer: its report, and the readings when they were asked for and kept. */
export type AnalysisAnswer = KeptAnalysis;

const analyzers = await loadAnalyzers();
const parses = new ParseReuse();

parentPort?.on('message', (job: AnalysisJob) => {
  try {
    const chosen = job.analyzers.map((id) => {
      const analyzer = analyzers.get(id);
      if (!analyzer) throw new Error(`no analyzer with id ${id}`);
      return analyzer;
    }) satisfies Analyzer[];
    // A Buffer arrives as a plain Uint8Array; analyzers read it as a Buffer.
    let facts: PageFacts | null = null;
    if (job.facts !== null) {
      const body = Buffer.from(job.facts.body.buffer, job.facts.body.byteOffset, job.facts.body.byteLength);
      // The same decoding the fetcher did (charset.ts is deterministic), so the text is not sent twice.
      const { text } = decodeBody(body, job.facts.headers['content-type'], job.facts.mediaType === null || job.facts.mediaType.includes('html'));
      facts = { ...job.facts, body, text };
    }
    const html = facts === null ? job.html : facts.text;
    // A call that parses nothing of its own, or keeps its readings, lets a kept parse go first (parse-reuse.ts).
    if (job.readings !== null || job.keepReadings) parses.clear();
    const answer: AnalysisAnswer =
      job.readings !== null
        ? { report: analyzeReadings(chosen, job.readings, facts, job.url), readings: null }
        : job.keepReadings
          ? analyzeFetchedKeepingReadings(chosen, html, facts, job.url)
          : { report: analyzeParsed(chosen, parses.parse(job.parseKey, html, facts, job.url), facts, job.url), readings: null };
    parentPort?.postMessage({ id: job.id, ...answer });
  } catch (error) {
    parentPort?.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
  }
});
parentPort?.postMessage({ ready: true });
