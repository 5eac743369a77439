// The report of page-speed-analyzer in mode=lab: the performance score is the lab's (Lighthouse's
// desktop curves on its estimated metrics, lab-estimate.ts), each of LCP, CLS and TBT is a check
// scored on its curve, and a poor one is a finding with the value, the threshold, what the lab
// knows of its cause (the LCP element, the elements that moved, the scripts of the long tasks) and
// a fix. The proxy's HTML findings stay beside them: they say what to change in the HTML.
import { makeFinding, type Check, type Finding, type Report, type Severity } from '../findings.ts';
import { METRIC_CURVES, METRIC_WEIGHTS, metricScore } from '../lighthouse-curves.ts';
import { buildReport, type RuleDefinition } from '../scoring.ts';
import { PROXY_NOTE } from '../analyzers/page-speed.ts';
import type { LabResult } from './lab-result.ts';

const rule = (id: string, metric: 'lcp' | 'cls' | 'tbt', title: string): RuleDefinition => ({ id, category: 'performance', weight: METRIC_WEIGHTS[metric], severity: 'high', title });

export const LAB_RULES = {
  lcp: rule('lab-lcp-slow', 'lcp', 'Largest Contentful Paint is slow'),
  cls: rule('lab-cls-high', 'cls', 'The layout shifts while the page loads'),
  tbt: rule('lab-tbt-high', 'tbt', 'Long tasks block input (Total Blocking Time)'),
} as const;

const CURVES = METRIC_CURVES.desktop;

export const LAB_NOTE =
  "page speed measured in a lab run: the page loaded in headless Chromium (desktop viewport, unthrottled) and LCP, CLS and TBT measured; " +
  "the performance score is Lighthouse's desktop curves on the metrics as its simulated throttling (40 ms RTT, 10 Mbps, CPU 1x) would estimate them (lab.estimate); the HTML rules of the proxy are listed beside";

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The proxy's report with the lab's checks, findings and score in its performance category. */
export function labReport(proxy: Report, lab: LabResult): Report {
  const checks: Check[] = [...proxy.checks];
  const findings: Finding[] = [...proxy.findings];
  const estimate = lab.estimate;
  const judge = (r: RuleDefinition, metric: 'lcp' | 'cls' | 'tbt', value: number | null, finding: (severity: Severity) => Finding): void => {
    if (value === null) {
      checks.push({ rule: r.id, category: r.category, weight: r.weight, result: 'unknown', score: null });
      return;
    }
    const score = metricScore(metric, value, 'desktop');
    const good = score >= 0.9;
    checks.push({ rule: r.id, category: r.category, weight: r.weight, result: good ? 'pass' : 'fail', score: Math.round(score * 100) / 100 });
    if (!good) findings.push(finding(score < 0.5 ? 'high' : 'medium'));
  };
  judge(LAB_RULES.lcp, 'lcp', estimate?.lcpMs ?? null, (severity) => lcpFinding(lab, estimate?.lcpMs ?? 0, severity));
  judge(LAB_RULES.cls, 'cls', estimate === null ? null : estimate.cls, (severity) => clsFinding(lab, severity));
  judge(LAB_RULES.tbt, 'tbt', estimate === null ? null : estimate.tbtMs, (severity) => tbtFinding(lab, severity));
  const labScore = estimate?.score ?? null;
  const notes = proxy.notes.filter((n) => n !== PROXY_NOTE);
  const fallback = labScore === null ? [`the lab could not measure the page (${lab.notes[0] ?? 'no first paint'}): the performance score is the HTML proxy's`] : [];
  const built = buildReport({
    categories: ['performance'],
    checks,
    findings,
    rules: Object.values(LAB_RULES),
    info: [LAB_NOTE, ...fallback, ...notes],
    incomplete: proxy.incomplete,
    details: { ...proxy.details, method: 'lab' },
    ...(labScore !== null ? { scoreOverrides: { performance: labScore } } : proxy.scores.performance !== undefined ? { scoreOverrides: { performance: proxy.scores.performance } } : {}),
  });
  return built;
}

