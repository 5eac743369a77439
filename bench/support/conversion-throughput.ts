/**
 * bench:conversions, section 3: throughput of 1-page docx-to-pdf, each client looping upload ->
 * answer for a fixed time, at three levels:
 *   - 1 client (one account): the baseline;
 *   - 4 clients of 4 different accounts, each with its own key: the pool's scaling, issue 24's
 *     target (>= 1.9x the baseline on 2 cores);
 *   - for reference, 4 clients of ONE account. The engines' fair queue (src/engines/fair-queue.ts)
 *     holds one account to fairShare(instances) of the pool's slots at once, so that another
 *     account never waits behind a flooder: this level measures that share, not the pool, and
 *     the section checks that it saw no more than that share running at once.
 * Every non-200 answer (a 429 from a full queue too) counts as a failure and is printed. Printed
 * alongside, to tell a slow pool from a busy machine: the most LibreOffice jobs seen running at
 * once (/readyz), soffice.bin restarts, the CPU cores the server and its engine processes used,
 * and how busy the whole machine was.
 */
import { cpus } from 'node:os';
import { fairShare } from '../../src/engines/fair-queue.ts';
import { convert, isPdfAnswer, type Ctx, type UploadFile } from './conversion-calls.ts';
import { CpuWindow } from './cpu.ts';
import { watchRunning } from './server-child.ts';
import { fmtMs, fmtRatio, median, percentile, table } from './stats.ts';

const DOCX_TO_PDF = '/api/v1/documents/docx-to-pdf';
/** Issue 24's target: 4 clients (of as many accounts) 1.9x the throughput of one on 2 cores. */
export const TARGET_SCALING = 1.9;
const CLIENTS = 4;

/** A target as the bench's summary and bench:all print it. */
export interface Target {
  label: string;
  /** undefined: no verdict */
  holds: boolean | undefined;
  figure: string;
  /** e.g. '>= 1.9x' */
  target: string;
  note?: string;
}

interface Level {
  label: string;
  /** each client's key: one entry per client */
  keys: string[];
  accounts: number;
}

interface Throughput {
  level: Level;
  seconds: number;
  ok: number;
  statuses: Record<string, number>;
  errors: number;
  examples: string[];
  latencies: number[];
  /** CPU cores the server and its engine processes used on average */
  serviceCores: number;
  /** of which the Node server process itself */
  nodeCores: number;
  /** busy share of the whole machine (every process, others' too) */
  machineBusy: number;
  /** most LibreOffice jobs seen running at once (/readyz every 200 ms) */
  maxRunning: number;
  /** soffice.bin processes started during the level (instances recycled past LIBREOFFICE_MAX_RSS_MB or LIBREOFFICE_MAX_JOBS, or after a crash) */
  restarts: number;
}

