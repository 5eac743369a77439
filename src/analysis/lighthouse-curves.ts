// Lighthouse's published scoring curves for the lab metrics, so a performance score we print reads
// on the same scale as the one a user gets from Lighthouse (13.x, the `scoring` options of its
// metric audits and the weights of its performance category). Each metric maps to 0..1 on a
// log-normal curve fixed by two control points: the value scoring 0.9 (p10) and the one scoring
// 0.5 (median). Both the lab run (measured metrics) and the HTML proxy (estimated ones) score here.

export type FormFactor = 'mobile' | 'desktop';
export type LabMetric = 'fcp' | 'lcp' | 'tbt' | 'cls' | 'si';

interface Curve { p10: number; median: number }

/** Control points per form factor (ms, CLS unitless), from Lighthouse 13's metric audits. */
export const METRIC_CURVES: Record<FormFactor, Record<LabMetric, Curve>> = {
  mobile: {
    fcp: { p10: 1800, median: 3000 },
    lcp: { p10: 2500, median: 4000 },
    tbt: { p10: 200, median: 600 },
    cls: { p10: 0.1, median: 0.25 },
    si: { p10: 3387, median: 5800 },
  },
  desktop: {
    fcp: { p10: 934, median: 1600 },
    lcp: { p10: 1200, median: 2400 },
    tbt: { p10: 150, median: 350 },
    cls: { p10: 0.1, median: 0.25 },
    si: { p10: 1311, median: 2300 },
  },
};

/** The performance category's weights (INP weighs 0 in a navigation run). */
export const METRIC_WEIGHTS: Record<LabMetric, number> = { fcp: 10, lcp: 25, tbt: 30, cls: 25, si: 10 };

/** Abramowitz and Stegun 7.1.26: erf to within 1.5e-7, the precision Lighthouse's own curve uses. */
function erf(x: number): number {
  const sign = Math.sign(x);
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign * (1 - poly * Math.exp(-x * x));
}

/** 0..1: the share of a log-normal distribution (median -> 0.5, p10 -> 0.9) above `value`. */
export function logNormalScore(curve: Curve, value: number): number {
  if (value <= 0) return 1;
  // erfc^-1(1/5): scales the p10 point to 0.9 on the curve.
  const inverseErfcFifth = 0.9061938024368232;
  const standardized = (Math.log(value / curve.median) * inverseErfcFifth) / -Math.log(curve.p10 / curve.median);
  const raw = (1 - erf(standardized)) / 2;
  // Lighthouse clamps each band so a value on the right side of a control point never crosses it.
  if (value <= curve.p10) return Math.max(0.9, Math.min(1, raw));
  if (value <= curve.median) return Math.max(0.5, Math.min(0.9 - Number.EPSILON, raw));
  return Math.max(0, Math.min(0.5 - Number.EPSILON, raw));
}

export function metricScore(metric: LabMetric, value: number, formFactor: FormFactor): number {
  return logNormalScore(METRIC_CURVES[formFactor][metric], value);
}

/**
 * The performance score, 0..100, from whichever metrics are known: the weighted mean of their
 * curve scores, unknown metrics left out (undefined when none is known).
 */
export function performanceScore(metrics: Partial<Record<LabMetric, number | null>>, formFactor: FormFactor): number | undefined {
  let total = 0;
  let weights = 0;
  for (const [metric, value] of Object.entries(metrics) as [LabMetric, number | null | undefined][]) {
    if (value === null || value === undefined || !Number.isFinite(value)) continue;
    total += METRIC_WEIGHTS[metric] * metricScore(metric, value, formFactor);
    weights += METRIC_WEIGHTS[metric];
  }
  return weights === 0 ? undefined : Math.round((100 * total) / weights);
}
