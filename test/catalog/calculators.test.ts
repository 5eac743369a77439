import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../support/run-tool.ts';
import { rejectsField } from '../support/assertions.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { AnyTool } from '../../src/core/define-tool.ts';
import { emiCalculator } from '../../src/catalog/calculators/emi-calculator.ts';
import { gstCalculator } from '../../src/catalog/calculators/gst-calculator.ts';
import { NO_PRINCIPAL_WARNING, simpleInterestCalculator } from '../../src/catalog/calculators/simple-interest-calculator.ts';
import { compoundInterestCalculator } from '../../src/catalog/calculators/compound-interest-calculator.ts';
import { percentageCalculator } from '../../src/catalog/calculators/percentage-calculator.ts';
import { discountCalculator } from '../../src/catalog/calculators/discount-calculator.ts';
import { sipCalculator } from '../../src/catalog/calculators/sip-calculator.ts';
import { loanAffordabilityCalculator } from '../../src/catalog/calculators/loan-affordability-calculator.ts';
import { bmiCalculator } from '../../src/catalog/calculators/bmi-calculator.ts';
import { ageCalculator } from '../../src/catalog/calculators/age-calculator.ts';
import { tipCalculator } from '../../src/catalog/calculators/tip-calculator.ts';
import { roiCalculator } from '../../src/catalog/calculators/roi-calculator.ts';
import { cagrCalculator } from '../../src/catalog/calculators/cagr-calculator.ts';
import { breakEvenCalculator } from '../../src/catalog/calculators/break-even-calculator.ts';
import { profitMarginCalculator } from '../../src/catalog/calculators/profit-margin-calculator.ts';

const ALL: AnyTool[] = [
  emiCalculator,
  gstCalculator,
  simpleInterestCalculator,
  compoundInterestCalculator,
  percentageCalculator,
  discountCalculator,
  sipCalculator,
  loanAffordabilityCalculator,
  bmiCalculator,
  ageCalculator,
  tipCalculator,
  roiCalculator,
  cagrCalculator,
  breakEvenCalculator,
  profitMarginCalculator,
];

async function result(tool: AnyTool, input: unknown): Promise<unknown> {
  return (await runTool(tool, input)).result;
}