function lcpFinding(lab: LabResult, estimated: number, severity: Severity): Finding {
  const element = lab.lcpElement?.element ?? null;
  const url = lab.lcpElement?.url ?? null;
  const what = element === null ? 'The browser did not name the LCP element.' : `The LCP element is ${element}${url ? ` (${url})` : ''}.`;
  return makeFinding({
    rule: LAB_RULES.lcp.id,
    category: 'performance',
    severity,
    location: 'lab:lcp',
    title: `${LAB_RULES.lcp.title}: ${seconds(estimated)}`,
    detail:
      `Largest Contentful Paint is ${seconds(estimated)} as Lighthouse's desktop run would estimate it (measured ${lab.lcpMs === null ? 'n/a' : `${Math.round(lab.lcpMs)} ms`} on the lab's unthrottled load); ` +
      `good is at most ${seconds(CURVES.lcp.p10)}, and Lighthouse scores ${seconds(CURVES.lcp.median)} at 50. ${what}`,
    evidence: { ...(element ? { selector: element } : {}), ...(url ? { url } : {}), value: `${Math.round(estimated)} ms` },
    fix: {
      patchType: url ? 'html' : 'investigate',
      change: url
        ? `Make ${url} arrive sooner and lighter: preload it (<link rel="preload" as="image" fetchpriority="high">), never lazy-load it, serve it compressed at the size it is shown (WebP or AVIF), and move render-blocking scripts and stylesheets out of its way (defer, async, inline critical CSS).`
        : `Make the largest element${element ? ` (${element})` : ''} paint sooner: remove render-blocking scripts and stylesheets before it (defer, async, inline critical CSS), cut the bytes loaded before it, and render it in the HTML rather than from a script.`,
      acceptance: `A lab run (mode=lab) estimates LCP at or under ${CURVES.lcp.p10} ms.`,
      roleHint: 'edit',
    },
  });
}

function clsFinding(lab: LabResult, severity: Severity): Finding {
  const moved = lab.shiftedElements;
  return makeFinding({
    rule: LAB_RULES.cls.id,
    category: 'performance',
    severity,
    location: 'lab:cls',
    title: `${LAB_RULES.cls.title}: CLS ${lab.cls}`,
    detail:
      `Cumulative Layout Shift is ${lab.cls}: good is at most ${CURVES.cls.p10}, and Lighthouse scores ${CURVES.cls.median} at 50. ` +
      (moved.length > 0 ? `Elements that moved in the worst burst of shifts: ${moved.join(', ')}.` : 'The browser did not name the elements that moved.'),
    evidence: { ...(moved[0] ? { selector: moved[0] } : {}), value: `CLS ${lab.cls}` },
    fix: {
      patchType: 'html',
      change:
        'Reserve the space of late content before it arrives: give images, iframes, ads and banners a width and height (or a min-height or aspect-ratio box), insert late content below what is on screen or in a placeholder of its final size, never above existing content, and animate with transform, not top or height.',
      acceptance: `A lab run (mode=lab) measures CLS at or under ${CURVES.cls.p10}.`,
      roleHint: 'edit',
    },
  });
}

function tbtFinding(lab: LabResult, severity: Severity): Finding {
  const scripts = lab.blockingScripts;
  const named = scripts.map((s) => `${s.script} (${s.ms} ms)`).join(', ');
  const first = scripts.find((s) => /^https?:/.test(s.script));
  return makeFinding({
    rule: LAB_RULES.tbt.id,
    category: 'performance',
    severity,
    location: 'lab:tbt',
    title: `${LAB_RULES.tbt.title}: ${lab.tbtMs} ms`,
    detail:
      `Total Blocking Time is ${lab.tbtMs} ms over ${lab.longTasks} long task(s): good is at most ${CURVES.tbt.p10} ms, and Lighthouse scores ${CURVES.tbt.median} ms at 50. ` +
      (named ? `Scripts that ran in them: ${named}.` : 'The browser did not attribute the tasks to a script.'),
    evidence: { ...(first ? { url: first.script } : {}), value: `${lab.tbtMs} ms` },
    fix: {
      patchType: 'file',
      change: `Shorten the main-thread tasks${named ? ` of ${scripts.map((s) => s.script).slice(0, 3).join(', ')}` : ''}: split long work into chunks under 50 ms (yield with await scheduler.yield() or setTimeout), defer or drop scripts the first view does not need, and move heavy computation to a Web Worker.`,
      acceptance: `A lab run (mode=lab) measures TBT at or under ${CURVES.tbt.p10} ms.`,
      roleHint: 'edit',
    },
  });
}
