import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

export const discountCalculator = defineTool({
  family: 'calculators',
  slug: 'discount-calculator',
  title: 'Discount calculator',
  description:
    'Sale price after a percentage discount: final = price × (1 − discount/100), and with an optional extra discount applied ' +
    'on top of the first (stacked, as in "20% + 10% off"): final = price × (1 − d1/100) × (1 − d2/100). Optional sales tax is ' +
    'then added on the discounted price. Returns the amount saved, the final price and the effective discount percent. ' +
    'Money is rounded to 2 decimals, percentages to 4.',
  aliases: ['discount', 'sale price', 'percent off', 'price after discount', 'savings calculator', 'stacked discount'],
  credits: 1,
  input: z.object({
    originalPrice: z.number().min(0).max(1e12).describe('Price before any discount'),
    discountPercent: z.number().min(0).max(100).describe('Discount in percent').meta({ unit: 'percent' }),
    extraDiscountPercent: z
      .number()
      .min(0)
      .max(100)
      .default(0)
      .describe('Optional second discount in percent, applied to the already discounted price')
      .meta({ unit: 'percent' }),
    taxPercent: z.number().min(0).max(100).default(0).describe('Optional sales tax in percent, added after the discounts').meta({ unit: 'percent' }),
  }),
  output: z.object({
    discountAmount: z.number().describe('Total amount saved by the discounts'),
    discountedPrice: z.number().describe('Price after the discounts, before tax'),
    taxAmount: z.number().describe('Tax on the discounted price'),
    finalPrice: z.number().describe('Discounted price plus tax'),
    effectiveDiscountPercent: z.number().describe('Overall discount in percent of the original price'),
  }),
  examples: [
    {
      title: '20% off 250',
      input: { originalPrice: 250, discountPercent: 20 },
      output: { discountAmount: 50, discountedPrice: 200, taxAmount: 0, finalPrice: 200, effectiveDiscountPercent: 20 },
    },
    {
      title: '20% + 10% off 100 with 8% tax',
      input: { originalPrice: 100, discountPercent: 20, extraDiscountPercent: 10, taxPercent: 8 },
      output: { discountAmount: 28, discountedPrice: 72, taxAmount: 5.76, finalPrice: 77.76, effectiveDiscountPercent: 28 },
    },
  ],
  run({ originalPrice, discountPercent, extraDiscountPercent, taxPercent }) {
    const factor = (1 - discountPercent / 100) * (1 - extraDiscountPercent / 100);
    const discountedPrice = roundTo(originalPrice * factor, 2);
    const taxAmount = roundTo((discountedPrice * taxPercent) / 100, 2);
    return {
      discountAmount: roundTo(originalPrice - discountedPrice, 2),
      discountedPrice,
      taxAmount,
      finalPrice: roundTo(discountedPrice + taxAmount, 2),
      effectiveDiscountPercent: roundTo((1 - factor) * 100, 4),
    };
  },
});
