import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';
import { roundTo } from '../../core/numbers.ts';

export const breakEvenCalculator = defineTool({
  family: 'calculators',
  slug: 'break-even-calculator',
  title: 'Break-even calculator',
  description:
    'Break-even point: units = (fixed costs + target profit) / (price − variable cost per unit). Returns the exact units ' +
    '(4 decimals), the whole units to sell (rounded up), the revenue at the exact break-even point, the contribution margin ' +
    'per unit and the contribution margin ratio in percent. Money and percentages are rounded to 2 decimals. A price not above ' +
    'the variable cost never breaks even and is a 400 naming pricePerUnit.',
  aliases: ['break even', 'breakeven point', 'bep', 'contribution margin', 'units to break even'],
  credits: 1,
  input: z.object({
    fixedCosts: z.number().min(0).max(1e12).describe('Total fixed costs for the period'),
    pricePerUnit: z.number().min(0.01).max(1e9).describe('Selling price per unit'),
    variableCostPerUnit: z.number().min(0).max(1e9).describe('Variable cost per unit'),
    targetProfit: z.number().min(0).max(1e12).default(0).describe('Optional profit to reach on top of breaking even (default 0)'),
  }),
  output: z.object({
    breakEvenUnits: z.number().int().describe('Whole units to sell (rounded up)'),
    breakEvenUnitsExact: z.number().describe('Exact units, 4 decimals'),
    breakEvenRevenue: z.number().describe('Revenue at the exact break-even units'),
    contributionMarginPerUnit: z.number().describe('Price minus variable cost'),
    contributionMarginRatioPercent: z.number().describe('Contribution margin as a percent of price'),
  }),
  examples: [
    {
      title: 'Fixed 10,000, price 50, variable cost 30',
      input: { fixedCosts: 10000, pricePerUnit: 50, variableCostPerUnit: 30 },
      output: {
        breakEvenUnits: 500,
        breakEvenUnitsExact: 500,
        breakEvenRevenue: 25000,
        contributionMarginPerUnit: 20,
        contributionMarginRatioPercent: 40,
      },
    },
  ],
  run({ fixedCosts, pricePerUnit, variableCostPerUnit, targetProfit }) {
    const margin = pricePerUnit - variableCostPerUnit;
    if (margin <= 0) {
      throw invalidInput('The price must be above the variable cost per unit to break even', [
        { field: 'pricePerUnit', message: 'must be greater than variableCostPerUnit' },
      ]);
    }
    const units = (fixedCosts + targetProfit) / margin;
    // Past 1e15 units the whole-unit count is no longer exact in a double.
    if (units > 1e15) {
      throw invalidInput('The contribution margin is too small to break even in a countable number of units', [
        { field: 'pricePerUnit', message: 'leaves too small a margin over variableCostPerUnit' },
      ]);
    }
    return {
      // toPrecision strips float drift so an exact whole number is not rounded up to the next unit.
      breakEvenUnits: Math.ceil(Number(units.toPrecision(12))),
      breakEvenUnitsExact: roundTo(units, 4),
      breakEvenRevenue: roundTo(units * pricePerUnit, 2),
      contributionMarginPerUnit: roundTo(margin, 2),
      contributionMarginRatioPercent: roundTo((margin / pricePerUnit) * 100, 2),
    };
  },
});
