import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

const PERIODS_PER_YEAR = { yearly: 1, 'half-yearly': 2, quarterly: 4, monthly: 12, daily: 365 } as const;

export const compoundInterestCalculator = defineTool({
  family: 'calculators',
  slug: 'compound-interest-calculator',
  title: 'Compound interest calculator',
  description:
    'Future value with compound interest: A = P × (1 + r/n)^(n·t), with r the annual rate, n the compounding periods per year ' +
    '(yearly 1, half-yearly 2, quarterly 4, monthly 12, daily 365) and t the years. An optional monthly contribution is paid ' +
    'at the end of each whole month within t and grows at the monthly rate equivalent to the chosen compounding, ' +
    '(1 + r/n)^(n/12) − 1, until t. Money is rounded to 2 decimals; the effective annual rate (1 + r/n)^n − 1 to 4 decimals.',
  aliases: ['compound interest', 'ci calculator', 'future value', 'savings growth', 'investment growth', 'interest compounding'],
  credits: 1,
  input: z.object({
    principal: z.number().min(0).max(1e12).describe('Initial amount'),
    rate: z.number().min(0).max(100).describe('Annual interest rate in percent').meta({ unit: 'percent per year' }),
    timeYears: z.number().min(0).max(100).describe('Time in years (fractions allowed)').meta({ unit: 'years' }),
    compounding: z
      .enum(['yearly', 'half-yearly', 'quarterly', 'monthly', 'daily'])
      .default('monthly')
      .describe('How often interest is compounded'),
    monthlyContribution: z
      .number()
      .min(0)
      .max(1e10)
      .default(0)
      .describe('Optional amount added at the end of every month'),
  }),
  output: z.object({
    futureValue: z.number().describe('Balance at the end of the period'),
    totalContributions: z.number().describe('Principal plus all monthly contributions'),
    totalInterest: z.number().describe('Future value minus total contributions'),
    effectiveAnnualRate: z.number().describe('Effective annual rate in percent'),
  }),
  examples: [
    {
      title: '10,000 at 10% compounded yearly for 2 years',
      input: { principal: 10000, rate: 10, timeYears: 2, compounding: 'yearly' },
      output: { futureValue: 12100, totalContributions: 10000, totalInterest: 2100, effectiveAnnualRate: 10 },
    },
    {
      title: '10,000 at 12% compounded monthly for 1 year',
      input: { principal: 10000, rate: 12, timeYears: 1 },
      output: { futureValue: 11268.25, totalContributions: 10000, totalInterest: 1268.25, effectiveAnnualRate: 12.6825 },
    },
  ],
  run({ principal, rate, timeYears, compounding, monthlyContribution }) {
    const n = PERIODS_PER_YEAR[compounding];
    const r = rate / 100;
    const principalFv = principal * (1 + r / n) ** (n * timeYears);
    // Contributions at the end of months 1..m; each grows from its month to t at the equivalent monthly rate j.
    const months = Math.floor(roundTo(timeYears * 12, 9));
    const j = (1 + r / n) ** (n / 12) - 1;
    const annuity = j === 0 ? months : ((1 + j) ** months - 1) / j;
    const contributionsFv = monthlyContribution * annuity * (1 + j) ** (timeYears * 12 - months);
    const futureValue = roundTo(principalFv + contributionsFv, 2);
    const totalContributions = roundTo(principal + monthlyContribution * months, 2);
    return {
      futureValue,
      totalContributions,
      totalInterest: roundTo(futureValue - totalContributions, 2),
      effectiveAnnualRate: roundTo(((1 + r / n) ** n - 1) * 100, 4),
    };
  },
});
