// Our curves against Lighthouse's own implementation (a dev dependency): the same control points
// must give the same scores, so a score we print reads on Lighthouse's scale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getLogNormalScore } from 'lighthouse/shared/statistics.js';
import { METRIC_CURVES, logNormalScore, metricScore, performanceScore, type LabMetric } from '../../src/analysis/lighthouse-curves.ts';

const lighthouseScore = getLogNormalScore as (curve: { p10: number; median: number }, value: number) => number;

test('every metric curve scores as Lighthouse scores it, on both form factors', () => {
  for (const formFactor of ['mobile', 'desktop'] as const) {
    for (const [metric, curve] of Object.entries(METRIC_CURVES[formFactor]) as [LabMetric, { p10: number; median: number }][]) {
      for (const factor of [0, 0.2, 0.5, 0.9, 1, 1.1, 1.6, 2, 3, 8]) {
        const value = curve.median * factor;
        const ours = metricScore(metric, value, formFactor);
        assert.ok(Math.abs(ours - lighthouseScore(curve, value)) < 1e-6, `${formFactor} ${metric} at ${value}: ${ours}`);
      }
    }
  }
});

test('the control points score 0.9 and 0.5, and the bands never cross them', () => {
  const curve = METRIC_CURVES.mobile.lcp;
  assert.ok(Math.abs(logNormalScore(curve, curve.p10) - 0.9) < 1e-6);
  assert.ok(Math.abs(logNormalScore(curve, curve.median) - 0.5) < 1e-6);
  assert.ok(logNormalScore(curve, curve.median + 1) < 0.5);
  assert.ok(logNormalScore(curve, curve.p10 + 1) < 0.9);
});

test('the performance score is the weighted mean of the known metrics', () => {
  // All metrics at their median: every score 0.5, so 50 whatever the weights.
  const medians = METRIC_CURVES.desktop;
  assert.equal(performanceScore({ fcp: medians.fcp.median, lcp: medians.lcp.median, tbt: medians.tbt.median, cls: medians.cls.median, si: medians.si.median }, 'desktop'), 50);
  // A fast page with a heavy main thread: TBT weighs 30 of the 100.
  const heavy = performanceScore({ fcp: 300, lcp: 400, tbt: 2000, cls: 0, si: 400 }, 'desktop');
  assert.equal(heavy, 70);
  // Unknown metrics are left out, not counted as 0.
  assert.equal(performanceScore({ fcp: 300, lcp: null }, 'desktop'), 100);
  assert.equal(performanceScore({}, 'mobile'), undefined);
});
