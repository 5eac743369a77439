import { once } from 'node:events';
import type { Run } from '../../src/runs/run-store.ts';
import type { TestApp } from './test-app.ts';

/** Every run the app's executor finishes from now on, and a wait for one of them by runId (the event itself, no clock). */
export function finishedRuns(t: TestApp): (runId: string) => Promise<Run> {
  const done = new Map<string, Run>();
  const events = t.services.runExecutor.events;
  events.on('finished', (run: Run) => done.set(run.runId, run));
  return async (runId) => {
    while (!done.has(runId)) await once(events, 'finished');
    return done.get(runId) as Run;
  };
}
