import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../src/core/errors.ts';
import { parseLengthMm, parseMarginsMm, resolvePage } from '../../src/engines/page.ts';

describe('page options', () => {
  it('parses lengths with units', () => {
    assert.equal(parseLengthMm('10mm'), 10);
    assert.equal(parseLengthMm('2cm'), 20);
    assert.equal(parseLengthMm('1in'), 25.4);
    assert.ok(Math.abs(parseLengthMm('72pt')! - 25.4) < 1e-9);
    assert.ok(Math.abs(parseLengthMm('96px')! - 25.4) < 1e-9);
    assert.equal(parseLengthMm('5'), 5);
    assert.equal(parseLengthMm('5 furlongs'), null);
    assert.equal(parseLengthMm('-3mm'), null);
  });

  it('expands margins like CSS', () => {
    assert.deepEqual(parseMarginsMm('1cm'), [10, 10, 10, 10]);
    assert.deepEqual(parseMarginsMm('1cm 2cm'), [10, 20, 10, 20]);
    assert.deepEqual(parseMarginsMm('1mm 2mm 3mm'), [1, 2, 3, 2]);
    assert.deepEqual(parseMarginsMm('1mm 2mm 3mm 4mm'), [1, 2, 3, 4]);
    assert.deepEqual(parseMarginsMm(7), [7, 7, 7, 7]);
    assert.throws(() => parseMarginsMm('1mm 2mm 3mm 4mm 5mm'), ServiceError);
    assert.throws(() => parseMarginsMm('wide'), (e) => e instanceof ServiceError && e.status === 400);
  });

  it('resolves sizes and orientation', () => {
    assert.equal(resolvePage(undefined), null);
    assert.equal(resolvePage({}), null);
    assert.deepEqual(resolvePage({ pageSize: 'a4' }), { widthMm: 210, heightMm: 297, landscape: false, marginsMm: null });
    assert.deepEqual(resolvePage({ pageSize: 'A5', orientation: 'landscape', margin: '1cm' }), {
      widthMm: 210,
      heightMm: 148,
      landscape: true,
      marginsMm: [10, 10, 10, 10],
    });
    assert.deepEqual(resolvePage({ orientation: 'landscape' })?.widthMm, 297);
    assert.throws(() => resolvePage({ pageSize: 'A11' }), (e) => e instanceof ServiceError && e.status === 400);
    assert.throws(() => resolvePage({ pageSize: 'A6', margin: '6cm' }), ServiceError);
  });
});