describe('calculators family', () => {
  it('has at least 12 tools, all 1 credit, kebab slugs under /api/v1/calculators, with examples and aliases', () => {
    assert.ok(ALL.length >= 12);
    for (const tool of ALL) {
      assert.equal(tool.family, 'calculators');
      assert.equal(tool.credits, 1);
      assert.match(tool.slug, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      assert.equal(tool.path, `/api/v1/calculators/${tool.slug}`);
      assert.ok(tool.examples.length >= 1, tool.slug);
      assert.ok(tool.aliases.length >= 1, tool.slug);
      assert.ok(tool.description.length > 40, tool.slug);
    }
  });

  it('every example output is exactly what the tool returns', async () => {
    for (const tool of ALL) {
      for (const ex of tool.examples) {
        assert.deepEqual(await result(tool, ex.input), ex.output, `${tool.slug}: ${ex.title}`);
      }
    }
  });
});

describe('emi-calculator', () => {
  it('100,000 at 10% for 12 months is 8,791.59 a month', async () => {
    // r = 0.10/12; (1+r)^12 = 1.104713067; EMI = 100000·r·1.104713067 / 0.104713067 = 8791.588…
    const r = (await result(emiCalculator, { principal: 100000, rate: 10, tenure: 12 })) as { emi: number };
    assert.equal(r.emi, 8791.59);
  });
});

describe('gst-calculator', () => {
  it('exclusive: adds 18% to 1,000', async () => {
    assert.deepEqual(await result(gstCalculator, { rate: 18, amount: 1000, mode: 'exclusive' }), {
      mode: 'exclusive', rate: 18, netAmount: 1000, gstAmount: 180, grossAmount: 1180, cgst: 90, sgst: 90,
    });
  });

  it('inclusive: 100 at 5% has net 100·100/105 = 95.238 → 95.24 and GST 4.76', async () => {
    assert.deepEqual(await result(gstCalculator, { rate: 5, amount: 100, mode: 'inclusive' }), {
      mode: 'inclusive', rate: 5, netAmount: 95.24, gstAmount: 4.76, grossAmount: 100, cgst: 2.38, sgst: 2.38,
    });
  });

  it('splits an odd-cent GST so CGST + SGST = GST (0.15 → 0.08 + 0.07)', async () => {
    // 10% of 1.50 = 0.15; half = 0.075 rounds half-up to 0.08; SGST gets the remaining 0.07.
    assert.deepEqual(await result(gstCalculator, { rate: 10, amount: 1.5 }), {
      mode: 'exclusive', rate: 10, netAmount: 1.5, gstAmount: 0.15, grossAmount: 1.65, cgst: 0.08, sgst: 0.07,
    });
  });

  it('rate 0 leaves the amount unchanged in both modes', async () => {
    for (const mode of ['exclusive', 'inclusive']) {
      const r = (await result(gstCalculator, { rate: 0, amount: 499.99, mode })) as Record<string, number>;
      assert.equal(r['netAmount'], 499.99);
      assert.equal(r['grossAmount'], 499.99);
      assert.equal(r['gstAmount'], 0);
    }
  });

  it('rejects a bad mode with the allowed values, and a rate above 100', async () => {
    await rejectsField(gstCalculator, { rate: 18, amount: 100, mode: 'both' }, 'mode', ['exclusive', 'inclusive']);
    await rejectsField(gstCalculator, { rate: 101, amount: 100 }, 'rate');
    await rejectsField(gstCalculator, { rate: 18, amount: '100' }, 'amount');
  });
});

describe('simple-interest-calculator', () => {
  it('10,000 at 5% for 3 years is 1,500 interest', async () => {
    assert.deepEqual(await result(simpleInterestCalculator, { principal: 10000, rate: 5, timeYears: 3 }), {
      interest: 1500,
      totalAmount: 11500,
    });
  });

  it('fractional years: 2,500 at 7.5% for 6 months = 2500·7.5·0.5/100 = 93.75', async () => {
    assert.deepEqual(await result(simpleInterestCalculator, { principal: 2500, rate: 7.5, timeYears: 0.5 }), {
      interest: 93.75,
      totalAmount: 2593.75,
    });
  });

  it('rate 0 earns nothing', async () => {
    assert.deepEqual(await result(simpleInterestCalculator, { principal: 1234.5, rate: 0, timeYears: 10 }), {
      interest: 0,
      totalAmount: 1234.5,
    });
  });

  it('rejects a negative principal and a missing timeYears', async () => {
    await rejectsField(simpleInterestCalculator, { principal: -1, rate: 5, timeYears: 1 }, 'principal');
    await rejectsField(simpleInterestCalculator, { principal: 1, rate: 5 }, 'timeYears');
  });

  describe('through REST: the spec body has no principal (issue 8, item 9)', () => {
    const path = '/api/v1/calculators/simple-interest-calculator';
    let t: TestApp;
    let apiKey: string;
    before(async () => {
      t = await startTestApp();
      ({ apiKey } = await t.account({ quota: 1000 }));
    });
    after(() => t.close());

    it('{"rate": 5, "timeYears": 3} answers 200 with the interest per unit of principal and a warning', async () => {
      const res = await t.call(path, { rate: 5, timeYears: 3 }, apiKey);
      const body = res.json();
      assert.equal(res.statusCode, 200, JSON.stringify(body));
      assert.equal(body.status, true);
      // 1 × 5 × 3 / 100 = 0.15 on a principal of 1; 15 on 100.
      assert.deepEqual(body.result, { interest: 0.15, totalAmount: 1.15, principalAssumed: 1, interestPer100: 15 });
      assert.deepEqual(body.warnings, [NO_PRINCIPAL_WARNING]);
      assert.match(body.warnings[0], /No principal was given/);
    });

    it('per-unit figures keep 6 decimals: 3.33% for 0.5 years is 0.01665 per unit, 1.665 per 100', async () => {
      const res = await t.call(path, { rate: 3.33, timeYears: 0.5 }, apiKey);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().result, { interest: 0.01665, totalAmount: 1.01665, principalAssumed: 1, interestPer100: 1.665 });
    });

    it('with a principal the answer is as before, with no warning', async () => {
      const res = await t.call(path, { principal: 10000, rate: 5, timeYears: 3 }, apiKey);
      const body = res.json();
      assert.equal(res.statusCode, 200, JSON.stringify(body));
      assert.deepEqual(body.result, { interest: 1500, totalAmount: 11500 });
      assert.deepEqual(body.warnings, []);
    });

    it('still names a missing rate or timeYears with a 400', async () => {
      for (const [input, field] of [[{ timeYears: 3 }, 'rate'], [{ rate: 5 }, 'timeYears']] as const) {
        const res = await t.call(path, input, apiKey);
        const body = res.json();
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(body.status, false);
        assert.equal(body.error, 'validation_error');
        assert.deepEqual(body.issues.map((i: { field: string }) => i.field), [field]);
      }
    });
  });
});

