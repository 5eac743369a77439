// roundTo (src/core/numbers.ts), the rounding every calculator answers with: half away from zero
// on the number as written (its shortest decimal form, what its JSON says), never on the double's
// binary value or on a product that rounding pushed across a half. Checked against exact decimal
// arithmetic on the written digits (BigInt), on the fuzz finds and on random decimals of every size
// the calculators take.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { roundTo } from '../../src/core/numbers.ts';

/** `text` (a plain decimal, no exponent) rounded half away from zero to `digits` decimals, exactly. */
function exactHalfUp(text: string, digits: number): string {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  let scaled = BigInt(`${whole}${fraction.slice(0, digits).padEnd(digits, '0')}`);
  if ((fraction.charCodeAt(digits) || 0) >= 53 /* '5' */) scaled += 1n;
  const padded = scaled.toString().padStart(digits + 1, '0');
  const result = digits === 0 ? padded : `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
  return negative && scaled !== 0n ? `-${result}` : result;
}

/** Whether roundTo's answer is the decimal `expected` (compared as the number its text names). */
function assertRounds(value: number, digits: number, expected: string): void {
  assert.equal(roundTo(value, digits), Number(expected), `roundTo(${value}, ${digits}) should be ${expected}`);
}

describe('roundTo rounds the written digits half away from zero', () => {
  it('the known cases, fuzz finds among them', () => {
    assertRounds(1.005, 2, '1.01');
    assertRounds(-1.005, 2, '-1.01');
    assertRounds(0.125, 2, '0.13');
    assertRounds(2.675, 2, '2.68');
    assertRounds(483513104872.11475, 2, '483513104872.11');
    // The product by 100 lands exactly on ...833.5: the digits say .33496, so .33.
    assertRounds(453514759198.33496, 2, '453514759198.33');
    assertRounds(602710163341.325, 2, '602710163341.33');
    assertRounds(0.0049999999999999, 2, '0');
    assertRounds(1e-7, 2, '0');
  });

  it('property: any decimal up to 10^12 with up to 8 decimals, at 0 to 4 digits', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 8 }), fc.bigInt({ min: 0n, max: 10n ** 8n - 1n }), fc.boolean())
      .map(([whole, places, fraction, negative]) => {
        const digits = places === 0 ? '' : `.${(fraction % 10n ** BigInt(places)).toString().padStart(places, '0')}`;
        return `${negative ? '-' : ''}${whole}${digits}`;
      })
      // Only numbers written that way: the written digits are the shortest form of the double.
      .filter((text) => String(Number(text)) === text);
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 4 }), (text, digits) => {
        // Past 2^52 at this scale there is no fraction left to round (roundTo returns the value).
        fc.pre(Math.abs(Number(text)) * 10 ** digits < 2 ** 52);
        assertRounds(Number(text), digits, exactHalfUp(text, digits));
      }),
      { numRuns: 3000 },
    );
  });
});
