import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

export const gstCalculator = defineTool({
  family: 'calculators',
  slug: 'gst-calculator',
  title: 'GST calculator',
  description:
    'Adds or removes GST (goods and services tax). Mode "exclusive": amount is the net price, GST = amount × rate / 100 ' +
    'and gross = net + GST. Mode "inclusive": amount is the gross price, net = amount × 100 / (100 + rate) and GST = gross − net. ' +
    'Also splits the GST into equal CGST and SGST halves (CGST is rounded, SGST takes the remainder so the halves add up). ' +
    'Money is rounded to 2 decimals (half away from zero).',
  aliases: ['gst', 'vat calculator', 'sales tax', 'add gst', 'remove gst', 'reverse gst', 'cgst sgst', 'tax inclusive price'],
  credits: 1,
  input: z.object({
    rate: z.number().min(0).max(100).describe('GST rate in percent, e.g. 18').meta({ unit: 'percent' }),
    amount: z.number().min(0).max(1e12).describe('The amount: net (before GST) in exclusive mode, gross (GST included) in inclusive mode'),
    mode: z
      .enum(['exclusive', 'inclusive'])
      .default('exclusive')
      .describe('"exclusive": add GST to a net amount; "inclusive": extract GST from a gross amount'),
  }),
  output: z.object({
    mode: z.enum(['exclusive', 'inclusive']),
    rate: z.number().describe('GST rate in percent'),
    netAmount: z.number().describe('Amount before GST'),
    gstAmount: z.number().describe('GST amount'),
    grossAmount: z.number().describe('Amount including GST'),
    cgst: z.number().describe('Central GST: half of the GST'),
    sgst: z.number().describe('State GST: the other half of the GST'),
  }),
  examples: [
    {
      title: 'Add 18% GST to 1,000',
      input: { rate: 18, amount: 1000, mode: 'exclusive' },
      output: { mode: 'exclusive', rate: 18, netAmount: 1000, gstAmount: 180, grossAmount: 1180, cgst: 90, sgst: 90 },
    },
    {
      title: 'Remove 18% GST from 1,180',
      input: { rate: 18, amount: 1180, mode: 'inclusive' },
      output: { mode: 'inclusive', rate: 18, netAmount: 1000, gstAmount: 180, grossAmount: 1180, cgst: 90, sgst: 90 },
    },
  ],
  run({ rate, amount, mode }) {
    let netAmount: number;
    let grossAmount: number;
    if (mode === 'exclusive') {
      netAmount = roundTo(amount, 2);
      grossAmount = roundTo(netAmount + (amount * rate) / 100, 2);
    } else {
      grossAmount = roundTo(amount, 2);
      netAmount = roundTo((amount * 100) / (100 + rate), 2);
    }
    const gstAmount = roundTo(grossAmount - netAmount, 2);
    const cgst = roundTo(gstAmount / 2, 2);
    const sgst = roundTo(gstAmount - cgst, 2);
    return { mode, rate, netAmount, gstAmount, grossAmount, cgst, sgst };
  },
});