describe('compound-interest-calculator', () => {
  it('yearly: 10,000 at 10% for 2 years = 10000·1.1² = 12,100', async () => {
    assert.deepEqual(
      await result(compoundInterestCalculator, { principal: 10000, rate: 10, timeYears: 2, compounding: 'yearly' }),
      { futureValue: 12100, totalContributions: 10000, totalInterest: 2100, effectiveAnnualRate: 10 },
    );
  });

  it('quarterly: 1,000 at 8% for 1 year = 1000·1.02⁴ = 1082.43216', async () => {
    assert.deepEqual(
      await result(compoundInterestCalculator, { principal: 1000, rate: 8, timeYears: 1, compounding: 'quarterly' }),
      { futureValue: 1082.43, totalContributions: 1000, totalInterest: 82.43, effectiveAnnualRate: 8.2432 },
    );
  });

  it('defaults to monthly: 10,000 at 12% for 1 year = 10000·1.01¹² = 11268.25', async () => {
    const r = (await result(compoundInterestCalculator, { principal: 10000, rate: 12, timeYears: 1 })) as Record<string, number>;
    assert.equal(r['futureValue'], 11268.25);
  });

  it('monthly contributions at month end: 100/month at 1%/month for 12 months = 100·(1.01¹²−1)/0.01 = 1268.25', async () => {
    assert.deepEqual(
      await result(compoundInterestCalculator, { principal: 0, rate: 12, timeYears: 1, monthlyContribution: 100 }),
      { futureValue: 1268.25, totalContributions: 1200, totalInterest: 68.25, effectiveAnnualRate: 12.6825 },
    );
  });

  it('contributions over a quarter year: 100·(1.01³−1)/0.01 = 303.01', async () => {
    const r = (await result(compoundInterestCalculator, {
      principal: 0, rate: 12, timeYears: 0.25, monthlyContribution: 100,
    })) as Record<string, number>;
    assert.equal(r['futureValue'], 303.01);
    assert.equal(r['totalContributions'], 300);
  });

  it('rate 0 with contributions is plain addition', async () => {
    assert.deepEqual(
      await result(compoundInterestCalculator, { principal: 1000, rate: 0, timeYears: 1, monthlyContribution: 100, compounding: 'daily' }),
      { futureValue: 2200, totalContributions: 2200, totalInterest: 0, effectiveAnnualRate: 0 },
    );
  });

  it('rejects an unknown compounding with the allowed values', async () => {
    await rejectsField(compoundInterestCalculator, { principal: 1, rate: 1, timeYears: 1, compounding: 'weekly' }, 'compounding', [
      'yearly', 'half-yearly', 'quarterly', 'monthly', 'daily',
    ]);
  });
});

