import { compareFeatures } from '../runs/feature-memory/feature-comparison.ts';
import type { FeatureView } from '../runs/feature-memory/feature-store.ts';
import { html, type Html } from './html.ts';
import { cellOf, countsOf, GATE_TEXT, matrixDays, type FeatureHistory } from './feature-matrix.ts';
import { FEATURES_PATH, page, sectionsNav, WEBHOOKS_PATH, type SignedInView } from './pages.ts';

/** '2026-11-27 17:20 UTC', as the keys page writes times: the same in every locale. */
function when(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

function gateText(f: FeatureView): Html {
  return html`<span class="gate ${f.gate}">${GATE_TEXT[f.gate]}</span>`;
}

function countsText(f: FeatureView): string {
  const c = countsOf(f);
  const checks = c.rated === 0 ? 'no checks rated' : `${c.good} of ${c.rated} checks good`;
  return `${checks}, ${c.findings} ${c.findings === 1 ? 'finding' : 'findings'} left`;
}

/** What the feature checks: its project scope (a site's origin, or the agent's own name) and the job. */
function targetOf(f: FeatureView): Html {
  const job = f.playbookId ?? f.goal;
  return html`<code>${f.projectScope}</code>${job ? html`<br><span class="muted">${f.playbookId ? 'playbook' : 'goal'} ${job}</span>` : ''}`;
}

const featureHref = (id: string): string => `${FEATURES_PATH}/${encodeURIComponent(id)}`;

export interface FeaturesView {
  histories: FeatureHistory[];
  /** records stored in all (the page reads the newest `shown`) */
  total: number;
  shown: number;
  /** current record ids of the features improved since the last visit */
  improved: ReadonlySet<string>;
  seenAt: string | null;
  signedIn: SignedInView;
}

function featureTable(view: FeaturesView): Html {
  return html`<div class="table-scroll"><table>
<caption class="visually-hidden">Each feature's latest gate state, newest first</caption>
<thead><tr><th scope="col">Feature</th><th scope="col">Target</th><th scope="col">Latest gate</th><th scope="col">Checks</th><th scope="col">Recorded</th><th scope="col">Since your last visit</th></tr></thead>
<tbody>
${view.histories.map(({ current: f, records }) => html`<tr><th scope="row"><a href="${featureHref(f.featureId)}">${f.title}</a><br><span class="muted">${f.source === 'auto' ? 'recorded on a gate pass' : 'captured by hand'}, ${records.length} ${records.length === 1 ? 'record' : 'records'}</span></th><td>${targetOf(f)}</td><td>${gateText(f)}</td><td>${countsText(f)}</td><td>${when(f.createdAt)}</td><td>${view.improved.has(f.featureId) ? html`<strong>improved</strong>` : view.seenAt === null || f.createdAt > view.seenAt ? 'new record' : '—'}</td></tr>`)}
</tbody>
</table></div>`;
}

function matrix(histories: readonly FeatureHistory[]): Html {
  const days = matrixDays(histories);
  return html`<div class="table-scroll"><table class="matrix">
<caption class="visually-hidden">The gate each feature's records reached per day (UTC), newest day first; "no record" when none was made that day</caption>
<thead><tr><th scope="col">Feature</th>${days.map((d) => html`<th scope="col"><time datetime="${d}">${d}</time></th>`)}</tr></thead>
<tbody>
${histories.map((h) => html`<tr><th scope="row">${h.current.title}</th>${days.map((d) => {
    const cell = cellOf(h, d);
    return cell ? html`<td class="gate ${cell.gate}">${GATE_TEXT[cell.gate]}</td>` : html`<td class="muted">no record</td>`;
  })}</tr>`)}
</tbody>
</table></div>`;
}

export function featuresPage(view: FeaturesView): string {
  const empty = view.histories.length === 0;
  return page(
    'Feature memory',
    html`<div class="layout">
${sectionsNav(FEATURES_PATH)}
<main>
<h1>Feature memory</h1>
<p>What your agents built and verified over MCP: a feature is recorded when <code>verify_task</code>, <code>run_playbook</code> or <code>solve_task</code> reach a gate pass, or captured by hand with <code>capture_feature</code>. A failing run records nothing, so a day without a pass shows “no record”. Each pass also reaches your <a href="${WEBHOOKS_PATH}">webhooks</a> with the <code>mcp.job.finished</code> event.</p>
${view.improved.size > 0 && html`<p class="notice" role="status"><strong>${String(view.improved.size)} ${view.improved.size === 1 ? 'feature' : 'features'} improved</strong> since your last visit${view.seenAt ? html` (${when(view.seenAt)})` : ''}: marked below.</p>`}
${
  empty
    ? html`<p>No feature is stored yet. Run a playbook or a goal over MCP (see <a href="/dashboard/mcp">MCP setup</a>); its gate pass is recorded here.</p>`
    : html`<h2>Features</h2>
${featureTable(view)}
${view.shown < view.total && html`<p class="muted">The newest ${String(view.shown)} of ${String(view.total)} records are read; older features are not listed here (<code>list_feature_memory</code> pages through all of them).</p>`}
<h2>Matrix over time</h2>
${matrix(view.histories)}`
}
</main>
</div>`,
    view.signedIn,
  );
}

function changes(from: FeatureView, to: FeatureView): Html {
  const c = compareFeatures(from, to);
  const items = [...c.improvements.map((t) => `better: ${t}`), ...c.regressions.map((t) => `worse: ${t}`)];
  return html`${c.improved ? html`<strong>improved</strong>` : c.regressions.length > 0 ? 'regressed' : 'no change in quality'}${items.length > 0 && html`<ul class="plain">${items.map((t) => html`<li>${t}</li>`)}</ul>`}`;
}

export function featurePage(history: FeatureHistory, signedIn: SignedInView): string {
  const f = history.current;
  return page(
    f.title,
    html`<div class="layout">
${sectionsNav(FEATURES_PATH)}
<main>
<p><a href="${FEATURES_PATH}">Feature memory</a></p>
<h1>${f.title}</h1>
${f.superseded && f.supersededBy && html`<p class="notice">A newer record replaced this one: <a href="${featureHref(f.supersededBy)}">read the current record</a>.</p>`}
<dl class="facts">
<div><dt>Target</dt><dd>${targetOf(f)}</dd></div>
<div><dt>Latest gate</dt><dd>${gateText(f)} (${countsText(f)})</dd></div>
<div><dt>Recorded</dt><dd>${when(f.createdAt)}, ${f.source === 'auto' ? 'on a gate pass' : 'by hand'}</dd></div>
<div><dt>Feature id</dt><dd><code>${f.featureId}</code></dd></div>
</dl>
<h2>Requirements</h2>
${f.requirements.length === 0 ? html`<p class="muted">None recorded.</p>` : html`<ul>${f.requirements.map((r) => html`<li>${r}</li>`)}</ul>`}
<h2>Acceptance</h2>
${f.acceptance.length === 0 ? html`<p class="muted">None recorded.</p>` : html`<ul>${f.acceptance.map((r) => html`<li>${r}</li>`)}</ul>`}
<h2>History</h2>
<div class="table-scroll"><table>
<caption class="visually-hidden">This feature's records, newest first, each compared with the one before it</caption>
<thead><tr><th scope="col">Recorded</th><th scope="col">Gate</th><th scope="col">Checks</th><th scope="col">Compared with the record before</th></tr></thead>
<tbody>
${history.records.map((r, i) => {
  const before = history.records[i + 1];
  return html`<tr><th scope="row">${when(r.createdAt)}</th><td>${gateText(r)}</td><td>${countsText(r)}</td><td>${before ? changes(before, r) : html`<span class="muted">first record</span>`}</td></tr>`;
})}
</tbody>
</table></div>
</main>
</div>`,
    signedIn,
  );
}
