import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { toFieldIssues } from '../../src/core/validate-input.ts';
import { outputName } from '../../src/files/file-pipeline.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const SIP = '/api/v1/calculators/sip-calculator';
const LOAN = '/api/v1/calculators/loan-affordability-calculator';
const TXT_TO_MD = '/api/v1/documents/txt-to-md';

/** The one bad-field issue of a 400 validation answer, checked down to the envelope's detail. */
function onlyIssue(res: LightMyRequestResponse): { field: string; message: string } {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json();
  assert.equal(body.status, false);
  assert.equal(body.error, 'validation_error');
  assert.equal(body.issues.length, 1, res.body);
  const [issue] = body.issues;
  assert.equal(body.detail, `${issue.field}: ${issue.message}`);
  return { field: issue.field, message: issue.message };
}

describe('error messages say what to fix', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await startTestApp();
    ({ apiKey } = await t.account({ quota: 10_000 }));
  });
  after(() => t.close());

  it('says a missing field is required', async () => {
    const res = await t.call(SIP, { annualReturnRate: 12, years: 1 }, apiKey);
    assert.deepEqual(onlyIssue(res), { field: 'monthlyInvestment', message: 'is required' });
  });

  it('says a missing whole-number field is required, not that it must be whole', async () => {
    const res = await t.call(SIP, { monthlyInvestment: 1000, annualReturnRate: 12 }, apiKey);
    assert.deepEqual(onlyIssue(res), { field: 'years', message: 'is required' });
  });

  it('says 0.5 for an integer must be a whole number, with its unit', async () => {
    const res = await t.call(SIP, { monthlyInvestment: 1000, annualReturnRate: 12, years: 0.5 }, apiKey);
    assert.deepEqual(onlyIssue(res), { field: 'years', message: 'must be a whole number (years)' });
  });

  it('names the unit of a range', async () => {
    const over = await t.call(LOAN, { monthlyIncome: 5000, rate: 12, tenureMonths: 601 }, apiKey);
    assert.deepEqual(onlyIssue(over), { field: 'tenureMonths', message: 'must be at most 600 (months)' });
    const under = await t.call(LOAN, { monthlyIncome: 5000, rate: 12, tenureMonths: 0 }, apiKey);
    assert.deepEqual(onlyIssue(under), { field: 'tenureMonths', message: 'must be at least 1 (months)' });
    const rate = await t.call(LOAN, { monthlyIncome: 5000, rate: 101, tenureMonths: 12 }, apiKey);
    assert.deepEqual(onlyIssue(rate), { field: 'rate', message: 'must be at most 100 (percent per year)' });
  });

  it('says an exclusive bound as "greater than"', async () => {
    const res = await t.call(LOAN, { monthlyIncome: 0, rate: 12, tenureMonths: 12 }, apiKey);
    assert.deepEqual(onlyIssue(res), { field: 'monthlyIncome', message: 'must be greater than 0' });
  });

  it('says which type a field takes and what it got', async () => {
    const res = await t.call(SIP, { monthlyInvestment: 'lots', annualReturnRate: 12, years: 1 }, apiKey);
    assert.deepEqual(onlyIssue(res), { field: 'monthlyInvestment', message: 'must be a number, not the string "lots"' });
  });

  it('counts string lengths in characters', async () => {
    const res = await t.call('/api/v1/unit-conversions/mass-converter', { value: 1, from: '', to: 'kg' }, apiKey);
    assert.deepEqual(onlyIssue(res), { field: 'from', message: 'must not be empty' });
  });

  it('answers 400 naming an unknown field at the top level', async () => {
    const res = await t.call(SIP, { monthlyInvestment: 1000, annualReturnRate: 12, years: 1, yeras: 2 }, apiKey);
    assert.deepEqual(onlyIssue(res), { field: 'yeras', message: 'not a field of this tool' });
  });

  it('answers 400 naming an unknown field under inputs, and every one of several', async () => {
    const nested = await t.call(SIP, { inputs: { monthlyInvestment: 1000, annualReturnRate: 12, years: 1, rate: 5 } }, apiKey);
    assert.deepEqual(onlyIssue(nested), { field: 'rate', message: 'not a field of this tool' });
    const both = await t.call(SIP, { extra: true, inputs: { monthlyInvestment: 1000, annualReturnRate: 12, years: 1, other: 1 } }, apiKey);
    assert.deepEqual(onlyIssue(both), { field: 'extra, other', message: 'not a field of this tool' });
  });

  it('charges nothing for an unknown field', async () => {
    const { apiKey: own, accountId } = await t.account({ quota: 100 });
    const res = await t.call(SIP, { monthlyInvestment: 1000, annualReturnRate: 12, years: 1, foo: 1 }, own);
    assert.equal(res.statusCode, 400);
    assert.equal(await t.services.ledger.used(accountId), 0);
  });

  it('still accepts every field a tool has, at the top level and under inputs', async () => {
    const fields = { monthlyInvestment: 1000, annualReturnRate: 12, years: 1 };
    assert.equal((await t.call(SIP, fields, apiKey)).statusCode, 200);
    assert.equal((await t.call(SIP, { inputs: fields }, apiKey)).statusCode, 200);
  });

  it('tells a text/plain body to use application/json (415)', async () => {
    const res = await t.app.inject({ method: 'POST', url: SIP, headers: { 'content-type': 'text/plain', 'x-api-key': apiKey }, payload: 'monthlyInvestment=1000' });
    assert.equal(res.statusCode, 415);
    const body = res.json();
    assert.equal(body.error, 'unsupported_media_type');
    assert.equal(body.message, 'Content-Type text/plain is not accepted here');
    assert.equal(body.detail, 'Send the fields as a JSON object with Content-Type: application/json');
    assert.equal(body.requestId, res.headers['x-request-id']);
  });

  it('tells a text/plain body sent to a file tool to use multipart (415)', async () => {
    const res = await t.app.inject({ method: 'POST', url: TXT_TO_MD, headers: { 'content-type': 'text/plain', 'x-api-key': apiKey }, payload: 'hello' });
    assert.equal(res.statusCode, 415);
    const body = res.json();
    assert.equal(body.error, 'multipart_required');
    assert.equal(body.message, 'Send the file as multipart/form-data');
  });

  it('names a __proto__ key as forbidden, not as invalid JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: SIP,
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      payload: '{"monthlyInvestment":1000,"annualReturnRate":12,"years":1,"__proto__":{"isAdmin":true}}',
    });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.error, 'forbidden_key');
    assert.equal(body.message, 'The body holds the forbidden key "__proto__"');
    assert.deepEqual(body.issues, [{ field: '__proto__', message: 'forbidden key' }]);
    assert.equal(({} as Record<string, unknown>)['isAdmin'], undefined, 'no prototype was polluted');
  });

  it('names a nested constructor.prototype key with its path', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: SIP,
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      payload: '{"inputs":{"constructor":{"prototype":{"x":1}}}}',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'forbidden_key');
    assert.equal(res.json().message, 'The body holds the forbidden key "inputs.constructor.prototype"');
  });

  it('still calls truly broken JSON invalid', async () => {
    const res = await t.app.inject({ method: 'POST', url: SIP, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, payload: '{"__proto__": ' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_json');
  });

  it('documents units in the OpenAPI document as x-unit', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const schema = doc.paths[LOAN].post.requestBody.content['application/json'].schema.oneOf[0];
    assert.equal(schema.properties.tenureMonths['x-unit'], 'months');
    assert.equal(schema.properties.tenureMonths.unit, undefined);
    assert.equal(schema.additionalProperties, false);
  });
});

