// format= on a tool with no other form than the envelope is refused, named, and not charged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('format on a JSON tool', () => {
  let t: TestApp;
  let apiKey = '';
  before(async () => {
    t = await startTestApp();
    apiKey = (await t.account()).apiKey;
  });
  after(() => t.close());

  it('POST ...?format=markdown answers 400 invalid_format naming the parameter, and charges nothing', async () => {
    const before = await t.services.accounts.usedCredits((await t.services.accounts.findCaller(apiKey))!.account.id);
    const res = await t.call('/api/v1/calculators/emi-calculator?format=markdown', { principal: 100000, rate: 10, tenure: 12 }, apiKey);
    assert.equal(res.statusCode, 400);
    const body = res.json() as { error: string; message: string; field: string };
    assert.equal(body.error, 'invalid_format');
    assert.equal(body.field, 'format');
    assert.match(body.message, /calculators_emi_calculator has no markdown/);
    const after = await t.services.accounts.usedCredits((await t.services.accounts.findCaller(apiKey))!.account.id);
    assert.equal(after, before);
    // Without it the same call answers.
    assert.equal((await t.call('/api/v1/calculators/emi-calculator', { principal: 100000, rate: 10, tenure: 12 }, apiKey)).statusCode, 200);
  });
});
