// The usage page's calls and credits per day this month: bar charts as inline SVG in the HTML
// (no script, no style attribute: the CSP's style-src 'self' forbids those, so geometry is SVG
// attributes and colour comes from classes in the stylesheet), each with an accessible name that
// states its totals, and the same figures in a table beneath, so a chart is never the only way
// to read them.
import type { DayUsage } from '../accounts/activity-store.ts';
import { html, type Html } from './html.ts';

const number = new Intl.NumberFormat('en');

/** Every day of the month from the 1st to `last` (`YYYY-MM-DD`), with the figures of those that had calls. */
export function monthDays(period: string, last: string, rows: readonly DayUsage[]): DayUsage[] {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const count = Number(last.slice(8, 10));
  return Array.from({ length: count }, (_, i) => {
    const day = `${period}-${String(i + 1).padStart(2, '0')}`;
    return byDay.get(day) ?? { day, calls: 0, failures: 0, credits: 0 };
  });
}

/**
 * The last day the chart shows: today while `period` is the current month (the month so far),
 * else the month's last day; later if a day with figures lies beyond (a clock set ahead).
 */
export function lastChartDay(period: string, today: string, rows: readonly DayUsage[]): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const monthEnd = `${period}-${String(new Date(Date.UTC(year, month, 0)).getUTCDate()).padStart(2, '0')}`;
  let last = today.startsWith(period) ? today : monthEnd;
  for (const r of rows) if (r.day > last && r.day <= monthEnd) last = r.day;
  return last;
}

// The drawing's own units (the viewBox): the SVG scales to the column's width.
const LEFT = 34;
const TOP = 8;
const PLOT_HEIGHT = 96;
const BOTTOM = 18;
const STEP = 12;

/** One series as bars, one per day, scaled to its own largest day; labelled by `titleId`. */
function barChart(id: string, days: readonly DayUsage[], series: { key: 'calls' | 'credits'; unit: [string, string]; title: string }): Html {
  const values = days.map((d) => d[series.key]);
  const max = Math.max(1, ...values);
  const total = values.reduce((a, b) => a + b, 0);
  const width = LEFT + days.length * STEP + 4;
  const height = TOP + PLOT_HEIGHT + BOTTOM;
  const base = TOP + PLOT_HEIGHT;
  const unit = (n: number) => `${number.format(n)} ${n === 1 ? series.unit[0] : series.unit[1]}`;
  const busiest = days.reduce<DayUsage | undefined>((best, d) => (d[series.key] > (best?.[series.key] ?? 0) ? d : best), undefined);
  const summary = `${series.title}: ${unit(total)} in all${busiest ? `; the most on ${busiest.day}, ${unit(busiest[series.key])}` : ''}.`;
  return html`<svg id="${id}" class="chart" role="img" aria-labelledby="${id}-title" viewBox="0 0 ${String(width)} ${String(height)}" preserveAspectRatio="xMinYMin meet">
<title id="${id}-title">${summary}</title>
<text class="axis" x="${String(LEFT - 4)}" y="${String(TOP + 8)}" text-anchor="end" font-size="9">${number.format(max)}</text>
<text class="axis" x="${String(LEFT - 4)}" y="${String(base)}" text-anchor="end" font-size="9">0</text>
<line class="baseline" x1="${String(LEFT)}" y1="${String(base + 0.5)}" x2="${String(width - 4)}" y2="${String(base + 0.5)}" stroke-width="1"/>
${days.map((d, i) => {
  const value = d[series.key];
  const x = LEFT + i * STEP;
  const dayNumber = Number(d.day.slice(8, 10));
  const label = dayNumber === 1 || dayNumber % 5 === 0 ? html`<text class="axis" x="${String(x + STEP / 2)}" y="${String(base + 13)}" text-anchor="middle" font-size="9">${String(dayNumber)}</text>` : '';
  if (value === 0) return label;
  const h = Math.max(1, Math.round((value / max) * PLOT_HEIGHT));
  return html`<rect class="bar ${series.key}" x="${String(x + 2)}" y="${String(base - h)}" width="${String(STEP - 4)}" height="${String(h)}"><title>${d.day}: ${unit(value)}</title></rect>${label}`;
})}
</svg>`;
}

/** The chart section's body: two charts (calls, credits) and the table of the same figures. */
export function dailyUsage(period: string, days: readonly DayUsage[]): Html {
  const active = days.filter((d) => d.calls > 0);
  if (active.length === 0) return html`<p>No calls this month yet.</p>`;
  return html`<figure class="charts">
<figcaption>Calls and credits per day in ${period} (UTC days), from the 1st to ${days.at(-1)?.day ?? period}; each chart to its own scale.</figcaption>
<h3>Calls</h3>
${barChart('calls-chart', days, { key: 'calls', unit: ['call', 'calls'], title: `Calls per day in ${period}` })}
<h3>Credits</h3>
${barChart('credits-chart', days, { key: 'credits', unit: ['credit', 'credits'], title: `Credits per day in ${period}` })}
</figure>
<details class="day-table">
<summary>The figures per day as a table</summary>
<div class="table-scroll"><table>
<caption class="visually-hidden">Calls, failures and credits per day in ${period}; days without calls are left out</caption>
<thead><tr><th scope="col">Day</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Failures</th><th scope="col" class="num">Credits</th></tr></thead>
<tbody>
${active.map((d) => html`<tr><th scope="row"><time datetime="${d.day}">${d.day}</time></th><td class="num">${number.format(d.calls)}</td><td class="num">${number.format(d.failures)}</td><td class="num">${number.format(d.credits)}</td></tr>`)}
</tbody>
</table></div>
</details>`;
}
