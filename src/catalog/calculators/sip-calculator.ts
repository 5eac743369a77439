import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

export const sipCalculator = defineTool({
  family: 'calculators',
  slug: 'sip-calculator',
  title: 'SIP calculator',
  description:
    'Future value of a systematic investment plan (a fixed investment at the start of every month): ' +
    'FV = P × ((1 + i)^n − 1) / i × (1 + i), with i = annual return / 12 / 100 and n = years × 12 (FV = P × n when the return is 0). ' +
    'Returns the future value, the amount invested and the estimated returns, rounded to 2 decimals.',
  aliases: ['sip', 'systematic investment plan', 'mutual fund sip', 'monthly investment', 'recurring investment', 'sip returns'],
  credits: 1,
  input: z.object({
    monthlyInvestment: z.number().positive().max(1e10).describe('Amount invested every month'),
    annualReturnRate: z.number().min(0).max(100).describe('Expected annual return in percent').meta({ unit: 'percent per year' }),
    years: z.number().int().min(1).max(100).describe('Investment period in whole years').meta({ unit: 'years' }),
  }),
  output: z.object({
    futureValue: z.number().describe('Expected value at the end of the period'),
    totalInvested: z.number().describe('Sum of all monthly investments'),
    estimatedReturns: z.number().describe('Future value minus amount invested'),
  }),
  examples: [
    {
      title: '1,000 a month at 12% for 1 year',
      input: { monthlyInvestment: 1000, annualReturnRate: 12, years: 1 },
      output: { futureValue: 12809.33, totalInvested: 12000, estimatedReturns: 809.33 },
    },
  ],
  run({ monthlyInvestment, annualReturnRate, years }) {
    const i = annualReturnRate / 12 / 100;
    const n = years * 12;
    const fv = i === 0 ? monthlyInvestment * n : (monthlyInvestment * ((1 + i) ** n - 1) * (1 + i)) / i;
    const futureValue = roundTo(fv, 2);
    const totalInvested = roundTo(monthlyInvestment * n, 2);
    return { futureValue, totalInvested, estimatedReturns: roundTo(futureValue - totalInvested, 2) };
  },
});
