export interface Plan {
  id: string;
  title: string;
  monthlyCredits: number;
  requestsPerMinute: number;
  /** Tool families the plan does not include; a call to one answers 403. */
  excludedFamilies: readonly string[];
}

export const PLANS: Readonly<Record<string, Plan>> = {
  free: { id: 'free', title: 'Free', monthlyCredits: 500, requestsPerMinute: 30, excludedFamilies: ['ai-models'] },
  starter: { id: 'starter', title: 'Starter', monthlyCredits: 10_000, requestsPerMinute: 120, excludedFamilies: [] },
  pro: { id: 'pro', title: 'Pro', monthlyCredits: 50_000, requestsPerMinute: 600, excludedFamilies: [] },
  business: { id: 'business', title: 'Business', monthlyCredits: 250_000, requestsPerMinute: 3000, excludedFamilies: [] },
};

export const PLAN_IDS = Object.keys(PLANS) as [string, ...string[]];

export function getPlan(id: string): Plan | undefined {
  return Object.hasOwn(PLANS, id) ? PLANS[id] : undefined;
}
