// A warm pool of LibreOffice instances. Each instance is a soffice with its own profile, driven
// through a small long-lived Python bridge (libreoffice-bridge.py, python3-uno) that takes
// JSON-line jobs on stdin. The bridge and its soffice run in their own process group, in a network
// namespace without interfaces when the machine allows it (no egress at all), under an
// address-space limit; the profile blocks macros and linked content. Kept warm, a conversion does
// not pay soffice's cold start, and the bridge primes each instance with a throwaway conversion
// before it reports ready, so not the first job's filter loading either.
// One instance's process and bridge protocol live in libreoffice-instance.ts, the option and
// result types in libreoffice-types.ts; this file is the pool, its profiles and its sandbox.
import { randomBytes } from 'node:crypto';
import { copyFile, lstat, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { unprocessable } from '../core/errors.ts';
import { resolvePage } from './page.ts';
import { checkZipBomb } from './zip-guard.ts';
import { defineEngine } from './engine-definition.ts';
import { bubblewrap, findProgram, memoryLimitPrefix, networkIsolationPrefix, runProcess } from './process.ts';
import { FAKE_PASSWD, SANDBOX_FILES_DIR, minimalEnv, sandboxedCommand } from './sandbox.ts';
import { EngineSupervisor, stderrLogger, type EngineLogger, type EngineProbe, type EngineStatus } from './supervisor.ts';
import { makeEngineTempDir } from '../files/process-folders.ts';
import { LibreOfficeInstance, type BridgeAnswer } from './libreoffice-instance.ts';
import { takeResult } from './job-folder.ts';
import type { ConvertOptions, ConvertResult, LibreOfficeOptions } from './libreoffice-types.ts';

const BRIDGE_SCRIPT = fileURLToPath(new URL('./libreoffice-bridge.py', import.meta.url));

/**
 * When a healthy instance is restarted. soffice ages: from fresh to ~1,000 jobs its resident
 * memory grows from ~140 to ~200 MB and its CPU per 1-page docx-to-pdf from ~19 to ~23 ms, then
 * both hold (measured to 5,000 jobs: 210-220 MB, 23-25 ms). A restart costs ~1 s, ~0.85 CPU-s
 * and leaves the pool one instance short meanwhile. Every 500 jobs, that cost about what a young
 * instance saves (a pool of 2 converted as many per second with 500, 1,000 or no restarts), so
 * frequent restarts bought no throughput, only a queue behind one instance every few seconds.
 * The memory bound restarts what bloated or leaks instead (a 20,000-row sheet leaves ~290 MB, so
 * ordinary documents stay under it); the job count is a backstop for slower kinds of decay.
 */
export const DEFAULT_MAX_JOBS_PER_INSTANCE = 5000;
export const DEFAULT_MAX_RSS_PER_INSTANCE_MB = 512;

/** The profile settings every instance starts with: macros never run, linked content blocked. */
const REGISTRY = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="SecureURL" oor:op="fuse"><value></value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseLocking" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="CreateBackup" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSave" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Load"><prop oor:name="ShowOfficeUpdateDialog" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Writer/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>2</value></prop></item>
<item oor:path="/org.openoffice.Office.Writer/Content/Update"><prop oor:name="Field" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>2</value></prop></item>
</oor:items>
`;

export class LibreOfficeEngine {
  readonly supervisor: EngineSupervisor<LibreOfficeInstance>;
  private readonly options: LibreOfficeOptions;
  private readonly logger: EngineLogger;
  private python: string | null = null;
  private soffice: string | null = null;
  private workDir: Promise<string> | null = null;
  private ownsWorkDir = false;
  private plan: Promise<{ prefix: string[]; bwrap: string | null }> | null = null;

  constructor(options: LibreOfficeOptions = {}) {
    this.options = options;
    this.logger = options.logger ?? stderrLogger;
    this.supervisor = new EngineSupervisor<LibreOfficeInstance>({
      name: 'libreoffice',
      label: 'LibreOffice',
      probe: () => this.probe(),
      start: (index) => this.startInstance(index),
      workers: options.instances ?? 2,
      jobsPerWorker: 1,
      maxQueued: options.maxQueued ?? 8,
      jobTimeoutMs: options.jobTimeoutMs ?? 60_000,
      maxJobsPerWorker: options.maxJobsPerInstance ?? DEFAULT_MAX_JOBS_PER_INSTANCE,
      onTimeout: 'restart',
      logger: this.logger,
    });
  }

  /** Converts one document; throws ServiceError (422 for a file LibreOffice cannot read). */
  async convert(options: ConvertOptions): Promise<ConvertResult> {
    if (!path.isAbsolute(options.inputPath) || !path.isAbsolute(options.outputPath)) {
      throw new Error('LibreOfficeEngine.convert needs absolute paths');
    }
    if (options.format === undefined && options.filter === undefined) throw new Error('convert needs a format or a filter');
    const page = resolvePage(options.page);
    const size = await stat(options.inputPath).then((s) => s.size);
    if (size === 0) throw unprocessable('The file is empty', 'LibreOffice cannot convert an empty file');
    await checkZipBomb(options.inputPath, this.options.zipLimits);
    const job = {
      input: options.inputPath,
      output: options.outputPath,
      format: options.format ?? null,
      filter: options.filter ?? null,
      filterOptions: options.filterOptions ?? null,
      filterData: options.filterData ?? null,
      inputFilter: options.inputFilter ?? null,
      inputFilterOptions: options.inputFilterOptions ?? null,
      password: options.password ?? null,
      outputPassword: options.outputPassword ?? null,
      page: page && {
        width: Math.round(page.widthMm * 100),
        height: Math.round(page.heightMm * 100),
        landscape: page.landscape,
        margins: page.marginsMm && page.marginsMm.map((m) => Math.round(m * 100)),
      },
    };
    const runOptions: { signal?: AbortSignal; timeoutMs?: number } = {};
    if (options.signal) runOptions.signal = options.signal;
    if (options.timeoutMs !== undefined) runOptions.timeoutMs = options.timeoutMs;
    const sandboxed = await this.sandboxed();
    const { answer, instance } = await this.supervisor.run(async (worker) => {
      let answer: BridgeAnswer;
      if (!sandboxed) {
        answer = await worker.request(job);
      } else {
        // The instance sees only its exchange folder: the file goes in, the result comes out.
        const exchange = this.exchangeDir(await this.baseDir(), worker.index);
        const id = `${Date.now()}-${randomBytes(4).toString('hex')}`;
        const input = path.join(exchange, `${id}-in${path.extname(options.inputPath)}`);
        const output = path.join(exchange, `${id}-out${path.extname(options.outputPath)}`);
        // The instance's slot (and its soffice) waits on every step here, so the steps after the
        // answer run together: the result leaves in one rename while the input is removed.
        let taken = false;
        try {
          await copyFile(options.inputPath, input);
          answer = await worker.request({ ...job, input, output });
          if (answer.ok) {
            await Promise.all([takeResult(output, options.outputPath), rm(input, { force: true })]);
            taken = true;
          }
        } finally {
          if (!taken) await Promise.all([rm(input, { force: true }), rm(output, { force: true })]);
        }
      }
      if (!answer.ok) {
        // Inside the job, so that the supervisor maps a crash (a plain Error) to 503 and restarts.
        if (answer.code === 'unreadable') {
          throw unprocessable('LibreOffice could not read the file: it is damaged, encrypted, or not the type it claims', answer.message);
        }
        if (answer.code === 'export_failed') throw unprocessable('LibreOffice could not convert this document', answer.message);
        if (answer.code === 'unsupported') throw unprocessable(answer.message ?? 'unsupported conversion');
        throw new Error(answer.message ?? 'LibreOffice bridge error');
      }
      return { answer, instance: worker.index };
    }, runOptions);
    // lstat: a result is a file of its own, never a link the sandboxed soffice made to a host file.
    const written = await lstat(options.outputPath).catch(() => null);
    if (written === null || !written.isFile() || written.size === 0) throw unprocessable('LibreOffice produced no output for this document');
    return { kind: answer.kind ?? 'unknown', filter: answer.filter ?? options.filter ?? '', ms: answer.ms ?? 0, instance };
  }

  status(): Promise<EngineStatus> {
    return this.supervisor.status();
  }

  warm(): Promise<void> {
    return this.supervisor.warm();
  }

  availability(): Promise<EngineProbe> {
    return this.supervisor.probe();
  }

  async close(): Promise<void> {
    await this.supervisor.close();
    if (this.workDir && this.ownsWorkDir) {
      const dir = await this.workDir.catch(() => null);
      if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    }
  }

  private async probe(): Promise<EngineProbe> {
    const soffice = await findProgram(this.options.soffice ?? 'soffice');
    if (soffice === null) return { ok: false, missing: 'soffice (Debian packages libreoffice-writer-nogui, libreoffice-calc-nogui, libreoffice-impress-nogui)' };
    const pythons = this.options.python ? [this.options.python] : ['/usr/bin/python3', 'python3'];
    for (const candidate of pythons) {
      const python = await findProgram(candidate);
      if (python === null) continue;
      const check = await runProcess(python, ['-c', 'import uno']).catch(() => null);
      if (check?.code === 0) {
        this.python = python;
        break;
      }
    }
    if (this.python === null) return { ok: false, missing: 'python3-uno (a python3 that can import uno)' };
    this.soffice = soffice;
    const version = await runProcess(soffice, ['--version'], { signal: AbortSignal.timeout(20_000) }).catch(() => null);
    const text = version?.stdout.toString('utf8').trim() ?? '';
    const match = /LibreOffice\s+([\d.]+)/.exec(text);
    return { ok: true, version: match?.[1] ?? (text || 'unknown') };
  }

  /**
   * How instances are wrapped: under an address-space limit (prlimit), then either in a bubblewrap
   * sandbox (its own network, pid and IPC namespaces, and a filesystem of /usr, fonts, its profile
   * and its exchange folder only: no /etc/passwd, no /home, no job of another instance) or, without
   * bwrap, in a network namespace alone (unshare --net).
   */
  private sandboxPlan(): Promise<{ prefix: string[]; bwrap: string | null }> {
    this.plan ??= (async () => {
      const prefix: string[] = [];
      const limit = await memoryLimitPrefix(this.options.memoryLimitBytes ?? 4 * 1024 ** 3);
      if (limit) prefix.push(...limit);
      else if (this.options.memoryLimitBytes !== 0) this.logger.warn({ engine: 'libreoffice' }, 'prlimit not found; LibreOffice runs without a memory limit');
      const mode = this.options.sandbox ?? 'auto';
      const bwrap = mode === 'none' ? null : await bubblewrap();
      if (bwrap === null && mode === 'bwrap') throw new Error('bubblewrap (bwrap) is not usable here');
      if (bwrap !== null) return { prefix, bwrap };
      if (mode === 'auto') this.logger.warn({ engine: 'libreoffice' }, 'bubblewrap not usable; LibreOffice sees the whole filesystem (linked content stays blocked by its profile)');
      if (this.options.isolateNetwork !== false) {
        const netns = await networkIsolationPrefix();
        if (netns) prefix.push(...netns);
        else this.logger.warn({ engine: 'libreoffice' }, 'cannot create a network namespace (unshare --net); LibreOffice runs with network access, relying on its profile to block linked content');
      }
      return { prefix, bwrap: null };
    })();
    return this.plan;
  }

  private baseDir(): Promise<string> {
    this.workDir ??= (async () => {
      if (this.options.workDir) {
        await mkdir(this.options.workDir, { recursive: true });
        return this.options.workDir;
      }
      this.ownsWorkDir = true;
      return makeEngineTempDir('libreoffice');
    })();
    return this.workDir;
  }

  private async startInstance(index: number): Promise<LibreOfficeInstance> {
    if (this.python === null || this.soffice === null) throw new Error('LibreOffice was not probed');
    const base = await this.baseDir();
    // Each instance keeps its profile across restarts (a restart then skips the profile creation).
    const profile = path.join(base, `profile-${index}`);
    await mkdir(path.join(profile, 'user'), { recursive: true });
    await writeFile(path.join(profile, 'user', 'registrymodifications.xcu'), REGISTRY, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const tmpDir = path.join(base, `tmp-${index}`);
    const exchange = this.exchangeDir(base, index);
    await mkdir(tmpDir, { recursive: true });
    await mkdir(exchange, { recursive: true });
    const pipe = `engines_lo_${process.pid}_${index}_${randomBytes(4).toString('hex')}`;
    const startTimeoutMs = this.options.startTimeoutMs ?? 60_000;
    const plan = await this.sandboxPlan();
    const bridgeArgs = ['--soffice', this.soffice, '--profile', profile, '--pipe', pipe, '--start-timeout', String(Math.ceil(startTimeoutMs / 1000))];
    // Never the server's environment (it holds its secrets): what soffice needs and no more.
    const env = { TMPDIR: tmpDir, SAL_USE_VCLPLUGIN: 'svp' };
    let command: string[];
    let spawnEnv: Record<string, string>;
    if (plan.bwrap !== null) {
      const passwd = path.join(base, 'passwd');
      await writeFile(passwd, FAKE_PASSWD);
      const bridge = `${SANDBOX_FILES_DIR}/libreoffice-bridge.py`;
      // The memory limit is in plan.prefix already (and warned about once when prlimit is missing).
      const sandboxed = await sandboxedCommand(this.python, [bridge, ...bridgeArgs], {
        writable: [profile, tmpDir, exchange],
        readOnly: [{ host: BRIDGE_SCRIPT, inside: bridge }],
        systemExtras: ['/etc/libreoffice'],
        passwdFile: passwd,
        env,
        home: tmpDir,
        cwd: exchange,
        network: this.options.isolateNetwork === false,
        mode: 'bwrap',
        engine: 'LibreOffice',
        logger: this.logger,
      });
      command = [...plan.prefix, ...sandboxed.command];
      spawnEnv = sandboxed.env;
    } else {
      command = [...plan.prefix, this.python, BRIDGE_SCRIPT, ...bridgeArgs];
      spawnEnv = minimalEnv(tmpDir, env);
    }
    // Inside bwrap, /tmp is the sandbox's own tmpfs: nothing to clean on the host.
    const maxRss = this.options.maxRssPerInstanceBytes ?? DEFAULT_MAX_RSS_PER_INSTANCE_MB * 2 ** 20;
    return LibreOfficeInstance.start(index, command, spawnEnv, pipe, startTimeoutMs, plan.bwrap === null, maxRss);
  }

  private exchangeDir(base: string, index: number): string {
    return path.join(base, `exchange-${index}`);
  }

  /** Whether instances run in bwrap (so jobs pass through their exchange folder). */
  private async sandboxed(): Promise<boolean> {
    return (await this.sandboxPlan()).bwrap !== null;
  }
}

export const libreofficeEngine = defineEngine({
  name: 'libreoffice',
  label: 'LibreOffice',
  credits: 3,
  settings: z.object({
    LIBREOFFICE_INSTANCES: z.coerce.number().int().min(1).max(16).default(2).describe('warm LibreOffice instances (each about 150 MB)'),
    LIBREOFFICE_PROGRAM: z.string().min(1).default('soffice').describe('the soffice program, a path or a name on PATH'),
    LIBREOFFICE_MAX_RSS_MB: z.coerce.number().int().min(0).default(DEFAULT_MAX_RSS_PER_INSTANCE_MB).describe('restart an instance whose soffice holds more resident memory than this after a job, in MB (0 = never)'),
    LIBREOFFICE_MAX_JOBS: z.coerce.number().int().min(0).default(DEFAULT_MAX_JOBS_PER_INSTANCE).describe('restart an instance after this many jobs (0 = never); staggered between instances'),
  }),
  fromSettings: (s): LibreOfficeOptions => ({
    instances: s.LIBREOFFICE_INSTANCES,
    soffice: s.LIBREOFFICE_PROGRAM,
    maxRssPerInstanceBytes: s.LIBREOFFICE_MAX_RSS_MB * 2 ** 20,
    maxJobsPerInstance: s.LIBREOFFICE_MAX_JOBS,
  }),
  create: (options) => new LibreOfficeEngine(options),
});
