// The supervisor with fake workers: queue bounds, fair scheduling between owners, timeouts,
// restarts, missing programs, status. Tests act on events (a job start, a worker start or stop),
// never after a guessed sleep. Planned restarts (a job count, a worker's own reason) are in
// supervisor-recycle.test.ts; the fakes in support/fake-workers.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { unprocessable } from '../../src/core/errors.ts';
import { runAsJobOwner, type JobOwner } from '../../src/engines/job-owner.ts';
import { assertServiceError, FakeWorker, gate, nextStart, starts, supervisor } from './support/fake-workers.ts';

describe('EngineSupervisor', () => {
  it('starts workers lazily and reports status', async () => {
    const { sup, workers } = supervisor({ workers: 2 });
    const before = await sup.status();
    assert.deepEqual(
      { state: before.state, workers: before.workers, version: before.version, concurrency: before.concurrency },
      { state: 'ready', workers: 0, version: '1.0', concurrency: 2 },
    );
    assert.equal(workers.length, 0);
    const result = await sup.run(async (w) => w.id);
    assert.equal(typeof result, 'number');
    assert.equal(workers.length, 1, 'one job starts one worker');
    assert.equal((await sup.status()).workers, 1);
    await sup.close();
    assert.ok(workers.every((w) => w.stopped));
  });

  it('runs jobs in parallel up to the number of slots and queues the rest', async () => {
    const { sup } = supervisor({ workers: 2, maxQueued: 10 });
    let running = 0;
    let peak = 0;
    const job = async (): Promise<void> => {
      running++;
      peak = Math.max(peak, running);
      await sleep(30);
      running--;
    };
    await Promise.all(Array.from({ length: 6 }, () => sup.run(job)));
    assert.equal(peak, 2);
    await sup.close();
  });

  it('answers 429 with Retry-After when the queue is full', async () => {
    const { sup } = supervisor({ workers: 1, maxQueued: 1 });
    const { job, open } = gate();
    const slow = () => sup.run(job);
    const started = nextStart(sup);
    const first = slow();
    await started;
    const second = slow(); // queued at once: the probe is known
    await assert.rejects(slow(), (error) => {
      const e = assertServiceError(error, 429, 'engine_busy');
      assert.match(e.headers['Retry-After'] ?? '', /^[1-9]\d*$/);
      return true;
    });
    assert.equal((await sup.status()).queued, 1);
    open();
    await Promise.all([first, second]);
    await sup.close();
  });

  it("answers 422 document_too_complex when a healthy worker reaches the time limit, restarts it and runs the next job", async () => {
    const { sup, workers } = supervisor({ workers: 1, jobTimeoutMs: 50 });
    await assert.rejects(sup.run(() => new Promise(() => {})), (error) => {
      const e = assertServiceError(error, 422, 'document_too_complex');
      assert.match(e.message, /Fake could not finish this document within 0\.05 s/);
      assert.match(e.detail ?? '', /50 ms/);
      return true;
    });
    assert.ok(workers[0]!.stopped, 'the hung worker was stopped');
    const id = await sup.run(async (w) => w.id);
    assert.notEqual(id, workers[0]!.id, 'the next job ran on a new worker');
    await sup.close();
  });

  it("in 'abort' mode signals the job and keeps the worker when the job stops in time", async () => {
    const { sup, workers } = supervisor({ workers: 1, jobTimeoutMs: 30, onTimeout: 'abort', graceMs: 200 });
    let aborted = false;
    await assert.rejects(
      sup.run(
        (_w, { signal }) =>
          new Promise((_, reject) => {
            signal.addEventListener('abort', () => {
              aborted = true;
              reject(signal.reason);
            });
          }),
      ),
      (error) => !!assertServiceError(error, 422, 'document_too_complex'),
    );
    assert.ok(aborted);
    assert.equal(await sup.run(async (w) => w.id), workers[0]!.id, 'the same worker runs the next job');
    assert.equal(workers[0]!.stopped, false);
    // A job that ignores the signal costs its worker after the grace period.
    await assert.rejects(sup.run(() => new Promise(() => {})), (error) => !!assertServiceError(error, 422, 'document_too_complex'));
    await workers[0]!.whenStopped;
    assert.equal(workers.length, 1, 'stopped after the grace period, not restarted in its place before');
    await sup.close();
  });

  it('maps a crash to 503 engine_crashed and restarts the worker', async () => {
    const { sup, workers } = supervisor({ workers: 1 });
    await assert.rejects(
      sup.run(async (w) => {
        w.dead = true;
        throw new Error('process exited');
      }),
      (error) => !!assertServiceError(error, 503, 'engine_crashed'),
    );
    const id = await sup.run(async (w) => w.id);
    assert.equal(workers.length, 2);
    assert.equal(id, workers[1]!.id);
    await sup.close();
  });

  it('replaces a worker that died while idle', async () => {
    const { sup, workers } = supervisor({ workers: 1 });
    await sup.run(async () => undefined);
    workers[0]!.dead = true;
    const id = await sup.run(async (w) => w.id);
    assert.equal(id, workers[1]!.id);
    await sup.close();
  });

  it('passes the caller-facing errors of a job through and keeps the worker', async () => {
    const { sup, workers } = supervisor({ workers: 1 });
    await assert.rejects(
      sup.run(async () => {
        throw unprocessable('bad file');
      }),
      (error) => !!assertServiceError(error, 422, 'unprocessable_input'),
    );
    await sup.run(async () => undefined);
    assert.equal(workers.length, 1);
    await sup.close();
  });

  it('answers 503 engine_unavailable naming the missing program, and reports it', async () => {
    const { sup } = supervisor({ probe: async () => ({ ok: false, missing: 'frobnicate' }) });
    await assert.rejects(sup.run(async () => 1), (error) => {
      const e = assertServiceError(error, 503, 'engine_unavailable');
      assert.match(e.message, /frobnicate/);
      return true;
    });
    const status = await sup.status();
    assert.equal(status.state, 'missing');
    assert.equal(status.version, null);
    await sup.close();
  });

  it('answers 503 and reports degraded when a worker cannot start, then recovers', async () => {
    let fail = true;
    const { sup } = supervisor({
      start: async () => {
        if (fail) throw new Error('boom');
        return new FakeWorker();
      },
    });
    await assert.rejects(sup.run(async () => 1), (error) => !!assertServiceError(error, 503, 'engine_unavailable'));
    assert.equal((await sup.status()).state, 'degraded');
    fail = false;
    assert.equal(await sup.run(async () => 1), 1);
    assert.equal((await sup.status()).state, 'ready');
    await sup.close();
  });

  it('removes a queued job whose caller gave up', async () => {
    const { sup } = supervisor({ workers: 1, maxQueued: 5 });
    const { job, open } = gate();
    const started = nextStart(sup);
    const first = sup.run(job);
    await started;
    const controller = new AbortController();
    const second = sup.run(async () => 'ran', { signal: controller.signal });
    assert.equal((await sup.status()).queued, 1);
    controller.abort(new Error('client left'));
    await assert.rejects(second, /client left/);
    assert.equal((await sup.status()).queued, 0);
    open();
    await first;
    await sup.close();
  });

  it("answers a caller who leaves mid-job at once, and lets the job finish on its warm worker ('restart' mode)", async () => {
    const { sup, workers } = supervisor({ workers: 1, maxQueued: 5 });
    const controller = new AbortController();
    let finished = false;
    const { job: held, open } = gate();
    const started = nextStart(sup);
    const job = sup.run(
      async () => {
        await held();
        finished = true;
      },
      { signal: controller.signal },
    );
    await started;
    controller.abort(new Error('client left'));
    await assert.rejects(job, /client left/);
    assert.equal(finished, false);
    const nextJob = sup.run(async (w) => w.id); // waits for the slot
    assert.equal((await sup.status()).queued, 1);
    open();
    const next = await nextJob;
    assert.equal(finished, true);
    assert.equal(next, workers[0]!.id);
    assert.equal(workers[0]!.stopped, false);
    await sup.close();
  });

  it('rejects queued jobs on close', async () => {
    const { sup } = supervisor({ workers: 1, maxQueued: 5 });
    const { job, open } = gate();
    const started = nextStart(sup);
    const first = sup.run(job);
    const queued = sup.run(async () => 1);
    await started; // the first job has its worker and runs
    const closing = sup.close();
    await assert.rejects(queued, (error) => !!assertServiceError(error, 503, 'engine_unavailable'));
    open();
    await first;
    await closing;
    await assert.rejects(sup.run(async () => 1), (error) => !!assertServiceError(error, 503, 'engine_unavailable'));
  });
});

