import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

/** Figures for one unit of principal are multiplied by the caller's own principal, so they keep more digits than money. */
const PER_UNIT_DIGITS = 6;

export const NO_PRINCIPAL_WARNING =
  'No principal was given: interest and totalAmount are for a principal of 1 (multiply them by your principal); interestPer100 is the interest on 100.';

export const simpleInterestCalculator = defineTool({
  family: 'calculators',
  slug: 'simple-interest-calculator',
  title: 'Simple interest calculator',
  description:
    'Simple (non-compounding) interest: interest = principal × rate × timeYears / 100, total = principal + interest. ' +
    'Money is rounded to 2 decimals. principal is optional: without it (the body {"rate": 5, "timeYears": 3} is enough) ' +
    'the answer is per unit of principal: interest and totalAmount for a principal of 1 (rounded to 6 decimals), ' +
    'principalAssumed: 1, and interestPer100, the interest on 100 (= rate × timeYears, 4 decimals), with a warning that no principal was given.',
  aliases: ['simple interest', 'si calculator', 'flat interest', 'interest on principal'],
  credits: 1,
  input: z.object({
    principal: z.number().min(0).max(1e12).optional().describe('Principal amount; omit it for the interest per unit of principal'),
    rate: z.number().min(0).max(100).meta({ unit: 'percent per year', description: 'Annual interest rate in percent' }),
    timeYears: z
      .number()
      .min(0)
      .max(100)
      .meta({ unit: 'years', description: 'Time in years (fractions allowed, e.g. 0.5 for six months)' }),
  }),
  output: z.object({
    interest: z.number().describe('Interest earned or owed (per unit of principal when none was given)'),
    totalAmount: z.number().describe('Principal plus interest (per unit of principal when none was given)'),
    principalAssumed: z.literal(1).optional().describe('Present, and 1, only when no principal was given'),
    interestPer100: z.number().optional().describe('Interest on a principal of 100; only when no principal was given'),
  }),
  examples: [
    {
      title: '10,000 at 5% for 3 years',
      input: { principal: 10000, rate: 5, timeYears: 3 },
      output: { interest: 1500, totalAmount: 11500 },
    },
    {
      // 1 × 5 × 3 / 100 = 0.15 per unit of principal; on 100 that is 15.
      title: '5% for 3 years without a principal: the interest per unit of principal',
      input: { rate: 5, timeYears: 3 },
      output: { interest: 0.15, totalAmount: 1.15, principalAssumed: 1, interestPer100: 15 },
    },
  ],
  run({ principal, rate, timeYears }, ctx) {
    if (principal === undefined) {
      ctx.warn(NO_PRINCIPAL_WARNING);
      const perUnit = (rate * timeYears) / 100;
      return {
        interest: roundTo(perUnit, PER_UNIT_DIGITS),
        totalAmount: roundTo(1 + perUnit, PER_UNIT_DIGITS),
        principalAssumed: 1 as const,
        interestPer100: roundTo(rate * timeYears, PER_UNIT_DIGITS - 2),
      };
    }
    const interest = roundTo((principal * rate * timeYears) / 100, 2);
    return { interest, totalAmount: roundTo(principal + interest, 2) };
  },
});