async function throughput(ctx: Ctx, pid: number, level: Level, seconds: number, file: UploadFile): Promise<Throughput> {
  const result: Throughput = { level, seconds: 0, ok: 0, statuses: {}, errors: 0, examples: [], latencies: [], serviceCores: 0, nodeCores: 0, machineBusy: 0, maxRunning: 0, restarts: 0 };
  const cpu = new CpuWindow(pid);
  const watch = watchRunning(ctx.base, 'libreoffice');
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const client = async (apiKey: string) => {
    while (performance.now() < deadline) {
      try {
        const call = await convert(ctx, DOCX_TO_PDF, file, apiKey);
        result.statuses[call.status] = (result.statuses[call.status] ?? 0) + 1;
        if (isPdfAnswer(call)) {
          result.ok++;
          result.latencies.push(call.ms);
        } else if (result.examples.length < 3) {
          result.examples.push(`${call.status} ${call.text.slice(0, 200)}`);
        }
      } catch (err) {
        result.errors++;
        if (result.examples.length < 3) result.examples.push(err instanceof Error ? err.message : String(err));
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  await Promise.all(level.keys.map(client));
  // Jobs started before the deadline are finished: the rate is over the whole time they took.
  result.seconds = (performance.now() - t0) / 1000;
  const used = cpu.read();
  result.serviceCores = used.treeCores;
  result.nodeCores = used.rootCores;
  result.machineBusy = used.machineBusy;
  result.restarts = used.started;
  result.maxRunning = await watch.stop();
  return result;
}

const rate = (l: Throughput): number => l.ok / l.seconds;
const failures = (l: Throughput): number => Object.entries(l.statuses).filter(([s]) => s !== '200').reduce((n, [, c]) => n + c, 0);

function levelsTable(levels: readonly Throughput[]): string {
  return table([
    ['clients', 'accounts', 'conversions', 'seconds', 'conversions/s', 'median ms', 'p90 ms', 'non-200', 'errors', 'status codes', 'LO jobs at once (max)', 'LO restarts', 'service CPU (cores)', 'of which Node', 'conv per service CPU-s', 'machine busy'],
    ...levels.map((l) => [
      String(l.level.keys.length),
      String(l.level.accounts),
      String(l.ok),
      l.seconds.toFixed(1),
      rate(l).toFixed(2),
      fmtMs(median(l.latencies)),
      fmtMs(percentile(l.latencies, 90)),
      String(failures(l)),
      String(l.errors),
      JSON.stringify(l.statuses),
      String(l.maxRunning),
      String(l.restarts),
      l.serviceCores.toFixed(2),
      l.nodeCores.toFixed(2),
      (rate(l) / l.serviceCores).toFixed(1),
      `${Math.round(l.machineBusy * 100)}%`,
    ]),
  ]);
}

export interface ThroughputInput {
  ctx: Ctx;
  /** the server's pid (its process tree's CPU is read) */
  pid: number;
  seconds: number;
  file: UploadFile;
  /** LibreOffice instances in the pool */
  instances: number;
  /** one key per bench account (the server child's accountKeys), the first being ctx.apiKey */
  accountKeys: readonly string[];
  out: (line?: string) => void;
  note: (line: string) => void;
}

/** Runs the three levels, prints their table and notes; returns the targets and the problems seen. */
export async function throughputSection(input: ThroughputInput): Promise<{ targets: Target[]; problems: string[] }> {
  const { ctx, out } = input;
  const problems: string[] = [];
  const keys = input.accountKeys.length > 0 ? input.accountKeys : [ctx.apiKey];
  // Clients of different accounts: with fewer keys than clients (BENCH_ACCOUNTS), they share them in turn.
  const spread = Array.from({ length: CLIENTS }, (_, i) => keys[i % keys.length]!);
  const accounts = new Set(spread).size;
  const share = fairShare(input.instances);
  const plan: Level[] = [
    { label: '1 client', keys: [ctx.apiKey], accounts: 1 },
    { label: `${CLIENTS} clients of ${accounts} accounts`, keys: spread, accounts },
    { label: `${CLIENTS} clients of one account`, keys: Array.from({ length: CLIENTS }, () => ctx.apiKey), accounts: 1 },
  ];
  const levels: Throughput[] = [];
  for (const level of plan) {
    input.note(`  ${level.label} for ${input.seconds} s…`);
    levels.push(await throughput(ctx, input.pid, level, input.seconds, input.file));
  }
  const [one, pool, single] = levels as [Throughput, Throughput, Throughput];
  out(levelsTable(levels));
  for (const l of levels) {
    const bad = failures(l) + l.errors;
    if (bad > 0) {
      problems.push(`throughput with ${l.level.label}: ${bad} failed request(s)`);
      out(`!! ${l.level.label}: ${bad} failed request(s), e.g. ${l.examples.join(' | ')}`);
    }
  }
  if (levels.some((l) => l.ok === 0)) throw new Error(`a throughput level had no successful conversion: ${levels.map((l) => l.examples[0]).join(' | ')}`);

  const scaling = rate(pool) / rate(one);
  const singleScaling = rate(single) / rate(one);
  out();
  out('(service CPU: the server process and its engine descendants, /proc sampled every 250 ms, "of which Node" the server process alone;');
  out(' machine busy: all CPUs, everyone\'s work included;');
  out(' LO restarts: soffice.bin processes started during the level, as instances are recycled (past LIBREOFFICE_MAX_RSS_MB of memory or LIBREOFFICE_MAX_JOBS jobs) or restarted after a crash.');
  out(` When the machine is near 100% busy, the ${CLIENTS}-client figures are capped by the CPU left over, not by the pool.)`);
  out(`Ratio ${pool.level.label} / 1 client (conversions/s): ${fmtRatio(scaling)}  ` +
    `(the pool's scaling: ${input.instances} LibreOffice instance(s), ${cpus().length} CPU(s); at most ${pool.maxRunning} job(s) seen at once)`);
  out(`Ratio ${single.level.label} / 1 client (conversions/s): ${fmtRatio(singleScaling)}  (for reference: the fair queue holds one account to ` +
    `fairShare(${input.instances}) = ${share} slot(s) of the pool at once, so this measures that share, not the pool; at most ${single.maxRunning} job(s) seen at once)`);
  // The fair share is a rule of the service, not a figure: a breach is a problem, whatever the machine.
  if (single.maxRunning > share) {
    out(`!! ${single.level.label}: ${single.maxRunning} LibreOffice jobs seen at once, more than the fair share of ${share}`);
    problems.push(`${single.level.label}: ${single.maxRunning} LibreOffice jobs at once, beyond fairShare(${input.instances}) = ${share}`);
  } else if (single.maxRunning < share) {
    problems.push(`${single.level.label}: at most ${single.maxRunning} LibreOffice job(s) seen at once, below the fair share of ${share} (polled every 200 ms: a short job can slip between polls)`);
  }
  if (accounts < 2) problems.push(`only ${keys.length} bench account(s) (BENCH_ACCOUNTS): the "${pool.level.label}" level is the fair share again, not the pool`);
  const saturated = [one, pool].find((l) => l.machineBusy >= 0.95 && l.serviceCores < cpus().length * 0.75);
  if (saturated) {
    out(`!! The machine was ${Math.round(saturated.machineBusy * 100)}% busy with ${saturated.level.label} while the service used only ` +
      `${saturated.serviceCores.toFixed(2)} of ${cpus().length} cores: other work took the CPU, so this ratio understates the pool; rerun on a quieter machine.`);
    problems.push(`throughput: the machine was saturated by other work (${Math.round(saturated.machineBusy * 100)}% busy), the ${CLIENTS}/1 ratio is not representative`);
  }
  const targets: Target[] = [
    {
      label: `${CLIENTS} clients of ${accounts} accounts >= ${TARGET_SCALING}x the docx-to-pdf throughput of 1 (the pool's scaling)`,
      holds: scaling >= TARGET_SCALING,
      figure: fmtRatio(scaling),
      target: `>= ${TARGET_SCALING}x`,
      ...(saturated ? { note: 'the machine was saturated by other work' } : {}),
    },
  ];
  return { targets, problems };
}
