export interface Plan {
  id: string;
  title: string;
  monthlyCredits: number;
  requestsPerMinute: number;
  /** Tool families the plan does not include; a call to one answers 403. */
  excludedFamilies: readonly string[];
  /**
   * Jobs the account may run at once on each engine (LibreOffice, Chromium, pandoc, poppler);
   * more wait in the account's own line. Per engine, not over all of them, because the engines
   * are separate pools: an account's slow LibreOffice job should not hold up its pdf-to-txt.
   * Whatever the plan, an account never holds more than half of one engine's slots (at least
   * one: fairShare in engines/fair-queue.ts), so a pro account cannot take both of Chromium's.
   */
  engineJobs: number;
  /** Async runs (MCP `async: true`, jobs) of the account executing at once in one process (also at most half the process's run slots). */
  runsAtOnce: number;
  /** Async runs of the account waiting beyond those; one more is refused with 429 runs_busy while other accounts still get in. */
  runsWaiting: number;
}

export const PLANS: Readonly<Record<string, Plan>> = {
  free: { id: 'free', title: 'Free', monthlyCredits: 500, requestsPerMinute: 30, excludedFamilies: ['ai-models'], engineJobs: 1, runsAtOnce: 1, runsWaiting: 4 },
  starter: { id: 'starter', title: 'Starter', monthlyCredits: 10_000, requestsPerMinute: 120, excludedFamilies: [], engineJobs: 2, runsAtOnce: 2, runsWaiting: 10 },
  pro: { id: 'pro', title: 'Pro', monthlyCredits: 50_000, requestsPerMinute: 600, excludedFamilies: [], engineJobs: 4, runsAtOnce: 2, runsWaiting: 20 },
  business: { id: 'business', title: 'Business', monthlyCredits: 250_000, requestsPerMinute: 3000, excludedFamilies: [], engineJobs: 8, runsAtOnce: 4, runsWaiting: 40 },
};

export const PLAN_IDS = Object.keys(PLANS) as [string, ...string[]];

export function getPlan(id: string): Plan | undefined {
  return Object.hasOwn(PLANS, id) ? PLANS[id] : undefined;
}
