import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';
import { roundTo } from '../../core/numbers.ts';

const MODES = ['percent-of', 'what-percent', 'percent-change', 'increase-by', 'decrease-by'] as const;

export const percentageCalculator = defineTool({
  family: 'calculators',
  slug: 'percentage-calculator',
  title: 'Percentage calculator',
  description:
    'Everyday percentages, chosen by mode: "percent-of" = x% of y (x × y / 100); "what-percent" = x is what percent of y ' +
    '(x / y × 100); "percent-change" = change from x to y in percent ((y − x) / |x| × 100); "increase-by" = y increased by x% ' +
    '(y × (1 + x/100)); "decrease-by" = y decreased by x% (y × (1 − x/100)). The result is rounded to 4 decimals. ' +
    'A zero divisor (y in what-percent, x in percent-change) is a 400 naming the field.',
  aliases: ['percent', 'percentage', 'percent of', 'what percent', 'percent change', 'percentage increase', 'percentage decrease'],
  credits: 1,
  input: z.object({
    mode: z.enum(MODES).describe('Which calculation to do'),
    x: z
      .number()
      .min(-1e12)
      .max(1e12)
      .describe('First value: the percent (percent-of, increase-by, decrease-by), the part (what-percent) or the old value (percent-change)'),
    y: z
      .number()
      .min(-1e12)
      .max(1e12)
      .describe('Second value: the base (percent-of, what-percent, increase-by, decrease-by) or the new value (percent-change)'),
  }),
  output: z.object({
    mode: z.enum(MODES),
    result: z.number().describe('The answer, rounded to 4 decimals'),
    explanation: z.string().describe('The calculation in words'),
  }),
  examples: [
    {
      title: '15% of 200',
      input: { mode: 'percent-of', x: 15, y: 200 },
      output: { mode: 'percent-of', result: 30, explanation: '15% of 200 = 30' },
    },
    {
      title: '30 is what percent of 200',
      input: { mode: 'what-percent', x: 30, y: 200 },
      output: { mode: 'what-percent', result: 15, explanation: '30 is 15% of 200' },
    },
    {
      title: 'Change from 200 to 250',
      input: { mode: 'percent-change', x: 200, y: 250 },
      output: { mode: 'percent-change', result: 25, explanation: 'from 200 to 250 is a 25% increase' },
    },
  ],
  run({ mode, x, y }) {
    switch (mode) {
      case 'percent-of': {
        const result = roundTo((x * y) / 100, 4);
        return { mode, result, explanation: `${x}% of ${y} = ${result}` };
      }
      case 'what-percent': {
        if (y === 0) throw invalidInput('Cannot take a percentage of zero', [{ field: 'y', message: 'must not be 0 in what-percent mode' }]);
        const result = roundTo((x / y) * 100, 4);
        return { mode, result, explanation: `${x} is ${result}% of ${y}` };
      }
      case 'percent-change': {
        if (x === 0) throw invalidInput('Percent change from zero is undefined', [{ field: 'x', message: 'must not be 0 in percent-change mode' }]);
        const result = roundTo(((y - x) / Math.abs(x)) * 100, 4);
        const word = result > 0 ? 'increase' : result < 0 ? 'decrease' : 'change';
        return { mode, result, explanation: `from ${x} to ${y} is a ${Math.abs(result)}% ${word}` };
      }
      case 'increase-by': {
        const result = roundTo(y * (1 + x / 100), 4);
        return { mode, result, explanation: `${y} increased by ${x}% = ${result}` };
      }
      case 'decrease-by': {
        const result = roundTo(y * (1 - x / 100), 4);
        return { mode, result, explanation: `${y} decreased by ${x}% = ${result}` };
      }
    }
  },
});