describe('percentage-calculator', () => {
  it('computes each mode', async () => {
    assert.deepEqual(await result(percentageCalculator, { mode: 'percent-of', x: 15, y: 200 }), {
      mode: 'percent-of', result: 30, explanation: '15% of 200 = 30',
    });
    assert.deepEqual(await result(percentageCalculator, { mode: 'what-percent', x: 1, y: 3 }), {
      mode: 'what-percent', result: 33.3333, explanation: '1 is 33.3333% of 3',
    });
    assert.deepEqual(await result(percentageCalculator, { mode: 'percent-change', x: 250, y: 200 }), {
      mode: 'percent-change', result: -20, explanation: 'from 250 to 200 is a 20% decrease',
    });
    assert.deepEqual(await result(percentageCalculator, { mode: 'increase-by', x: 10, y: 50 }), {
      mode: 'increase-by', result: 55, explanation: '50 increased by 10% = 55',
    });
    assert.deepEqual(await result(percentageCalculator, { mode: 'decrease-by', x: 25, y: 80 }), {
      mode: 'decrease-by', result: 60, explanation: '80 decreased by 25% = 60',
    });
  });

  it('percent change from a negative base uses |x|: −50 → −25 is +50%', async () => {
    const r = (await result(percentageCalculator, { mode: 'percent-change', x: -50, y: -25 })) as { result: number };
    assert.equal(r.result, 50);
  });

  it('rejects zero divisors naming the field, and unknown modes', async () => {
    await rejectsField(percentageCalculator, { mode: 'what-percent', x: 5, y: 0 }, 'y');
    await rejectsField(percentageCalculator, { mode: 'percent-change', x: 0, y: 5 }, 'x');
    await rejectsField(percentageCalculator, { mode: 'ratio', x: 1, y: 2 }, 'mode', [
      'percent-of', 'what-percent', 'percent-change', 'increase-by', 'decrease-by',
    ]);
  });
});

describe('discount-calculator', () => {
  it('19.99 at 15% off: 19.99·0.85 = 16.9915 → 16.99', async () => {
    assert.deepEqual(await result(discountCalculator, { originalPrice: 19.99, discountPercent: 15 }), {
      discountAmount: 3, discountedPrice: 16.99, taxAmount: 0, finalPrice: 16.99, effectiveDiscountPercent: 15,
    });
  });

  it('stacks discounts multiplicatively and adds tax after: 100·0.8·0.9 = 72, +8% = 77.76', async () => {
    assert.deepEqual(
      await result(discountCalculator, { originalPrice: 100, discountPercent: 20, extraDiscountPercent: 10, taxPercent: 8 }),
      { discountAmount: 28, discountedPrice: 72, taxAmount: 5.76, finalPrice: 77.76, effectiveDiscountPercent: 28 },
    );
  });

  it('100% off is free; a discount over 100% is rejected', async () => {
    const r = (await result(discountCalculator, { originalPrice: 50, discountPercent: 100 })) as Record<string, number>;
    assert.equal(r['finalPrice'], 0);
    await rejectsField(discountCalculator, { originalPrice: 50, discountPercent: 120 }, 'discountPercent');
  });
});

describe('sip-calculator', () => {
  it('1,000/month at 12% for 1 year is 12,809.33', async () => {
    // i = 0.01: 1000 · (1.01¹² − 1)/0.01 · 1.01 = 1000 · 12.682503 · 1.01 = 12809.328
    assert.deepEqual(await result(sipCalculator, { monthlyInvestment: 1000, annualReturnRate: 12, years: 1 }), {
      futureValue: 12809.33, totalInvested: 12000, estimatedReturns: 809.33,
    });
  });

  it('5,000/month at 12% for 10 years is 1,161,695.38 (bc: 5000·(1.01¹²⁰−1)/0.01·1.01)', async () => {
    assert.deepEqual(await result(sipCalculator, { monthlyInvestment: 5000, annualReturnRate: 12, years: 10 }), {
      futureValue: 1161695.38, totalInvested: 600000, estimatedReturns: 561695.38,
    });
  });

  it('rate 0 returns exactly what was invested', async () => {
    assert.deepEqual(await result(sipCalculator, { monthlyInvestment: 5000, annualReturnRate: 0, years: 2 }), {
      futureValue: 120000, totalInvested: 120000, estimatedReturns: 0,
    });
  });

  it('rejects fractional years and zero investment', async () => {
    await rejectsField(sipCalculator, { monthlyInvestment: 1000, annualReturnRate: 12, years: 1.5 }, 'years');
    await rejectsField(sipCalculator, { monthlyInvestment: 0, annualReturnRate: 12, years: 1 }, 'monthlyInvestment');
  });
});