describe('the issue formatter', () => {
  it('finds a unit on any wrapper layer and inside arrays', () => {
    const schema = z.object({
      a: z.number().max(5).meta({ unit: 'kg' }).optional(),
      b: z.number().max(5).default(1).meta({ unit: 'cm' }),
      c: z.array(z.number().int().meta({ unit: 'days' })),
    });
    const raw = { a: 6, b: 6, c: [1, 2.5] };
    const issues = toFieldIssues(schema.safeParse(raw).error as z.ZodError, schema, raw);
    assert.deepEqual(issues, [
      { field: 'a', message: 'must be at most 5 (kg)' },
      { field: 'b', message: 'must be at most 5 (cm)' },
      { field: 'c.1', message: 'must be a whole number (days)' },
    ]);
  });

  it('says "is required" for a missing nested field', () => {
    const schema = z.object({ outer: z.object({ inner: z.string() }) });
    const raw = { outer: {} };
    assert.deepEqual(toFieldIssues(schema.safeParse(raw).error as z.ZodError, schema, raw), [{ field: 'outer.inner', message: 'is required' }]);
  });
});

describe('result file names', () => {
  it('keeps at most 80 characters of the stem, the extension, and safe characters only', () => {
    assert.equal(outputName(`${'a'.repeat(200)}.txt`, 'md'), `${'a'.repeat(80)}.md`);
    assert.equal(outputName('../../etc/pass<wd>.txt', 'pdf'), 'pass_wd_.pdf');
    assert.equal(outputName('.....txt', 'md'), 'document.md');
  });

  it('bounds the percent-encoded name, without cutting a character in half', () => {
    const name = outputName(`${'𠀀'.repeat(200)}.txt`, 'docx');
    assert.ok(encodeURIComponent(name).length <= 400, name);
    assert.match(name, /^(𠀀)+\.docx$/u);
  });
});
