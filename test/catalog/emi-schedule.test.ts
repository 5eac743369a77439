import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { runTool } from '../support/run-tool.ts';
import { emiCalculator } from '../../src/catalog/calculators/emi-calculator.ts';

interface Row {
  month: number;
  payment: number;
  principal: number;
  interest: number;
  balance: number;
}
interface EmiResult {
  emi: number;
  totalInterest: number;
  totalPayment: number;
  schedule: Row[];
}

async function emi(principal: number, rate: number, tenure: number): Promise<EmiResult> {
  return (await runTool(emiCalculator, { principal, rate, tenure })).result as EmiResult;
}

/**
 * A figure as integer cents, so sums over hundreds of rows are exact, read from its shortest
 * decimal form (its JSON) and rounded half up there, as the tool rounds a principal "on its
 * written digits" (core/numbers.ts roundTo): 602,710,163,341.325 is ...341.33 although its double
 * lies just below the half. Not as x·100: past ~10^15 cents (a 10^12 loan at 100% over 50 years
 * pays ~3.5·10^15) that product can land half a cent off and round to the wrong cent (a fuzz
 * find: 35,210,023,197,258.09 read as ...58.10), while the figure itself, and its JSON, are exact.
 */
const cents = (x: number): number => {
  const text = String(Math.abs(x));
  // Exponent form (below 10^-6 or past 10^21): no cents to read from the digits.
  if (text.includes('e')) return Math.sign(x) * Math.round(Math.abs(x) * 100);
  const [whole = '0', fraction = ''] = text.split('.');
  const kept = Number(whole) * 100 + Number(fraction.slice(0, 2).padEnd(2, '0'));
  const value = (fraction.charCodeAt(2) || 0) >= 53 /* '5' */ ? kept + 1 : kept;
  return x < 0 ? -value : value;
};

/** The exact value of a double as a fraction: doubling is exact, so this ends with an integer numerator. */
function fraction(x: number): { num: bigint; den: bigint } {
  let den = 1n;
  while (!Number.isInteger(x)) {
    x *= 2;
    den *= 2n;
  }
  return { num: BigInt(x), den };
}

/**
 * The closed-form total interest n·EMI − P = P·(n·r·g/(g − 1) − 1), g = (1+r)^n, in exact rational
 * arithmetic on the doubles given (BigInt), to a millionth: an oracle independent of the tool's
 * floating-point formulas.
 */
function exactTotalInterest(principal: number, rate: number, tenure: number): number {
  if (rate === 0) return 0;
  const p = fraction(principal);
  const r = fraction(rate);
  const n = BigInt(tenure);
  const rNum = r.num; // r/1200 = rNum / rDen
  const rDen = r.den * 1200n;
  const grown = (rDen + rNum) ** n; // g = grown / rDen^n
  const base = rDen ** n;
  // n·r·g/(g−1) − 1 = (n·rNum·grown − rDen·(grown − base)) / (rDen·(grown − base))
  const num = n * rNum * grown - rDen * (grown - base);
  const den = rDen * (grown - base);
  return Number((p.num * num * 1_000_000n) / (p.den * den)) / 1_000_000;
}

/**
 * Everything the schedule promises, for one loan: it closes at exactly 0, no figure is negative,
 * each row adds up, the parts add up to the principal and to the closed-form total interest, and
 * no payment strays from the exact EMI by more than rounding explains.
 */
