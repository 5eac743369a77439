// The image engine: sharp (libvips) in warm worker processes (image-worker.ts) behind the shared
// supervisor (bounded fair queue answering 429, per-job time limit, restart after a crash, a hang
// or N jobs, 503 when sharp is not installed). Why processes and not threads: sharp already runs
// libvips off the event loop, but in the server a 100 MB image grew its RSS by more than 200 MB
// that glibc kept, a libvips bug on a hostile file would take the service down, and a job past its
// time limit could not be stopped. A worker process is killed instead, and the server never loads
// libvips at all.
//
// Each worker runs in the shared bubblewrap sandbox (no network, no /etc/passwd, no DATA_DIR, no
// server environment) under an address-space limit; it sees node, the project's node_modules and
// engine sources read-only, and one exchange folder of its own read-write. A job's input is linked
// (or copied) into that folder and its output moved out of it.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ServiceError } from '../core/errors.ts';
import { defineEngine } from './engine-definition.ts';
import type { ImageConvertJob, ImageConvertResult, ImageJob, ImageLimits, ImageMetadata, ImageMetadataJob, WorkerHello, WorkerReply } from './image-job.ts';
import { DEFAULT_IMAGE_LIMITS } from './image-job.ts';
import { ANIMATED_FORMATS, outputOverLimit, plannedOutputSize } from './image-output-size.ts';
import { readImageHeader } from '../files/kinds/image-header.ts';
import { memoryLimitPrefix } from './process.ts';
import { sandboxCommand } from './sandbox.ts';
import { EngineSupervisor, stderrLogger, type EngineLogger, type EngineProbe, type EngineStatus, type EngineWorker } from './supervisor.ts';
import { makeEngineTempDir } from '../files/process-folders.ts';
import { linkOrCopy } from '../files/engine-output.ts';
import { takeResult } from './job-folder.ts';

export interface ImageEngineOptions {
  /** worker processes, each converting one image at a time (default: defaultImageWorkers(), by cores) */
  workers?: number;
  /** libvips threads per job (default 2) */
  threads?: number;
  maxQueued?: number;
  /** per-job limit in ms (default 60 s) */
  jobTimeoutMs?: number;
  /** restart a worker after this many jobs, handing its memory back (default 200) */
  maxJobsPerWorker?: number;
  /** address-space limit of a worker in bytes (default 3 GiB; 0 = none) */
  memoryLimitBytes?: number;
  /** pixel and frame limits of every job */
  limits?: Partial<ImageLimits>;
  /** 'auto' (default) sandboxes the workers with bwrap when usable, 'bwrap' requires it, 'none' never */
  sandbox?: 'auto' | 'bwrap' | 'none';
  /** where the workers' exchange folders live (default a temporary folder); on the work folders' file system, inputs are linked rather than copied */
  exchangeDir?: string;
  logger?: EngineLogger;
}

const WORKER_SCRIPT = fileURLToPath(new URL('./image-worker.ts', import.meta.url));
const ENGINE_SOURCES = path.dirname(WORKER_SCRIPT);
const START_TIMEOUT_MS = 30_000;

function projectPaths(): { nodeModules: string; packageJson: string; sharpPackage: string } | null {
  try {
    const require = createRequire(import.meta.url);
    // sharp's exports do not include package.json: found from its entry point (<nm>/sharp/dist/index.cjs).
    const sharpDir = path.dirname(path.dirname(require.resolve('sharp')));
    const sharpPackage = path.join(sharpDir, 'package.json');
    const nodeModules = path.dirname(sharpDir);
    return { nodeModules, packageJson: path.join(path.dirname(nodeModules), 'package.json'), sharpPackage };
  } catch {
    return null;
  }
}

/** One worker process and the job it runs. */
class ImageWorkerProcess implements EngineWorker {
  readonly #child: ChildProcess;
  readonly exchange: string | null;
  #exited = false;
  #pending: { id: number; resolve(reply: WorkerReply): void; reject(error: Error): void } | null = null;
  #nextId = 1;
  readonly hello: WorkerHello;

