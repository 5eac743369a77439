import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

export const simpleInterestCalculator = defineTool({
  family: 'calculators',
  slug: 'simple-interest-calculator',
  title: 'Simple interest calculator',
  description:
    'Simple (non-compounding) interest: interest = principal × rate × timeYears / 100, total = principal + interest. ' +
    'Money is rounded to 2 decimals.',
  aliases: ['simple interest', 'si calculator', 'flat interest', 'interest on principal'],
  credits: 1,
  input: z.object({
    principal: z.number().min(0).max(1e12).describe('Principal amount'),
    rate: z.number().min(0).max(100).describe('Annual interest rate in percent'),
    timeYears: z.number().min(0).max(100).describe('Time in years (fractions allowed, e.g. 0.5 for six months)'),
  }),
  output: z.object({
    interest: z.number().describe('Interest earned or owed'),
    totalAmount: z.number().describe('Principal plus interest'),
  }),
  examples: [
    {
      title: '10,000 at 5% for 3 years',
      input: { principal: 10000, rate: 5, timeYears: 3 },
      output: { interest: 1500, totalAmount: 11500 },
    },
  ],
  run({ principal, rate, timeYears }) {
    const interest = roundTo((principal * rate * timeYears) / 100, 2);
    return { interest, totalAmount: roundTo(principal + interest, 2) };
  },
});