describe('loan-affordability-calculator', () => {
  it('income 5,000, debts 300, 36% DTI, 12% over 12 months', async () => {
    // ceiling 1800, EMI 1500; loan = 1500·(1 − 1.01⁻¹²)/0.01 = 16882.616 (bc)
    assert.deepEqual(
      await result(loanAffordabilityCalculator, { monthlyIncome: 5000, monthlyDebts: 300, rate: 12, tenureMonths: 12 }),
      { maxMonthlyDebtPayments: 1800, maxEmi: 1500, maxLoanAmount: 16882.62, totalPayment: 18000, totalInterest: 1117.38 },
    );
  });

  it('rate 0: loan = EMI × months', async () => {
    assert.deepEqual(
      await result(loanAffordabilityCalculator, { monthlyIncome: 4000, monthlyDebts: 440, rate: 0, tenureMonths: 24 }),
      { maxMonthlyDebtPayments: 1440, maxEmi: 1000, maxLoanAmount: 24000, totalPayment: 24000, totalInterest: 0 },
    );
  });

  it('debts above the ceiling give 0 and a warning', async () => {
    const { result: r, warnings } = await runTool(loanAffordabilityCalculator, {
      monthlyIncome: 3000, monthlyDebts: 2000, rate: 8, tenureMonths: 60, maxDtiPercent: 40,
    });
    assert.deepEqual(r, { maxMonthlyDebtPayments: 1200, maxEmi: 0, maxLoanAmount: 0, totalPayment: 0, totalInterest: 0 });
    assert.equal(warnings.length, 1);
  });

  it('rejects a zero income and a tenure of 0', async () => {
    await rejectsField(loanAffordabilityCalculator, { monthlyIncome: 0, rate: 8, tenureMonths: 60 }, 'monthlyIncome');
    await rejectsField(loanAffordabilityCalculator, { monthlyIncome: 10, rate: 8, tenureMonths: 0 }, 'tenureMonths');
  });
});

describe('bmi-calculator', () => {
  it('metric: 70 kg, 175 cm → 70/1.75² = 22.86 → 22.9 normal; healthy range 18.5·3.0625 = 56.7 to 24.9·3.0625 = 76.3', async () => {
    assert.deepEqual(await result(bmiCalculator, { weight: 70, height: 175 }), {
      bmi: 22.9, category: 'normal', label: 'Normal weight', healthyWeightMin: 56.7, healthyWeightMax: 76.3, weightUnit: 'kg',
    });
  });

  it('imperial: 180 lb, 70 in → 703·180/4900 = 25.82 → 25.8 overweight', async () => {
    assert.deepEqual(await result(bmiCalculator, { units: 'imperial', weight: 180, height: 70 }), {
      bmi: 25.8,
      category: 'overweight',
      label: 'Overweight (pre-obese)',
      healthyWeightMin: 128.9, // 18.5·4900/703 = 128.947
      healthyWeightMax: 173.6, // 24.9·4900/703 = 173.556
      weightUnit: 'lb',
    });
  });

  it('classifies on the rounded BMI at the WHO boundaries', async () => {
    // height 100 cm → BMI equals the weight in kg.
    const cat = async (weight: number) => ((await result(bmiCalculator, { weight, height: 100 })) as { category: string }).category;
    assert.equal(await cat(18.44), 'underweight'); // 18.4
    assert.equal(await cat(18.45), 'normal'); // 18.5
    assert.equal(await cat(24.94), 'normal'); // 24.9
    assert.equal(await cat(24.96), 'overweight'); // 25.0
    assert.equal(await cat(30), 'obese-class-1');
    assert.equal(await cat(39.9), 'obese-class-2');
    assert.equal(await cat(40), 'obese-class-3');
  });

  it('rejects heights out of range for the unit, and unknown units', async () => {
    await rejectsField(bmiCalculator, { weight: 70, height: 20 }, 'height');
    await rejectsField(bmiCalculator, { units: 'imperial', weight: 150, height: 170 }, 'height');
    await rejectsField(bmiCalculator, { units: 'stones', weight: 11, height: 170 }, 'units', ['metric', 'imperial']);
  });
});