describe('EngineSupervisor between accounts', () => {
  const a: JobOwner = { id: 'account-a', maxJobs: 8 };
  const b: JobOwner = { id: 'account-b', maxJobs: 8 };
  const as = <T>(owner: JobOwner, fn: () => Promise<T>): Promise<T> => runAsJobOwner(owner, fn);

  it("runs another account's job queued after one account's five queued jobs before that account's remaining ones", async () => {
    const { sup } = supervisor({ workers: 1, maxQueued: 20, maxQueuedPerOwner: 10 });
    await sup.warm();
    const order: string[] = [];
    sup.onJobStart((job) => order.push(`${job.owner}`));
    const { job, open } = gate();
    const started = nextStart(sup, a.id);
    const jobs = [as(a, () => sup.run(job))];
    await started;
    for (let i = 0; i < 5; i++) jobs.push(as(a, () => sup.run(async () => undefined)));
    jobs.push(as(b, () => sup.run(async () => undefined)));
    assert.equal((await sup.status()).queued, 6);
    open();
    await Promise.all(jobs);
    assert.deepEqual(order, ['account-a', 'account-b', 'account-a', 'account-a', 'account-a', 'account-a', 'account-a']);
    await sup.close();
  });

  it('serves the account with the fewest running jobs first', async () => {
    const { sup } = supervisor({ workers: 4, maxQueued: 20, maxQueuedPerOwner: 10 });
    await sup.warm();
    const order: string[] = [];
    sup.onJobStart((job) => order.push(`${job.owner}`));
    const aGates = [gate(), gate()];
    const aRunning = starts(sup, a.id, 2);
    const jobs = aGates.map((g) => as(a, () => sup.run(g.job)));
    await aRunning;
    // The service's own work (no owner, no cap) takes the other two slots.
    const ownGates = [gate(), gate()];
    const ownRunning = starts(sup, null, 2);
    jobs.push(...ownGates.map((g) => sup.run(g.job)));
    await ownRunning;
    // Every slot is busy: a's next two, b's one and one of the service's own wait.
    const later = [as(a, () => sup.run(async () => undefined)), as(a, () => sup.run(async () => undefined)), as(b, () => sup.run(async () => undefined)), sup.run(async () => undefined)];
    assert.equal((await sup.status()).queued, 4);
    const aThird = nextStart(sup, a.id);
    aGates[0]!.open();
    // b (nothing running) goes first; when its quick job ends, a (one running) before the service (two).
    await aThird;
    assert.deepEqual(order.slice(4), ['account-b', 'account-a']);
    // a is at its cap (two of four slots): the next free slot serves the service, then a's last.
    const ownThird = nextStart(sup, null);
    ownGates[0]!.open();
    await ownThird;
    const aFourth = nextStart(sup, a.id);
    aGates[1]!.open();
    await aFourth;
    ownGates[1]!.open();
    await Promise.all([...jobs, ...later]);
    assert.deepEqual(order.slice(4), ['account-b', 'account-a', 'null', 'account-a']);
    await sup.close();
  });

  it('holds an account to half of the slots whatever its plan allows, so another account starts before its next job', async () => {
    const { sup } = supervisor({ workers: 2, maxQueued: 20, maxQueuedPerOwner: 10 });
    await sup.warm();
    const pro: JobOwner = { id: 'pro-account', maxJobs: 4 };
    const order: string[] = [];
    sup.onJobStart((job) => order.push(`${job.owner}`));
    const gates = Array.from({ length: 4 }, () => gate());
    const first = nextStart(sup, pro.id);
    const flood = gates.map((g) => as(pro, () => sup.run(g.job)));
    await first;
    let status = await sup.status();
    assert.deepEqual({ running: status.running, queued: status.queued }, { running: 1, queued: 3 }, 'a plan of 4 holds one of 2 slots');
    // The other account's job starts at once on the slot the flooder may not take, ahead of its three.
    assert.equal(await as(b, () => sup.run(async () => 'b ran')), 'b ran');
    const otherGate = gate();
    const otherStarted = nextStart(sup, b.id);
    const other = as(b, () => sup.run(otherGate.job));
    await otherStarted;
    assert.deepEqual(order, ['pro-account', 'account-b', 'account-b']);
    status = await sup.status();
    assert.deepEqual({ running: status.running, queued: status.queued }, { running: 2, queued: 3 });
    const next = nextStart(sup, pro.id);
    gates[0]!.open();
    await next;
    for (const g of gates) g.open();
    otherGate.open();
    await Promise.all([...flood, other]);
    assert.deepEqual(order, ['pro-account', 'account-b', 'account-b', 'pro-account', 'pro-account', 'pro-account']);
    await sup.close();
  });

  it("holds an account to its cap on one engine: its jobs over the cap wait while free slots serve others", async () => {
    const { sup } = supervisor({ workers: 3, maxQueued: 20 });
    await sup.warm();
    const capped: JobOwner = { id: 'free-account', maxJobs: 1 };
    const gates = [gate(), gate(), gate()];
    const firstStarted = nextStart(sup, capped.id);
    const jobs = gates.map((g) => as(capped, () => sup.run(g.job)));
    await firstStarted;
    let status = await sup.status();
    assert.deepEqual({ running: status.running, queued: status.queued }, { running: 1, queued: 2 }, 'two slots stay free, the account waits');
    assert.equal(await as(b, () => sup.run(async () => 'b ran')), 'b ran', "another account's job runs at once on a free slot");
    const secondStarted = nextStart(sup, capped.id);
    gates[0]!.open();
    await secondStarted;
    status = await sup.status();
    assert.deepEqual({ running: status.running, queued: status.queued }, { running: 1, queued: 1 });
    gates[1]!.open();
    gates[2]!.open();
    await Promise.all(jobs);
    await sup.close();
  });

  it('answers 429 to the account that fills its share of the queue, while other accounts still queue', async () => {
    const { sup } = supervisor({ workers: 1, maxQueued: 8, maxQueuedPerOwner: 2 });
    await sup.warm();
    const { job, open } = gate();
    const started = nextStart(sup, a.id);
    const jobs = [as(a, () => sup.run(job))];
    await started;
    jobs.push(as(a, () => sup.run(async () => undefined)), as(a, () => sup.run(async () => undefined)));
    await assert.rejects(as(a, () => sup.run(async () => undefined)), (error) => {
      const e = assertServiceError(error, 429, 'engine_busy');
      assert.match(e.headers['Retry-After'] ?? '', /^[1-9]\d*$/);
      assert.match(e.message, /already has 2 of your jobs waiting/);
      return true;
    });
    jobs.push(as(b, () => sup.run(async () => undefined)), as(b, () => sup.run(async () => undefined)));
    assert.equal((await sup.status()).queued, 4, "b's jobs queue although a was refused");
    // The shared bound still holds over all accounts.
    for (let i = 0; i < 4; i++) jobs.push(as({ id: `other-${i}`, maxJobs: 1 }, () => sup.run(async () => undefined)));
    await assert.rejects(as({ id: 'late', maxJobs: 1 }, () => sup.run(async () => undefined)), (error) => {
      const e = assertServiceError(error, 429, 'engine_busy');
      assert.match(e.message, /Fake is busy/);
      return true;
    });
    open();
    await Promise.all(jobs);
    assert.equal((await sup.status()).queued, 0);
    await sup.close();
  });

  it('answers 503 engine_crashed, not 422, when the worker died silently under a job that reached the limit', async () => {
    const { sup, workers } = supervisor({ workers: 1, jobTimeoutMs: 50 });
    await assert.rejects(
      sup.run((w) => {
        w.dead = true;
        return new Promise(() => {});
      }),
      (error) => !!assertServiceError(error, 503, 'engine_crashed'),
    );
    assert.ok(workers[0]!.stopped);
    assert.equal(await sup.run(async () => 'next'), 'next');
    await sup.close();
  });
});