  private constructor(child: ChildProcess, exchange: string | null, hello: WorkerHello) {
    this.#child = child;
    this.exchange = exchange;
    this.hello = hello;
    child.on('message', (message: WorkerReply) => {
      const pending = this.#pending;
      if (pending === null || message.id !== pending.id) return;
      this.#pending = null;
      pending.resolve(message);
    });
    child.once('exit', (code, signal) => {
      this.#exited = true;
      const pending = this.#pending;
      this.#pending = null;
      pending?.reject(new Error(`the image worker exited (${signal ?? `code ${code}`}) during the job`));
    });
  }

  static async start(command: string[], env: Record<string, string>, exchange: string | null): Promise<ImageWorkerProcess> {
    const [program, ...args] = command;
    // fork() is spawn with an IPC channel on fd 3; the program may be a sandbox wrapper around node.
    const child = fork(args[args.length - 1]!, [], {
      execPath: program!,
      execArgv: args.slice(0, -1),
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString();
    });
    const hello = await new Promise<WorkerHello>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the image worker did not start within ${START_TIMEOUT_MS} ms`));
      }, START_TIMEOUT_MS);
      child.once('message', (message: WorkerHello) => {
        clearTimeout(timer);
        resolve(message);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the image worker exited at start (${signal ?? `code ${code}`}): ${stderr.trim().slice(0, 500)}`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    return new ImageWorkerProcess(child, exchange, hello);
  }

  alive(): boolean {
    return !this.#exited && this.#child.connected;
  }

  call(job: ImageJob): Promise<WorkerReply> {
    if (!this.alive()) return Promise.reject(new Error('the image worker is not running'));
    const id = this.#nextId++;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.#pending = { id, resolve, reject };
      this.#child.send({ id, job });
    });
  }

  async stop(): Promise<void> {
    if (!this.#exited) {
      const gone = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
      this.#child.kill('SIGKILL');
      await gone;
    }
    if (this.exchange !== null) await rm(this.exchange, { recursive: true, force: true });
  }
}

const FAILURE_STATUS: Record<string, { status: number; message: string }> = {
  image_too_large: { status: 422, message: 'The image is too large to convert' },
  image_unreadable: { status: 422, message: 'The image could not be read' },
  unsafe_image: { status: 422, message: 'The image holds content that is refused' },
  unsupported_image: { status: 422, message: 'This kind of image is not supported' },
};

export class ImageEngine {
  readonly supervisor: EngineSupervisor<ImageWorkerProcess>;
  readonly limits: ImageLimits;
  readonly #options: ImageEngineOptions;
  readonly #logger: EngineLogger;
  #exchangeRoot: Promise<string> | null = null;
  #ownsExchange = false;

  constructor(options: ImageEngineOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? stderrLogger;
    this.limits = { ...DEFAULT_IMAGE_LIMITS, ...options.limits };
    this.supervisor = new EngineSupervisor<ImageWorkerProcess>({
      name: 'image',
      label: 'sharp (libvips)',
      probe: async () => this.#probe(),
      start: (index) => this.#start(index),
      workers: options.workers ?? defaultImageWorkers(),
      jobsPerWorker: 1,
      ...(options.maxQueued === undefined ? {} : { maxQueued: options.maxQueued }),
      jobTimeoutMs: options.jobTimeoutMs ?? 60_000,
      maxJobsPerWorker: options.maxJobsPerWorker ?? 200,
      onTimeout: 'restart',
      logger: this.#logger,
    });
  }