describe('age-calculator', () => {
  it('1990-05-15 as of 2024-03-10: 33 y 9 m 24 d, 12,353 days', async () => {
    // 2024-02-15 is the last monthly anniversary; 14 days to 29 Feb (leap year) + 10 = 24.
    // Date.UTC(2024,2,10) − Date.UTC(1990,4,15) = 12353 days; next birthday 21 + 30 + 15 = 66 days away.
    assert.deepEqual(await result(ageCalculator, { birthDate: '1990-05-15', asOf: '2024-03-10' }), {
      years: 33, months: 9, days: 24, totalMonths: 405, totalDays: 12353,
      asOf: '2024-03-10', nextBirthday: '2024-05-15', daysUntilNextBirthday: 66,
    });
  });

  it('a 29 February birthday turns over on 28 February in a common year', async () => {
    assert.deepEqual(await result(ageCalculator, { birthDate: '2000-02-29', asOf: '2001-02-28' }), {
      years: 1, months: 0, days: 0, totalMonths: 12, totalDays: 365,
      asOf: '2001-02-28', nextBirthday: '2001-02-28', daysUntilNextBirthday: 0,
    });
    assert.deepEqual(await result(ageCalculator, { birthDate: '2000-02-29', asOf: '2001-02-27' }), {
      years: 0, months: 11, days: 29, totalMonths: 11, totalDays: 364,
      asOf: '2001-02-27', nextBirthday: '2001-02-28', daysUntilNextBirthday: 1,
    });
  });

  it('clamps month ends: 2020-01-31 to 2020-03-01 is 1 month (to 29 Feb) and 1 day', async () => {
    const r = (await result(ageCalculator, { birthDate: '2020-01-31', asOf: '2020-03-01' })) as Record<string, unknown>;
    assert.deepEqual([r['years'], r['months'], r['days'], r['totalDays']], [0, 1, 1, 30]);
  });

  it('the same day is age 0 with the birthday today', async () => {
    assert.deepEqual(await result(ageCalculator, { birthDate: '2024-06-01', asOf: '2024-06-01' }), {
      years: 0, months: 0, days: 0, totalMonths: 0, totalDays: 0,
      asOf: '2024-06-01', nextBirthday: '2024-06-01', daysUntilNextBirthday: 0,
    });
  });

  it('defaults asOf to today in UTC', async () => {
    const before = new Date().toISOString().slice(0, 10);
    const r = (await result(ageCalculator, { birthDate: '2000-01-01' })) as { asOf: string };
    const after = new Date().toISOString().slice(0, 10);
    assert.ok(r.asOf === before || r.asOf === after, r.asOf);
  });

  it('rejects impossible dates and a birth date after asOf', async () => {
    await rejectsField(ageCalculator, { birthDate: '2023-02-29', asOf: '2024-01-01' }, 'birthDate');
    await rejectsField(ageCalculator, { birthDate: '2000-01-01', asOf: '01/02/2024' }, 'asOf');
    await rejectsField(ageCalculator, { birthDate: '2025-01-01', asOf: '2024-01-01' }, 'birthDate');
  });
});

describe('tip-calculator', () => {
  it('100 with 10% tip for 3: total 110, 36.666… → 36.67 each', async () => {
    assert.deepEqual(await result(tipCalculator, { bill: 100, tipPercent: 10, people: 3 }), {
      tip: 10, total: 110, perPerson: 36.67, tipPerPerson: 3.33, perPersonRoundedUp: 36.67,
    });
  });

  it('defaults to 15% and one person', async () => {
    assert.deepEqual(await result(tipCalculator, { bill: 40 }), {
      tip: 6, total: 46, perPerson: 46, tipPerPerson: 6, perPersonRoundedUp: 46,
    });
  });

  it('rounds the per-person share up when it does not split evenly: 100/3 → 33.33 and 33.34', async () => {
    const r = (await result(tipCalculator, { bill: 100, tipPercent: 0, people: 3 })) as Record<string, number>;
    assert.equal(r['perPerson'], 33.33);
    assert.equal(r['perPersonRoundedUp'], 33.34);
  });

  it('rejects zero people', async () => {
    await rejectsField(tipCalculator, { bill: 10, people: 0 }, 'people');
  });
});

