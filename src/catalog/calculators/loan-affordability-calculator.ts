import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

export const loanAffordabilityCalculator = defineTool({
  family: 'calculators',
  slug: 'loan-affordability-calculator',
  title: 'Loan affordability calculator',
  description:
    'How much you can borrow under a debt-to-income (DTI) limit. Allowed debt payments = monthly income × max DTI / 100; ' +
    'max EMI = allowed payments − existing monthly debts (never below 0); max loan = EMI × (1 − (1 + r)^−n) / r with r the ' +
    'monthly rate and n the tenure in months (EMI × n when the rate is 0). The loan is computed from the rounded EMI. ' +
    'Money is rounded to 2 decimals.',
  aliases: ['how much can i borrow', 'loan eligibility', 'mortgage affordability', 'debt to income', 'dti', 'max loan amount'],
  credits: 1,
  input: z.object({
    monthlyIncome: z.number().positive().max(1e10).describe('Gross monthly income'),
    monthlyDebts: z.number().min(0).max(1e10).default(0).describe('Existing monthly debt payments'),
    rate: z.number().min(0).max(100).describe('Annual interest rate of the new loan in percent').meta({ unit: 'percent per year' }),
    tenureMonths: z.number().int().min(1).max(600).describe('Tenure of the new loan in months').meta({ unit: 'months' }),
    maxDtiPercent: z
      .number()
      .positive()
      .max(100)
      .default(36)
      .describe('Maximum share of income that may go to all debt payments, in percent (default 36)')
      .meta({ unit: 'percent' }),
  }),
  output: z.object({
    maxMonthlyDebtPayments: z.number().describe('Income × max DTI: the ceiling for all debt payments together'),
    maxEmi: z.number().describe('Largest new monthly instalment that fits under the ceiling'),
    maxLoanAmount: z.number().describe('Largest principal that the max EMI repays over the tenure'),
    totalPayment: z.number().describe('Max EMI × tenure'),
    totalInterest: z.number().describe('Total payment minus the max loan amount'),
  }),
  examples: [
    {
      title: 'Income 5,000, debts 300, 12% over 12 months',
      input: { monthlyIncome: 5000, monthlyDebts: 300, rate: 12, tenureMonths: 12 },
      output: { maxMonthlyDebtPayments: 1800, maxEmi: 1500, maxLoanAmount: 16882.62, totalPayment: 18000, totalInterest: 1117.38 },
    },
  ],
  run({ monthlyIncome, monthlyDebts, rate, tenureMonths, maxDtiPercent }, ctx) {
    const maxMonthlyDebtPayments = roundTo((monthlyIncome * maxDtiPercent) / 100, 2);
    const maxEmi = Math.max(0, roundTo(maxMonthlyDebtPayments - monthlyDebts, 2));
    if (maxEmi === 0) ctx.warn('Existing debts already use the whole DTI allowance: no new loan fits.');
    const r = rate / 12 / 100;
    const factor = r === 0 ? tenureMonths : (1 - (1 + r) ** -tenureMonths) / r;
    const maxLoanAmount = roundTo(maxEmi * factor, 2);
    const totalPayment = roundTo(maxEmi * tenureMonths, 2);
    return {
      maxMonthlyDebtPayments,
      maxEmi,
      maxLoanAmount,
      totalPayment,
      totalInterest: roundTo(totalPayment - maxLoanAmount, 2),
    };
  },
});
