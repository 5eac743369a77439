import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo, toCents } from '../../core/numbers.ts';

const scheduleRow = z.object({
  month: z.number().int(),
  payment: z.number(),
  principal: z.number(),
  interest: z.number(),
  balance: z.number(),
});

type ScheduleRow = z.infer<typeof scheduleRow>;

/**
 * Below this, n·ln(1+r) is so small that the loan is interest-free to well under a cent even at
 * the largest principal (1e12 · 1e-18 = 1e-6), and expm1 would be working on subnormal numbers.
 */
const NEGLIGIBLE_GROWTH = 1e-18;

/**
 * The exact (unrounded) amortization of a loan: the EMI and the balance owed after month k,
 * both from the closed form, never from a running subtraction. A running subtraction amplifies
 * each month's floating-point error by (1+r)^(n−k), which at 100% over 600 months is ~1e20.
 * Powers of (1+r) are taken as exp(k·ln(1+r)) through expm1/log1p so tiny rates keep their digits.
 */
function exactAmortization(principal: number, rate: number, tenure: number): { r: number; emi: number; balanceAfter(month: number): number } {
  const r = rate / 12 / 100;
  const logGrowth = Math.log1p(r);
  if (tenure * logGrowth < NEGLIGIBLE_GROWTH) {
    return { r, emi: principal / tenure, balanceAfter: (month) => (principal * (tenure - month)) / tenure };
  }
  // 1 − (1+r)^−n: the share of the loan the instalments' present value covers per unit of EMI·r.
  const discountedShare = -Math.expm1(-tenure * logGrowth);
  return {
    r,
    emi: (principal * r) / discountedShare,
    // B_k = P·(1 − (1+r)^(k−n)) / (1 − (1+r)^−n); at k = n the numerator is expm1(0) = 0 exactly.
    balanceAfter: (month) => (principal * -Math.expm1((month - tenure) * logGrowth)) / discountedShare,
  };
}

/**
 * The schedule for display. Every figure is rounded from the exact running balance and the exact
 * running interest, never carried from the previous rounded row, so rounding never compounds:
 * each row's principal is the fall of the rounded balance (the parts add up to the principal to
 * the cent), each row's interest the rise of the rounded cumulative interest (the parts add up
 * to the closed-form total), and the payment is their sum, within 2 cents of the exact EMI.
 * All sums run in integer cents.
 */
function schedule(principal: number, rate: number, tenure: number): { emi: number; totalInterestCents: number; rows: ScheduleRow[] } {
  const exact = exactAmortization(principal, rate, tenure);
  const rows: ScheduleRow[] = [];
  let exactBalance = principal;
  let exactInterestSoFar = 0;
  let balanceCents = toCents(principal);
  let interestCents = 0;
  for (let month = 1; month <= tenure; month++) {
    exactInterestSoFar += exactBalance * exact.r;
    // The last month settles exactly what is left: balanceAfter(tenure) is 0, so its principal
    // is the whole remaining balance and the loan closes at exactly zero.
    exactBalance = month === tenure ? 0 : exact.balanceAfter(month);
    const nextBalanceCents = toCents(exactBalance);
    const nextInterestCents = toCents(exactInterestSoFar);
    const principalPart = balanceCents - nextBalanceCents;
    const interest = nextInterestCents - interestCents;
    rows.push({ month, payment: (principalPart + interest) / 100, principal: principalPart / 100, interest: interest / 100, balance: nextBalanceCents / 100 });
    balanceCents = nextBalanceCents;
    interestCents = nextInterestCents;
  }
  return { emi: roundTo(exact.emi, 2), totalInterestCents: interestCents, rows };
}

export const emiCalculator = defineTool({
  family: 'calculators',
  slug: 'emi-calculator',
  title: 'EMI calculator',
  description:
    'Equated monthly instalment of a loan: EMI = P·r·(1+r)^n / ((1+r)^n − 1) with r the monthly rate. ' +
    'Returns the EMI, total interest, total payment and the month-by-month amortization schedule. Money is rounded to 2 decimals. ' +
    'The schedule is rounded from the exact balances, so it never drifts: the balance reaches exactly 0 in the last month, ' +
    'the principal parts add up to the loan and the interest parts to the total interest (EMI × n − P); ' +
    'a row\'s payment may differ from the EMI by a cent or two where the rounding falls.',
  aliases: ['loan emi', 'mortgage payment', 'amortization schedule', 'monthly instalment'],
  credits: 1,
  input: z.object({
    principal: z.number().positive().max(1e12).describe('Loan amount'),
    rate: z.number().min(0).max(100).meta({ unit: 'percent per year', description: 'Annual interest rate in percent' }),
    tenure: z.number().int().min(1).max(600).meta({ unit: 'months', description: 'Tenure in months' }),
  }),
  output: z.object({
    emi: z.number(),
    totalInterest: z.number(),
    totalPayment: z.number(),
    schedule: z.array(scheduleRow),
  }),
  examples: [
    {
      // r = 0.01; EMI = 10000·0.01·1.0201/0.0201 = 5075.1243781…; balance after month 1 = 10100 − 5075.1243781 = 5024.8756219;
      // interest: 100, then 5024.8756219·0.01 = 50.2487562, total 150.2487562 → 150.25 (bc).
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
    const { emi, totalInterestCents, rows } = schedule(principal, rate, tenure);
    return {
      emi,
      totalInterest: totalInterestCents / 100,
      totalPayment: (toCents(principal) + totalInterestCents) / 100,
      schedule: rows,
    };
  },
});
