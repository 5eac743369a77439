// Planned restarts of the supervisor's workers, with fake workers: after a number of jobs
// (staggered), and when a worker asks to be (EngineWorker.recycleReason, e.g. a LibreOffice
// instance past its memory bound), one at a time. Tests wait on events, never on a guessed sleep.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { supervisor } from './support/fake-workers.ts';

describe('EngineSupervisor: planned restarts', () => {
  it('restarts a worker after N jobs', async () => {
    const { sup, workers } = supervisor({ workers: 1, maxJobsPerWorker: 3 });
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push(await sup.run(async (w) => w.id));
    assert.deepEqual(ids, [1, 1, 1, 2, 2, 2, 3].map((n) => workers[n - 1]!.id));
    assert.ok(workers[0]!.stopped && workers[1]!.stopped);
    await sup.close();
  });

  it('staggers recycling so that the workers of a pool never restart together', async () => {
    const { sup, workers, untilWorkers } = supervisor({ workers: 2, maxJobsPerWorker: 4 });
    // Pairs of jobs share the two workers evenly: worker 0 recycles after 4 jobs, worker 1 after 6.
    for (let round = 0; round < 4; round++) await Promise.all([sup.run(async (w) => w.id), sup.run(async (w) => w.id)]);
    await untilWorkers(3);
    assert.equal(workers.filter((w) => w.stopped).length, 1, 'after 8 jobs one worker was recycled, not both');
    for (let round = 0; round < 2; round++) await Promise.all([sup.run(async (w) => w.id), sup.run(async (w) => w.id)]);
    await untilWorkers(4);
    assert.equal(workers.filter((w) => w.stopped).length, 2, 'the second worker recycles later');
    await sup.close();
  });

  it('restarts a worker that asks to be after the job that made it ask; that job keeps its answer', async () => {
    const { sup, workers } = supervisor({ workers: 1 });
    // A worker that does not ask keeps serving (no job count set).
    for (let i = 0; i < 3; i++) assert.equal(await sup.run(async (w) => w.id), workers[0]!.id);
    const answer = await sup.run(async (w) => {
      w.reason = 'grew past its bound';
      return `converted on ${w.id}`;
    });
    assert.equal(answer, `converted on ${workers[0]!.id}`);
    await workers[0]!.whenStopped;
    assert.equal(await sup.run(async (w) => w.id), workers[1]!.id, 'the next job runs on a fresh worker');
    assert.equal(workers.length, 2);
    assert.equal(workers[1]!.stopped, false);
    await sup.close();
  });

  it('holds a planned restart while another worker restarts; the waiting worker serves meanwhile', { timeout: 20_000 }, async () => {
    let openThird: () => void = () => {};
    const third = new Promise<void>((resolve) => {
      openThird = resolve;
    });
    const liveAtStart: number[] = [];
    const { sup, workers, untilWorkers } = supervisor(
      { workers: 2 },
      {
        beforeStart: async (n) => {
          if (n <= 2) return;
          liveAtStart.push(workers.filter((w) => w.alive()).length);
          if (n === 3) await third;
        },
      },
    );
    await sup.warm();
    assert.equal(workers.length, 2);
    const ask = (w: (typeof workers)[number]): number => {
      w.reason = 'grew past its bound';
      return w.id;
    };
    // The first asks and restarts; its successor's start is held open by the test.
    const firstId = await sup.run(async (w) => ask(w));
    const first = workers.find((w) => w.id === firstId)!;
    await first.whenStopped;
    const other = workers.find((w) => w !== first)!;
    // The other asks too while the first is down: it is not restarted, and takes the next job.
    assert.equal(await sup.run(async (w) => ask(w)), other.id);
    assert.equal(other.stopped, false, 'not stopped while the first is restarting');
    assert.equal(await sup.run(async (w) => w.id), other.id, 'the worker that asked still serves');
    // Once the first's successor is up, the waiting one restarts (it is idle: nothing else wakes it).
    openThird();
    await other.whenStopped;
    await untilWorkers(4);
    assert.deepEqual(liveAtStart, [1, 1], 'one worker was always up: the restarts came one after the other');
    const ids = await Promise.all([sup.run(async (w) => w.id), sup.run(async (w) => w.id)]);
    assert.deepEqual(ids.sort(), [workers[2]!.id, workers[3]!.id].sort());
    await sup.close();
  });
});
