import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

const scheduleRow = z.object({
  month: z.number().int(),
  payment: z.number(),
  principal: z.number(),
  interest: z.number(),
  balance: z.number(),
});

export const emiCalculator = defineTool({
  family: 'calculators',
  slug: 'emi-calculator',
  title: 'EMI calculator',
  description:
    'Equated monthly instalment of a loan: EMI = P·r·(1+r)^n / ((1+r)^n − 1) with r the monthly rate. ' +
    'Returns the EMI, total interest, total payment and the month-by-month amortization schedule. Money is rounded to 2 decimals.',
  aliases: ['loan emi', 'mortgage payment', 'amortization schedule', 'monthly instalment'],
  credits: 1,
  input: z.object({
    principal: z.number().positive().max(1e12).describe('Loan amount'),
    rate: z.number().min(0).max(100).describe('Annual interest rate in percent'),
    tenure: z.number().int().min(1).max(600).describe('Tenure in months'),
  }),
  output: z.object({
    emi: z.number(),
    totalInterest: z.number(),
    totalPayment: z.number(),
    schedule: z.array(scheduleRow),
  }),
  examples: [
    {
      title: '10,000 at 12% over 2 months',
      input: { principal: 10000, rate: 12, tenure: 2 },
      output: {
        emi: 5075.12,
        totalInterest: 150.25,
        totalPayment: 10150.25,
        schedule: [
          { month: 1, payment: 5075.12, principal: 4975.12, interest: 100, balance: 5024.88 },
          { month: 2, payment: 5075.13, principal: 5024.88, interest: 50.25, balance: 0 },
        ],
      },
    },
  ],
  run({ principal, rate, tenure }) {
    const r = rate / 12 / 100;
    // A rate so small that (1+r)^n rounds to 1 is a zero rate for a double; the closed form would divide by zero.
    const emiExact = (1 + r) ** tenure === 1 ? principal / tenure : (principal * r * (1 + r) ** tenure) / ((1 + r) ** tenure - 1);
    const emi = roundTo(emiExact, 2);
    const schedule: z.infer<typeof scheduleRow>[] = [];
    let balance = principal;
    let totalPayment = 0;
    for (let month = 1; month <= tenure; month++) {
      const interest = roundTo(balance * r, 2);
      // The last instalment absorbs the rounding so the loan closes at exactly zero.
      const principalPart = month === tenure ? roundTo(balance, 2) : roundTo(emi - interest, 2);
      const payment = roundTo(principalPart + interest, 2);
      balance = roundTo(balance - principalPart, 2);
      totalPayment += payment;
      schedule.push({ month, payment, principal: principalPart, interest, balance });
    }
    totalPayment = roundTo(totalPayment, 2);
    return { emi, totalInterest: roundTo(totalPayment - principal, 2), totalPayment, schedule };
  },
});
