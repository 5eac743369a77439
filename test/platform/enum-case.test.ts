// Enum values match whatever their case when exactly one allowed value is meant ("UPPER" is
// "upper"); anything else stays a 400 that lists the allowed values.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { validateInput } from '../../src/core/validate-input.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('enum values, case-insensitively', () => {
  let t: TestApp;
  let apiKey = '';
  before(async () => {
    t = await startTestApp();
    apiKey = (await t.account()).apiKey;
  });
  after(() => t.close());

  it('"UPPER" and " Snake " run the tool; "up" is refused naming the values', async () => {
    const upper = await t.call('/api/v1/text-utilities/text-case-converter', { text: 'Hello world', case: 'UPPER' }, apiKey);
    assert.equal(upper.statusCode, 200, upper.body);
    assert.equal((upper.json() as { result: { text: string } }).result.text, 'HELLO WORLD');
    const snake = await t.call('/api/v1/text-utilities/text-case-converter', { text: 'Hello world', case: ' Snake ' }, apiKey);
    assert.equal((snake.json() as { result: { text: string } }).result.text, 'hello_world');
    const bad = await t.call('/api/v1/text-utilities/text-case-converter', { text: 'Hello world', case: 'up' }, apiKey);
    assert.equal(bad.statusCode, 400);
    assert.match(JSON.stringify(bad.json()), /must be one of: upper, lower/);
  });

  it('two values equal but for case stay ambiguous; nested enums and untouched input', () => {
    const schema = z.object({ mode: z.enum(['A', 'a', 'b']), inner: z.object({ unit: z.enum(['kg', 'lb']) }) });
    // "A " could be "A" or "a": refused.
    assert.throws(() => validateInput(schema, { mode: 'A ', inner: { unit: 'kg' } }), /invalid fields/);
    const raw = { mode: 'B', inner: { unit: 'KG' } };
    assert.deepEqual(validateInput(schema, raw), { mode: 'b', inner: { unit: 'kg' } });
    assert.deepEqual(raw, { mode: 'B', inner: { unit: 'KG' } }, "the caller's object is not changed");
    assert.deepEqual(validateInput(schema, { mode: 'a', inner: { unit: 'lb' } }), { mode: 'a', inner: { unit: 'lb' } });
  });
});