describe('roi-calculator', () => {
  it('1,000 → 1,500 in 2 years: 50% total, √1.5 − 1 = 22.47% a year', async () => {
    assert.deepEqual(await result(roiCalculator, { invested: 1000, returned: 1500, years: 2 }), {
      gain: 500, roiPercent: 50, annualizedRoiPercent: 22.47,
    });
  });

  it('a loss without years', async () => {
    assert.deepEqual(await result(roiCalculator, { invested: 2000, returned: 1800 }), {
      gain: -200, roiPercent: -10, annualizedRoiPercent: null,
    });
  });

  it('rejects zero invested and zero years', async () => {
    await rejectsField(roiCalculator, { invested: 0, returned: 1 }, 'invested');
    await rejectsField(roiCalculator, { invested: 1, returned: 1, years: 0 }, 'years');
  });
});

describe('cagr-calculator', () => {
  it('doubling in 5 years is 2^(1/5) − 1 = 14.87%', async () => {
    assert.deepEqual(await result(cagrCalculator, { beginningValue: 10000, endingValue: 20000, years: 5 }), {
      cagrPercent: 14.87, multiple: 2, absoluteChange: 10000,
    });
  });

  it('no change is 0%', async () => {
    const r = (await result(cagrCalculator, { beginningValue: 5, endingValue: 5, years: 3 })) as { cagrPercent: number };
    assert.equal(r.cagrPercent, 0);
  });
});

describe('break-even-calculator', () => {
  it('with a target profit: (10,000 + 5,000) / (50 − 30) = 750 units', async () => {
    assert.deepEqual(
      await result(breakEvenCalculator, { fixedCosts: 10000, pricePerUnit: 50, variableCostPerUnit: 30, targetProfit: 5000 }),
      { breakEvenUnits: 750, breakEvenUnitsExact: 750, breakEvenRevenue: 37500, contributionMarginPerUnit: 20, contributionMarginRatioPercent: 40 },
    );
  });

  it('rounds partial units up: 1,000 / 3 = 333.3333 → 334', async () => {
    const r = (await result(breakEvenCalculator, { fixedCosts: 1000, pricePerUnit: 5, variableCostPerUnit: 2 })) as Record<string, number>;
    assert.equal(r['breakEvenUnits'], 334);
    assert.equal(r['breakEvenUnitsExact'], 333.3333);
    assert.equal(r['breakEvenRevenue'], 1666.67);
  });

  it('rejects a price not above the variable cost, naming pricePerUnit', async () => {
    await rejectsField(breakEvenCalculator, { fixedCosts: 100, pricePerUnit: 10, variableCostPerUnit: 10 }, 'pricePerUnit');
  });
});

describe('profit-margin-calculator', () => {
  it('cost 60, revenue 100: margin 40%, markup 66.67%', async () => {
    assert.deepEqual(await result(profitMarginCalculator, { cost: 60, revenue: 100 }), {
      profit: 40, marginPercent: 40, markupPercent: 66.67,
    });
  });

  it('zero cost has no markup; a loss is negative', async () => {
    assert.deepEqual(await result(profitMarginCalculator, { cost: 0, revenue: 10 }), {
      profit: 10, marginPercent: 100, markupPercent: null,
    });
    assert.deepEqual(await result(profitMarginCalculator, { cost: 120, revenue: 100 }), {
      profit: -20, marginPercent: -20, markupPercent: -16.67,
    });
  });

  it('rejects zero revenue', async () => {
    await rejectsField(profitMarginCalculator, { cost: 1, revenue: 0 }, 'revenue');
  });
});