async function assertAmortizes(principal: number, rate: number, tenure: number): Promise<void> {
  const r = await emi(principal, rate, tenure);
  const label = JSON.stringify({ principal, rate, tenure });
  assert.equal(r.schedule.length, tenure, label);
  // The balance reaches exactly 0 in the last month.
  assert.equal(r.schedule.at(-1)?.balance, 0, label);
  let balance = cents(principal);
  let principalSum = 0;
  let interestSum = 0;
  let paymentSum = 0;
  for (const [i, row] of r.schedule.entries()) {
    assert.equal(row.month, i + 1, label);
    for (const figure of [row.payment, row.principal, row.interest, row.balance]) assert.ok(figure >= 0, `${label} month ${row.month}: ${JSON.stringify(row)}`);
    // Each row reads correctly on its own: payment = principal + interest, and the balance falls by the principal.
    assert.equal(cents(row.payment), cents(row.principal) + cents(row.interest), label);
    assert.equal(cents(row.balance), balance - cents(row.principal), label);
    balance = cents(row.balance);
    principalSum += cents(row.principal);
    interestSum += cents(row.interest);
    paymentSum += cents(row.payment);
  }
  // The principal parts repay the loan to the cent (a principal given with more decimals is owed rounded to the cent).
  assert.ok(Math.abs(principalSum / 100 - principal) <= 0.005 + principal * Number.EPSILON, `${label}: parts sum to ${principalSum / 100}`);
  assert.equal(interestSum, cents(r.totalInterest), label);
  assert.equal(paymentSum, cents(r.totalPayment), label);
  // Total interest = n·EMI − P with the unrounded EMI. Tolerance: half a cent for rounding the total
  // to the cent, plus what a double can resolve: the tool sums n interest terms, each a few roundings
  // off, which the textbook bound for recursive summation puts at (n + 4)·ε of the total (about a
  // ten-thousandth of a cent on a total of 10^7; dollars only for loans near 10^12), plus the
  // oracle's own truncation to a millionth.
  const expected = exactTotalInterest(principal, rate, tenure);
  const tolerance = 0.005 + (tenure + 4) * Number.EPSILON * expected + 1e-6;
  assert.ok(Math.abs(r.totalInterest - expected) <= tolerance, `${label}: total interest ${r.totalInterest}, closed form ${expected}`);
  // The EMI is the exact one rounded to the cent. Every row figure is the difference of two roundings
  // of exact running values (balance, cumulative interest), so a payment is within 2 cents of the
  // unrounded EMI. Both plus the same double resolution as above, on balances and interest sums.
  const exactEmi = (expected + principal) / tenure;
  const resolution = 2 * (tenure + 4) * Number.EPSILON * (principal + expected);
  assert.ok(Math.abs(r.emi - exactEmi) <= 0.005 + resolution, `${label}: EMI ${r.emi}, exact ${exactEmi}`);
  const slack = 0.02 + resolution;
  for (const row of r.schedule) assert.ok(Math.abs(row.payment - exactEmi) <= slack, `${label} month ${row.month}: payment ${row.payment}, EMI ${exactEmi}`);
}

const principalArb = fc.oneof(
  fc.integer({ min: 1, max: 2_000_000_000 }).map((c) => c / 100),
  fc.double({ min: 0.01, max: 1e12, noNaN: true }),
);
const rateArb = fc.oneof(
  fc.constant(0),
  fc.double({ min: Number.MIN_VALUE, max: 1e-6, noNaN: true }),
  fc.integer({ min: 0, max: 100 }),
  fc.double({ min: 0, max: 100, noNaN: true }),
);
const tenureArb = fc.integer({ min: 1, max: 600 });