  /** Converts (or resizes, rotates, compresses, strips) one image; see ImageConvertJob. */
  async convert(job: Omit<ImageConvertJob, 'op' | 'limits'>, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ImageConvertResult> {
    await this.#checkOutputSize(job);
    return (await this.#run({ ...job, op: 'convert', limits: this.limits }, options)) as ImageConvertResult;
  }

  /** Format, dimensions, frames, alpha, EXIF and ICC of one image (it is decoded once, so a truncated file is refused). */
  async metadata(job: Omit<ImageMetadataJob, 'op' | 'limits'>, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ImageMetadata> {
    return (await this.#run({ ...job, op: 'metadata', limits: this.limits }, options)) as ImageMetadata;
  }

  status(): Promise<EngineStatus> {
    return this.supervisor.status();
  }

  /**
   * IMAGE_MAX_PIXELS bounds what a job writes as well as what it reads: a 64 x 64 PNG resized to
   * 16384 x 16384 would hold a worker for half a minute for one credit. The result's size follows
   * from the header (read here, in a few small reads, before the job is queued); the worker checks
   * again with the decoder's own view (EXIF orientation included) before it decodes a pixel.
   */
  async #checkOutputSize(job: Omit<ImageConvertJob, 'op' | 'limits'>): Promise<void> {
    if (job.resize === undefined && (job.rotate === undefined || job.rotate % 90 === 0)) return;
    const header = await readImageHeader(job.inputPath, job.inputKind).catch(() => undefined);
    // An unreadable header is the pipeline's and the decoder's to answer.
    if (header === undefined || header.width <= 0 || header.height <= 0) return;
    const size = plannedOutputSize(header, job);
    const animated = job.animated === true && ANIMATED_FORMATS.has(job.format === 'same' ? job.inputKind : job.format);
    const frames = animated ? header.frames : 1;
    const over = outputOverLimit(size, frames, this.limits.maxPixels);
    if (over === null) return;
    throw new ServiceError(422, 'image_too_large', 'The result would be larger than the image size limit', {
      detail: over,
      extra: { requested: { width: size.width, height: size.height, frames, pixels: size.width * size.height * frames }, maxPixels: this.limits.maxPixels },
    });
  }

  availability(): Promise<EngineProbe> {
    return this.supervisor.probe();
  }

  warm(): Promise<void> {
    return this.supervisor.warm();
  }

  async close(): Promise<void> {
    await this.supervisor.close();
    if (this.#ownsExchange && this.#exchangeRoot) await rm(await this.#exchangeRoot, { recursive: true, force: true });
  }

  async #run(job: ImageJob, options: { signal?: AbortSignal; timeoutMs?: number }): Promise<ImageConvertResult | ImageMetadata> {
    return this.supervisor.run(async (worker) => {
      const reply = worker.exchange === null ? await worker.call(job) : await this.#throughExchange(worker, job, worker.exchange);
      if (reply.ok) return reply.result;
      if (reply.code === null) throw new Error(reply.message);
      const failure = FAILURE_STATUS[reply.code]!;
      throw new ServiceError(failure.status, reply.code, failure.message, { detail: reply.message });
    }, options);
  }

  /** A sandboxed worker sees only its exchange folder: the input goes in, the output comes out. */
  async #throughExchange(worker: ImageWorkerProcess, job: ImageJob, exchange: string): Promise<WorkerReply> {
    const id = randomUUID();
    const input = path.join(exchange, `${id}-in`);
    const output = path.join(exchange, `${id}-out`);
    await linkOrCopy(job.inputPath, input);
    try {
      const reply = await worker.call({ ...job, inputPath: input, ...(job.op === 'convert' ? { outputPath: output } : {}) });
      // As a regular file only: a link the worker left is never followed on the host (job-folder.ts).
      if (reply.ok && job.op === 'convert') await takeResult(output, job.outputPath);
      return reply;
    } finally {
      await rm(input, { force: true });
      await rm(output, { force: true });
    }
  }

  #probe(): EngineProbe {
    const paths = projectPaths();
    if (paths === null) return { ok: false, missing: 'the sharp npm package (npm install sharp)' };
    const require = createRequire(import.meta.url);
    const version = (require(paths.sharpPackage) as { version?: string }).version ?? 'unknown';
    return { ok: true, version: `sharp ${version}` };
  }

  #exchangeBase(): Promise<string> {
    this.#exchangeRoot ??= (async () => {
      if (this.#options.exchangeDir) {
        await mkdir(this.#options.exchangeDir, { recursive: true, mode: 0o700 });
        return this.#options.exchangeDir;
      }
      this.#ownsExchange = true;
      return makeEngineTempDir('image');
    })();
    return this.#exchangeRoot;
  }

  async #start(index: number): Promise<ImageWorkerProcess> {
    const paths = projectPaths();
    if (paths === null) throw new Error('sharp is not installed');
    // Two malloc arenas: glibc's default (8 per core, 64 MB of address space each) both bloats RSS
    // and exhausts the address-space limit under libvips' threads ("VipsJpeg: Insufficient memory").
    const env = { IMAGE_THREADS: String(this.#options.threads ?? 2), MALLOC_ARENA_MAX: '2' };
    const limit = await memoryLimitPrefix(this.#options.memoryLimitBytes ?? 3 * 1024 ** 3);
    const mode = this.#options.sandbox ?? 'auto';
    const exchange = mode === 'none' ? null : path.join(await this.#exchangeBase(), `worker-${index}-${randomUUID()}`);
    if (exchange !== null) await mkdir(exchange, { recursive: true, mode: 0o700 });
    const nodeHome = path.dirname(path.dirname(process.execPath));
    const sandboxed = await sandboxCommand({
      command: [process.execPath, WORKER_SCRIPT],
      writable: exchange === null ? [] : [exchange],
      // Node, the packages and the engine sources, read-only at their own paths; nothing else of the project.
      readOnly: [nodeHome, paths.nodeModules, paths.packageJson, ENGINE_SOURCES].map((host) => ({ host, inside: host })),
      // fork's IPC channel is fd 3; bwrap clears the environment, so the variables node reads it from are set again.
      env: { ...env, NODE_CHANNEL_FD: '3', NODE_CHANNEL_SERIALIZATION_MODE: 'json' },
      ...(exchange === null ? {} : { cwd: exchange }),
      mode: mode === 'none' ? 'none' : mode,
      engine: 'image',
      logger: this.#logger,
    });
    const command = [...(limit ?? []), ...sandboxed.command];
    if (sandboxed.isolation !== 'bwrap') {
      // Without bwrap the worker sees the real paths: no exchange folder is needed.
      if (exchange !== null) await rm(exchange, { recursive: true, force: true });
      return ImageWorkerProcess.start(command, sandboxed.env, null);
    }
    return ImageWorkerProcess.start(command, sandboxed.env, exchange);
  }
}

/**
 * Image workers by cores: half of them (each job runs IMAGE_THREADS libvips threads), at least two
 * so one long conversion never holds every image job of the service, at most eight.
 */
export function defaultImageWorkers(): number {
  return Math.min(8, Math.max(2, Math.floor(os.availableParallelism() / 2)));
}

export const imageEngine = defineEngine({
  name: 'image',
  label: 'sharp',
  credits: 1,
  settings: z.object({
    IMAGE_WORKERS: z.coerce.number().int().min(1).max(16).default(defaultImageWorkers).describe('image worker processes, each converting one image at a time (libvips uses IMAGE_THREADS threads within it); default: half the cores, 2 to 8'),
    IMAGE_THREADS: z.coerce.number().int().min(1).max(64).default(2).describe('libvips threads per image job'),
    IMAGE_MAX_PIXELS: z.coerce.number().int().min(1).default(DEFAULT_IMAGE_LIMITS.maxPixels).describe('width x height an uploaded image may declare; larger ones (pixel floods) are refused from the header, before decoding'),
    IMAGE_MAX_FRAMES: z.coerce.number().int().min(1).default(DEFAULT_IMAGE_LIMITS.maxFrames).describe('frames an uploaded GIF, WebP or TIFF may hold'),
    IMAGE_MEMORY_LIMIT_MB: z.coerce.number().int().min(0).default(3072).describe('address-space limit of each image worker in MB (0 = none)'),
  }),
  fromSettings: (s): ImageEngineOptions => ({
    workers: s.IMAGE_WORKERS,
    threads: s.IMAGE_THREADS,
    limits: { maxPixels: s.IMAGE_MAX_PIXELS, maxFrames: s.IMAGE_MAX_FRAMES },
    memoryLimitBytes: s.IMAGE_MEMORY_LIMIT_MB * 1024 * 1024,
  }),
  create: (options) => new ImageEngine(options),
});
