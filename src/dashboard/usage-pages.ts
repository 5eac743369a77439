import type { DayUsage } from '../accounts/activity-store.ts';
import { getPlan } from '../accounts/plans.ts';
import { html, type Html } from './html.ts';
import { dailyUsage } from './usage-chart.ts';
import { page, sectionsNav, USAGE_PATH, type SignedInView, type UsageSummary } from './pages.ts';

const number = new Intl.NumberFormat('en');
const credits = (n: number): string => `${number.format(n)} ${n === 1 ? 'credit is' : 'credits are'}`;

/** The share of the quota at which the page warns, and at which calls stop (the quota itself). */
export const NEAR_QUOTA = 0.8;

/**
 * The quota notice: none below 80%, a warning from 80%, an alert at 100% (metered calls are then
 * refused until the reset). A quota of 0 counts as spent.
 */
export function quotaNotice(usage: Pick<UsageSummary, 'used' | 'quota'>, resetText: string): Html | undefined {
  const share = usage.quota <= 0 ? 1 : usage.used / usage.quota;
  if (share >= 1) {
    return html`<p class="notice error" role="alert"><strong>The monthly quota is used up.</strong> Calls that cost credits are refused until the credits reset on ${resetText}, or until the plan changes.</p>`;
  }
  if (share >= NEAR_QUOTA) {
    return html`<p class="notice warning" role="status"><strong>${String(Math.floor(share * 100))}% of the monthly quota is used.</strong> ${credits(usage.quota - usage.used)} left until ${resetText}.</p>`;
  }
  return undefined;
}

function toolTable(usage: UsageSummary): Html {
  if (usage.byTool.length === 0) return html`<p>No calls this month yet.</p>`;
  // Top tools first: the most credits, then the most calls, then by name (a stable order).
  const rows = [...usage.byTool].sort((a, b) => b.credits - a.credits || b.calls - a.calls || a.operationId.localeCompare(b.operationId));
  return html`<div class="table-scroll"><table>
<caption class="visually-hidden">Calls, failures and credits per tool this month, most credits first</caption>
<thead><tr><th scope="col">Tool</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Failures</th><th scope="col" class="num">Credits</th></tr></thead>
<tbody>
${rows.map((r) => html`<tr><th scope="row"><code>${r.operationId}</code></th><td class="num">${number.format(r.calls)}</td><td class="num">${number.format(r.failures)}</td><td class="num">${number.format(r.credits)}</td></tr>`)}
</tbody>
</table></div>`;
}

function keyTable(usage: UsageSummary): Html {
  if (usage.byKey.length === 0) return html`<p>No key has made a call this month yet.</p>`;
  const rows = [...usage.byKey].sort((a, b) => b.credits - a.credits || b.calls - a.calls || a.keyId.localeCompare(b.keyId));
  return html`<div class="table-scroll"><table>
<caption class="visually-hidden">Calls, failures and credits per API key this month</caption>
<thead><tr><th scope="col">Key</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Failures</th><th scope="col" class="num">Credits</th></tr></thead>
<tbody>
${rows.map(
  (r) =>
    html`<tr><th scope="row">${r.name ?? html`<span class="muted">a deleted key</span>`}</th><td class="num">${number.format(r.calls)}</td><td class="num">${number.format(r.failures)}</td><td class="num">${number.format(r.credits)}</td></tr>`,
)}
</tbody>
</table></div>`;
}

/**
 * The usage page: the same figures as GET /api/v1/usage (AccountStore.usageSummary), for people,
 * and `days`, the month's days so far with their calls and credits (usage_days), as charts and a table.
 */
export function usagePage(usage: UsageSummary, days: readonly DayUsage[], signedIn: SignedInView): string {
  const plan = getPlan(usage.plan);
  const resetText = new Date(usage.resetAt).toLocaleDateString('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
  const notice = quotaNotice(usage, resetText);
  // Credits are whole numbers: with the bounds half a credit below 80% and 100%, the browser
  // colours the bar as it does the notices (fine, then from 80% a warning, at 100% bad).
  const max = Math.max(usage.quota, 1);
  const low = Math.max(0, usage.quota * NEAR_QUOTA - 0.5);
  const high = Math.max(low, max - 0.5);
  return page(
    'Usage',
    html`<div class="layout">
${sectionsNav(USAGE_PATH)}
<main>
<h1>Usage</h1>
${notice}
<h2>Credits in ${usage.period}</h2>
<dl class="figures">
<div><dt>Used</dt><dd>${number.format(usage.used)}</dd></div>
<div><dt>Left</dt><dd>${number.format(usage.remaining)}</dd></div>
<div><dt>Monthly quota</dt><dd>${number.format(usage.quota)}</dd></div>
</dl>
<label for="quota-meter">Share of the monthly quota used</label>
<meter id="quota-meter" min="0" max="${String(max)}" low="${String(low)}" high="${String(high)}" optimum="0" value="${String(Math.min(usage.used, max))}">${number.format(usage.used)} of ${number.format(usage.quota)} credits</meter>
<p>The credits reset on <time datetime="${usage.resetAt}">${resetText}</time> (00:00 UTC).</p>
<h2>Per day</h2>
${dailyUsage(usage.period, days)}
<h2>Plan</h2>
<dl class="facts">
<div><dt>Plan</dt><dd>${plan?.title ?? usage.plan}</dd></div>
<div><dt>Credits a month</dt><dd>${number.format(usage.quota)}</dd></div>
<div><dt>Requests a minute</dt><dd>${number.format(usage.requestsPerMinute)}</dd></div>
${plan && html`<div><dt>Engine jobs at once</dt><dd>${String(plan.engineJobs)}</dd></div>
<div><dt>Async runs at once</dt><dd>${String(plan.runsAtOnce)} (${String(plan.runsWaiting)} more waiting)</dd></div>
<div><dt>Tool families not included</dt><dd>${plan.excludedFamilies.length === 0 ? 'none' : plan.excludedFamilies.join(', ')}</dd></div>`}
</dl>
<h2>Per tool</h2>
${toolTable(usage)}
<h2>Per key</h2>
${keyTable(usage)}
</main>
</div>`,
    signedIn,
  );
}
