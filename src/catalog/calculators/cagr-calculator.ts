import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { requireFinite, roundTo } from '../../core/numbers.ts';

export const cagrCalculator = defineTool({
  family: 'calculators',
  slug: 'cagr-calculator',
  title: 'CAGR calculator',
  description:
    'Compound annual growth rate: CAGR = ((ending / beginning)^(1 / years) − 1) × 100, rounded to 2 decimals. ' +
    'Also returns the growth multiple ending / beginning (4 decimals) and the absolute change (2 decimals).',
  aliases: ['cagr', 'compound annual growth rate', 'annual growth', 'growth rate', 'average annual return'],
  credits: 1,
  input: z.object({
    beginningValue: z.number().min(0.01).max(1e15).describe('Value at the start'),
    endingValue: z.number().min(0).max(1e15).describe('Value at the end'),
    years: z.number().positive().max(200).describe('Number of years between the two values (fractions allowed)').meta({ unit: 'years' }),
  }),
  output: z.object({
    cagrPercent: z.number().describe('Compound annual growth rate in percent'),
    multiple: z.number().describe('Ending value divided by beginning value'),
    absoluteChange: z.number().describe('Ending value minus beginning value'),
  }),
  examples: [
    {
      title: '10,000 to 20,000 in 5 years',
      input: { beginningValue: 10000, endingValue: 20000, years: 5 },
      output: { cagrPercent: 14.87, multiple: 2, absoluteChange: 10000 },
    },
  ],
  run({ beginningValue, endingValue, years }) {
    const multiple = endingValue / beginningValue;
    const growth = requireFinite((multiple ** (1 / years) - 1) * 100, 'years', 'The growth rate is too large to compute');
    return {
      cagrPercent: roundTo(growth, 2),
      multiple: roundTo(multiple, 4),
      absoluteChange: roundTo(endingValue - beginningValue, 2),
    };
  },
});
