import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { requireFinite, roundTo } from '../../core/numbers.ts';

export const roiCalculator = defineTool({
  family: 'calculators',
  slug: 'roi-calculator',
  title: 'ROI calculator',
  description:
    'Return on investment: gain = returned − invested, ROI = gain / invested × 100. With the holding period in years, also the ' +
    'annualized ROI = ((returned / invested)^(1 / years) − 1) × 100 (null without years). Money and percentages are rounded ' +
    'to 2 decimals.',
  aliases: ['roi', 'return on investment', 'annualized return', 'investment return', 'profit percentage'],
  credits: 1,
  input: z.object({
    invested: z.number().min(0.01).max(1e12).describe('Amount invested'),
    returned: z.number().min(0).max(1e12).describe('Amount returned (final value of the investment)'),
    years: z.number().positive().max(100).optional().describe('Optional holding period in years, for the annualized ROI').meta({ unit: 'years' }),
  }),
  output: z.object({
    gain: z.number().describe('Returned minus invested (negative for a loss)'),
    roiPercent: z.number().describe('Total return in percent'),
    annualizedRoiPercent: z.number().nullable().describe('Compound annual return in percent, or null without years'),
  }),
  examples: [
    {
      title: '1,000 grows to 1,500 in 2 years',
      input: { invested: 1000, returned: 1500, years: 2 },
      output: { gain: 500, roiPercent: 50, annualizedRoiPercent: 22.47 },
    },
    {
      title: '2,000 returns 1,800 (no period)',
      input: { invested: 2000, returned: 1800 },
      output: { gain: -200, roiPercent: -10, annualizedRoiPercent: null },
    },
  ],
  run({ invested, returned, years }) {
    return {
      gain: roundTo(returned - invested, 2),
      roiPercent: roundTo(((returned - invested) / invested) * 100, 2),
      annualizedRoiPercent:
        years === undefined
          ? null
          : roundTo(requireFinite(((returned / invested) ** (1 / years) - 1) * 100, 'years', 'The annualized return is too large to compute'), 2),
    };
  },
});
