// What the engines and their supervisor share: the worker contract, the status for /readyz, the
// options of a supervisor, and what a job is given. Kept apart from supervisor.ts so that the
// mechanism there reads on its own.
export interface EngineWorker {
  /** false once the process behind the worker has exited */
  alive(): boolean;
  /** kills everything the worker started; resolves once it is gone */
  stop(): Promise<void>;
  /**
   * Why the worker should be restarted before its next job although it is healthy (e.g. a
   * LibreOffice instance whose soffice grew past its memory bound), or null. Asked whenever the
   * supervisor picks a slot and after every job, so it must be cheap: a value the worker measured
   * during its last job, not a measurement. The restart takes the same path as maxJobsPerWorker's.
   */
  recycleReason?(): string | null;
}

export type EngineProbe = { ok: true; version: string } | { ok: false; missing: string };

export type EngineState = 'ready' | 'starting' | 'missing' | 'degraded';

export interface EngineStatus {
  name: string;
  version: string | null;
  state: EngineState;
  /** live warm workers */
  workers: number;
  /** jobs waiting for a slot */
  queued: number;
  /** jobs running now */
  running: number;
  /** most jobs that run at once */
  concurrency: number;
  /** why the engine is missing or degraded */
  detail?: string;
}

export interface EngineLogger {
  info(data: object, message: string): void;
  warn(data: object, message: string): void;
  error(data: object, message: string): void;
}

export const silentLogger: EngineLogger = { info() {}, warn() {}, error() {} };

export const stderrLogger: EngineLogger = {
  info() {},
  warn(data, message) {
    process.stderr.write(`engines: ${message} ${JSON.stringify(data)}\n`);
  },
  error(data, message) {
    process.stderr.write(`engines: ${message} ${JSON.stringify(data)}\n`);
  },
};

export interface SupervisorOptions<W extends EngineWorker> {
  /** machine name, e.g. 'libreoffice' */
  name: string;
  /** human name used in messages, e.g. 'LibreOffice' */
  label?: string;
  /** finds the program and its version; called once, lazily */
  probe: () => Promise<EngineProbe>;
  /** starts worker number `index` (0-based) */
  start: (index: number) => Promise<W>;
  /** warm workers (default 1) */
  workers?: number;
  /** jobs one worker runs at once (default 1) */
  jobsPerWorker?: number;
  /** jobs that may wait for a slot before the engine answers 429 (default 16) */
  maxQueued?: number;
  /**
   * jobs one account may keep waiting before it alone gets 429 (default a quarter of maxQueued,
   * at least 1), so that one account cannot fill the queue for everyone else
   */
  maxQueuedPerOwner?: number;
  /** per-job time limit in ms, counted from the moment the job gets its slot (default 60 s) */
  jobTimeoutMs?: number;
  /** restart a worker after this many jobs (0 = never; default 0) */
  maxJobsPerWorker?: number;
  /**
   * On timeout: 'restart' kills the worker at once (it cannot be interrupted, e.g. soffice);
   * 'abort' aborts the job's signal and kills the worker only if the job has not settled after
   * `graceMs` (e.g. a browser context that can be closed).
   */
  onTimeout?: 'restart' | 'abort';
  graceMs?: number;
  /** restart workers in the background after a recycle or crash once the engine is in use (default true) */
  keepWarm?: boolean;
  logger?: EngineLogger;
}

export interface JobContext {
  /** aborted when the job times out or the caller gives up */
  signal: AbortSignal;
}

/** A job that got its slot and worker and starts now (see onJobStart). */
export interface JobStart {
  engine: string;
  worker: number;
  /** the account the job runs for; null for the service's own work */
  owner: string | null;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** overrides the engine's job timeout for this job */
  timeoutMs?: number;
}
