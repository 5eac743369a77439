// Who an engine job is for. The invoke path knows the account; the engines do not, and tools never
// see accounts. AsyncLocalStorage carries the owner from the call that started a tool to every
// engine job the tool queues, so the engine queues can share their slots fairly between accounts
// without the owner passing through the tool's code or its context.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface JobOwner {
  /** the account id */
  id: string;
  /** most jobs this owner may run at once on one engine (its plan's cap) */
  maxJobs: number;
}

const storage = new AsyncLocalStorage<JobOwner>();

/** Runs `fn` (and everything it awaits) as work done for `owner`. */
export function runAsJobOwner<T>(owner: JobOwner, fn: () => T): T {
  return storage.run(owner, fn);
}

/** The owner of the work running now; undefined for the service's own work (warm-up, tests). */
export function currentJobOwner(): JobOwner | undefined {
  return storage.getStore();
}
