import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

export const profitMarginCalculator = defineTool({
  family: 'calculators',
  slug: 'profit-margin-calculator',
  title: 'Profit margin calculator',
  description:
    'Profit, margin and markup from cost and selling price: profit = revenue − cost, margin = profit / revenue × 100, ' +
    'markup = profit / cost × 100 (null when cost is below 0.01, where a markup means nothing). Money and percentages are rounded to 2 decimals.',
  aliases: ['profit margin', 'gross margin', 'markup', 'margin vs markup', 'selling price profit'],
  credits: 1,
  input: z.object({
    cost: z.number().min(0).max(1e12).describe('Cost of the goods or service'),
    revenue: z.number().min(0.01).max(1e12).describe('Selling price or revenue'),
  }),
  output: z.object({
    profit: z.number().describe('Revenue minus cost (negative for a loss)'),
    marginPercent: z.number().describe('Profit as a percent of revenue'),
    markupPercent: z.number().nullable().describe('Profit as a percent of cost, or null when cost is 0'),
  }),
  examples: [
    {
      title: 'Cost 60, sold for 100',
      input: { cost: 60, revenue: 100 },
      output: { profit: 40, marginPercent: 40, markupPercent: 66.67 },
    },
  ],
  run({ cost, revenue }) {
    const profit = revenue - cost;
    return {
      profit: roundTo(profit, 2),
      marginPercent: roundTo((profit / revenue) * 100, 2),
      markupPercent: cost < 0.01 ? null : roundTo((profit / cost) * 100, 2),
    };
  },
});
