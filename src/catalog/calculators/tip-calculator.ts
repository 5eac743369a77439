import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

export const tipCalculator = defineTool({
  family: 'calculators',
  slug: 'tip-calculator',
  title: 'Tip calculator',
  description:
    'Tip and bill split: tip = bill × tipPercent / 100, total = bill + tip, per person = total / people and tip per person = ' +
    'tip / people. Money is rounded to 2 decimals (half away from zero), so per-person shares can differ from the total by a ' +
    'cent or two; perPersonRoundedUp rounds each share up to the next cent so the group never pays short.',
  aliases: ['tip', 'gratuity', 'split the bill', 'bill splitter', 'restaurant tip'],
  credits: 1,
  input: z.object({
    bill: z.number().min(0).max(1e9).describe('Bill amount before tip'),
    tipPercent: z.number().min(0).max(100).default(15).describe('Tip in percent of the bill (default 15)').meta({ unit: 'percent' }),
    people: z.number().int().min(1).max(1000).default(1).describe('Number of people sharing the bill (default 1)').meta({ unit: 'people' }),
  }),
  output: z.object({
    tip: z.number().describe('Tip amount'),
    total: z.number().describe('Bill plus tip'),
    perPerson: z.number().describe('Total divided by the number of people'),
    tipPerPerson: z.number().describe('Tip divided by the number of people'),
    perPersonRoundedUp: z.number().describe('Per-person share rounded up to the next cent'),
  }),
  examples: [
    {
      title: '100 with 10% tip, split 3 ways',
      input: { bill: 100, tipPercent: 10, people: 3 },
      output: { tip: 10, total: 110, perPerson: 36.67, tipPerPerson: 3.33, perPersonRoundedUp: 36.67 },
    },
  ],
  run({ bill, tipPercent, people }) {
    const tip = roundTo((bill * tipPercent) / 100, 2);
    const total = roundTo(bill + tip, 2);
    // toPrecision strips float drift (e.g. 0.1 + 0.2) before rounding up, so exact cents are not bumped.
    const perPersonRoundedUp = Math.ceil(Number(((total / people) * 100).toPrecision(12))) / 100;
    return {
      tip,
      total,
      perPerson: roundTo(total / people, 2),
      tipPerPerson: roundTo(tip / people, 2),
      perPersonRoundedUp,
    };
  },
});