describe('emi-calculator schedule (issue 8, item 7)', () => {
  it('100,000 at 30% over 480 months closes at 0 with no negative row (it used to end on a payment of -8,110.57)', async () => {
    // Expected figures from an 80-digit Python decimal run of the same definitions (running exact balance,
    // cumulative exact interest, half-up to the cent): EMI 2500.0178027754…, closed-form interest 1100008.5453322…
    const r = await emi(100000, 30, 480);
    assert.equal(r.emi, 2500.02);
    assert.equal(r.totalInterest, 1100008.55);
    assert.equal(r.totalPayment, 1200008.55);
    assert.equal(r.schedule.length, 480);
    assert.deepEqual(r.schedule[0], { month: 1, payment: 2500.02, principal: 0.02, interest: 2500, balance: 99999.98 });
    assert.deepEqual(r.schedule[240], { month: 241, payment: 2500.02, principal: 6.67, interest: 2493.35, balance: 99727.19 });
    assert.deepEqual(r.schedule[478], { month: 479, payment: 2500.02, principal: 2379.55, interest: 120.47, balance: 2439.04 });
    assert.deepEqual(r.schedule[479], { month: 480, payment: 2500.02, principal: 2439.04, interest: 60.98, balance: 0 });
    for (const row of r.schedule) assert.ok(row.payment >= 2500 && row.payment <= 2500.03, JSON.stringify(row));
  });

  it('100,000 at 24% over 600 months: total interest 1,100,008.30, the closed form (it used to be 1,133,372.53)', async () => {
    // Python decimal: EMI 2000.0138334320…, n·EMI − P = 1100008.3000592534…
    const r = await emi(100000, 24, 600);
    assert.equal(r.emi, 2000.01);
    assert.equal(r.totalInterest, 1100008.3);
    assert.equal(r.totalPayment, 1200008.3);
    assert.deepEqual(r.schedule[0], { month: 1, payment: 2000.01, principal: 0.01, interest: 2000, balance: 99999.99 });
    assert.deepEqual(r.schedule[1], { month: 2, payment: 2000.02, principal: 0.02, interest: 2000, balance: 99999.97 });
    assert.deepEqual(r.schedule[300], { month: 301, payment: 2000.02, principal: 5.26, interest: 1994.76, balance: 99732.43 });
    assert.deepEqual(r.schedule[598], { month: 599, payment: 2000.01, principal: 1922.35, interest: 77.66, balance: 1960.8 });
    assert.deepEqual(r.schedule[599], { month: 600, payment: 2000.02, principal: 1960.8, interest: 39.22, balance: 0 });
  });

  it('a rate of 0 repays the principal in equal parts with no interest', async () => {
    const r = await emi(1000, 0, 3);
    assert.deepEqual(r, {
      emi: 333.33,
      totalInterest: 0,
      totalPayment: 1000,
      schedule: [
        { month: 1, payment: 333.33, principal: 333.33, interest: 0, balance: 666.67 },
        { month: 2, payment: 333.34, principal: 333.34, interest: 0, balance: 333.33 },
        { month: 3, payment: 333.33, principal: 333.33, interest: 0, balance: 0 },
      ],
    });
  });

  it('the exact-rational oracle agrees with a hand calculation (10,000 at 12% over 2 months: 150.2487562…)', () => {
    assert.equal(exactTotalInterest(10000, 12, 2), 150.248756);
  });

  it('property: any principal, rate (0, tiny, up to 100%) and tenure (1..600) amortizes exactly', async () => {
    await fc.assert(
      fc.asyncProperty(principalArb, rateArb, tenureArb, assertAmortizes),
      { numRuns: 300 },
    );
  });

  it('rounds a principal on its written digits: 483,513,104,872.11475 at 0% over 1 month is 483,513,104,872.11 (a fuzz find)', async () => {
    await assertAmortizes(483513104872.11475, 0, 1);
    const r = await emi(483513104872.11475, 0, 1);
    assert.deepEqual(r.schedule, [{ month: 1, payment: 483513104872.11, principal: 483513104872.11, interest: 0, balance: 0 }]);
  });

  it('reads totals past 10^15 cents to the cent: 838,334,404,676.1204 at 99.99993808829555% over 504 months (a fuzz find)', async () => {
    await assertAmortizes(838334404676.1204, 99.99993808829555, 504);
    const r = await emi(838334404676.1204, 99.99993808829555, 504);
    // The payments' exact sum in cents, and the total the JSON answer carries.
    assert.equal(JSON.stringify(r.totalPayment), '35210023197258.09');
  });

  it("reads a principal's half cent on its written digits: 602,710,163,341.325 at 0% over 1 month (a fuzz find)", async () => {
    await assertAmortizes(602710163341.325, 0, 1);
  });

  it('the corners amortize exactly too: the largest loan, the highest rate, the longest and shortest tenure, subnormal rates', async () => {
    for (const principal of [0.01, 1, 1e12]) {
      for (const rate of [0, Number.MIN_VALUE, 1e-12, 0.01, 100]) {
        for (const tenure of [1, 2, 599, 600]) await assertAmortizes(principal, rate, tenure);
      }
    }
  });
});
