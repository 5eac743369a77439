// Engines whose programs cannot stay warm (pandoc, poppler): a process per job, still behind the
// supervisor's bounded queue and per-job timeout. Every run is in its own process group (killed on
// timeout), under an address-space limit, and inside the shared sandbox (src/engines/sandbox.ts):
// it sees the system, the job's own folders and nothing else, with a minimal environment. The
// command is built by sandboxedCommand (sandbox.ts), shared with every other program engine.
import os from 'node:os';
import { findProgram, runProcess, type RunResult } from './process.ts';
import type { Engine } from './engine-definition.ts';
import { minimalEnv, runSandboxed, type SandboxArgs } from './sandbox.ts';
import { EngineSupervisor, stderrLogger, type EngineLogger, type EngineProbe, type EngineStatus, type EngineWorker } from './supervisor.ts';

export interface ProgramEngineOptions {
  /** jobs at once (default: number of CPUs, at least 2) */
  concurrency?: number;
  maxQueued?: number;
  /** per-job limit in ms (default 60 s) */
  jobTimeoutMs?: number;
  /** address-space limit per run in bytes (default 2 GiB; 0 = none) */
  memoryLimitBytes?: number;
  /** run without network when possible (default true) */
  isolateNetwork?: boolean;
  /** filesystem sandbox: 'auto' (default) bwrap when usable, 'bwrap' requires it, 'none' never */
  sandbox?: 'auto' | 'bwrap' | 'none';
  logger?: EngineLogger;
}

export interface ProgramSpec {
  name: string;
  label: string;
  /** programs the engine runs; all must exist; the first gives the version */
  programs: readonly string[];
  /** what to install when one is missing, e.g. 'Debian package pandoc' */
  install: string;
  versionArgs: readonly string[];
  versionPattern: RegExp;
}

export interface ExecOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  stdin?: string | Buffer;
  /** working folder; it is in view (read-write) like `folders` */
  cwd?: string;
  /** the job's folders the program may read and write; nothing else of the host's is in view */
  folders?: readonly string[];
  /** host files shown read-only inside; name them in `args` through `pathOf` */
  files?: readonly { host: string; inside: string }[];
  maxStdoutBytes?: number;
}

/** Arguments, or a function of where the `files` of ExecOptions appear inside the sandbox. */
export type ExecArgs = SandboxArgs;

/** The caller's signal and time limit of a job: only the keys it set, so an engine's defaults still apply. */
export function jobRunOptions(options: { signal?: AbortSignal; timeoutMs?: number }): { signal?: AbortSignal; timeoutMs?: number } {
  return { ...(options.signal ? { signal: options.signal } : {}), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) };
}

const always: EngineWorker = { alive: () => true, stop: async () => undefined };

export class ProgramEngine {
  readonly supervisor: EngineSupervisor<EngineWorker>;
  private readonly spec: ProgramSpec;
  private readonly options: ProgramEngineOptions;
  private readonly logger: EngineLogger;
  private readonly paths = new Map<string, string>();

  constructor(spec: ProgramSpec, options: ProgramEngineOptions = {}) {
    this.spec = spec;
    this.options = options;
    this.logger = options.logger ?? stderrLogger;
    const cpus = os.availableParallelism();
    this.supervisor = new EngineSupervisor<EngineWorker>({
      name: spec.name,
      label: spec.label,
      probe: () => this.probe(),
      start: async () => always,
      workers: 1,
      jobsPerWorker: Math.max(1, options.concurrency ?? Math.max(2, cpus)),
      maxQueued: options.maxQueued ?? 32,
      jobTimeoutMs: options.jobTimeoutMs ?? 60_000,
      onTimeout: 'abort',
      graceMs: 2000,
      logger: this.logger,
    });
  }

  /** Runs one of the engine's programs through the queue; the process group dies on timeout. */
  exec(program: string, args: ExecArgs, options: ExecOptions = {}): Promise<RunResult> {
    const runOptions = jobRunOptions(options);
    return this.supervisor.run(async (_worker, { signal }) => {
      const path = this.paths.get(program);
      if (path === undefined) throw new Error(`${program} is not one of ${this.spec.name}'s programs`);
      return runSandboxed(path, args, {
        writable: [...(options.cwd === undefined ? [] : [options.cwd]), ...(options.folders ?? [])],
        readOnly: options.files ?? [],
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        network: this.options.isolateNetwork === false,
        mode: this.options.sandbox ?? 'auto',
        engine: this.spec.label,
        logger: this.logger,
        memoryMb: (this.options.memoryLimitBytes ?? 2 * 1024 ** 3) / 1024 ** 2,
        signal,
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        ...(options.maxStdoutBytes === undefined ? {} : { maxStdoutBytes: options.maxStdoutBytes }),
      });
    }, runOptions);
  }

  status(): Promise<EngineStatus> {
    return this.supervisor.status();
  }

  availability(): Promise<EngineProbe> {
    return this.supervisor.probe();
  }

  /** The probe's version (null when missing). */
  async version(): Promise<string | null> {
    const probe = await this.supervisor.probe();
    return probe.ok ? probe.version : null;
  }

  close(): Promise<void> {
    return this.supervisor.close();
  }

  private async probe(): Promise<EngineProbe> {
    for (const program of this.spec.programs) {
      const found = await findProgram(program);
      if (found === null) return { ok: false, missing: `${program} (${this.spec.install})` };
      this.paths.set(program, found);
    }
    const first = this.paths.get(this.spec.programs[0]!)!;
    const result = await runProcess(first, this.spec.versionArgs, { signal: AbortSignal.timeout(20_000), env: minimalEnv(os.tmpdir()) }).catch(() => null);
    const text = `${result?.stdout.toString('utf8') ?? ''}\n${result?.stderr ?? ''}`;
    return { ok: true, version: this.spec.versionPattern.exec(text)?.[1] ?? 'unknown' };
  }
}

/**
 * An engine made of one ProgramEngine and its own job logic (pandoc, poppler, ffmpeg, calibre,
 * 7-Zip). Its programs run a process per job, so there is nothing to warm, and /readyz, the
 * preflight and shutdown are the program engine's: written once here rather than in every engine.
 */
export abstract class ProgramBackedEngine implements Engine {
  readonly engine: ProgramEngine;

  constructor(spec: ProgramSpec, options: ProgramEngineOptions) {
    this.engine = new ProgramEngine(spec, options);
  }

  status(): Promise<EngineStatus> {
    return this.engine.status();
  }

  availability(): Promise<EngineProbe> {
    return this.engine.availability();
  }

  /** A process per job: nothing to keep warm. */
  async warm(): Promise<void> {}

  close(): Promise<void> {
    return this.engine.close();
  }
}
