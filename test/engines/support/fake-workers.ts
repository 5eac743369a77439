// Fake workers for the supervisor's tests (supervisor.test.ts, supervisor-recycle.test.ts): a
// worker that can be marked dead or ask to be recycled, a supervisor over them that records every
// worker it started, and helpers that wait on the supervisor's events instead of sleeping.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError } from '../../../src/core/errors.ts';
import { EngineSupervisor, type EngineProbe, type JobStart, type SupervisorOptions } from '../../../src/engines/supervisor.ts';

export class FakeWorker {
  static started = 0;
  readonly id: number;
  dead = false;
  stopped = false;
  /** what recycleReason() answers: set it inside a job, as a real worker measures during one */
  reason: string | null = null;
  readonly whenStopped: Promise<void>;
  private markStopped: () => void = () => {};
  constructor() {
    this.id = ++FakeWorker.started;
    this.whenStopped = new Promise((resolve) => {
      this.markStopped = resolve;
    });
  }
  alive(): boolean {
    return !this.dead && !this.stopped;
  }
  recycleReason(): string | null {
    return this.reason;
  }
  async stop(): Promise<void> {
    this.stopped = true;
    this.markStopped();
  }
}

export interface FakeStarts {
  /** awaited before the n-th worker (1-based, counted over the supervisor's life) is made */
  beforeStart?: (n: number) => Promise<void>;
}

export function supervisor(options: Partial<SupervisorOptions<FakeWorker>> = {}, hooks: FakeStarts = {}) {
  const workers: FakeWorker[] = [];
  const waitingFor: { count: number; resolve: () => void }[] = [];
  let begun = 0;
  const sup = new EngineSupervisor<FakeWorker>({
    name: 'fake',
    label: 'Fake',
    probe: async (): Promise<EngineProbe> => ({ ok: true, version: '1.0' }),
    start: async () => {
      await hooks.beforeStart?.(++begun);
      await sleep(5);
      const worker = new FakeWorker();
      workers.push(worker);
      for (const w of waitingFor.filter((w) => workers.length >= w.count)) w.resolve();
      return worker;
    },
    ...options,
  });
  /** Resolves once `count` workers have been started in all. */
  const untilWorkers = (count: number): Promise<void> =>
    workers.length >= count ? Promise.resolve() : new Promise((resolve) => waitingFor.push({ count, resolve }));
  return { sup, workers, untilWorkers };
}

/** The next job start on `sup` (of `owner` when given). */
export function nextStart(sup: EngineSupervisor<FakeWorker>, owner?: string | null): Promise<JobStart> {
  return new Promise((resolve) => {
    const off = sup.onJobStart((job) => {
      if (owner !== undefined && job.owner !== owner) return;
      off();
      resolve(job);
    });
  });
}

/** Resolves after `count` jobs of `owner` have started. */
export function starts(sup: EngineSupervisor<FakeWorker>, owner: string | null, count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const off = sup.onJobStart((job) => {
      if (job.owner !== owner || ++seen < count) return;
      off();
      resolve();
    });
  });
}

/** A job body that runs until the test opens its gate. */
export function gate(): { job: () => Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { job: () => opened, open };
}

export function assertServiceError(error: unknown, status: number, code: string): ServiceError {
  assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
  assert.equal(error.status, status);
  assert.equal(error.error, code);
  return error;
}
