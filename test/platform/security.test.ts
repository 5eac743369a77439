import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { AnyTool } from '../../src/core/define-tool.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen, upload } from '../support/http.ts';
import { typedSampleOf } from '../support/typed-samples.ts';

/**
 * The shared security suite: every tool route, whatever its family, answers the same way to a
 * caller who should not get through. No route can forget authentication, scopes or limits.
 */
describe('security suite, run against every tool route', () => {
  let t: TestApp;
  const keys: Record<string, string> = {};

  before(async () => {
    t = await startTestApp();
    const { accounts } = t.services;
    const revoked = await t.account();
    await accounts.revokeKey(revoked.keyId);
    keys['revoked'] = revoked.apiKey;
    keys['unverified'] = (await t.account({ verified: false })).apiKey;
    // On a plan with every family (the free plan has no ai-models), so the scope, quota and rate
    // limit are what refuse, not the plan.
    const scoped = await t.account({ plan: 'business' });
    keys['scoped'] = (await accounts.createKey({ accountId: scoped.accountId, tools: [] })).secret;
    keys['exhausted'] = (await t.account({ plan: 'business', quota: 0 })).apiKey;
    keys['limited'] = (await t.account({ plan: 'business', rateLimit: 0 })).apiKey;
  });
  after(() => t.close());

  /** A response as the checks need it, from inject (JSON tools) or real HTTP (file uploads). */
  interface Answer {
    statusCode: number;
    headers: Record<string, string | string[] | number | undefined>;
    body: string;
    json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  async function send(tool: AnyTool, apiKey: string | undefined): Promise<Answer | LightMyRequestResponse> {
    if (tool.upload) {
      // A valid upload in the tool's own field, with its first example's options (rotate needs an angle), so that only the caller's standing decides the answer.
      const res = await upload(await listen(t), tool.path, apiKey, { field: tool.upload.field, ...(await typedSampleOf(tool.upload.accept[0]!)) }, (tool.fileExamples?.[0]?.input ?? {}) as Record<string, string>);
      const body = await res.text();
      return { statusCode: res.status, headers: Object.fromEntries(res.headers), body, json: () => JSON.parse(body) };
    }
    // A valid input (a URL tool's example names a page), so that only the caller's standing decides the answer.
    const input = (tool.examples[0]?.input ?? tool.urlExamples?.[0]?.input ?? {}) as Record<string, unknown>;
    const headers: Record<string, string> = apiKey === undefined ? {} : { 'x-api-key': apiKey };
    if (tool.method === 'GET') return t.app.inject({ method: 'GET', url: tool.path, query: input as Record<string, string>, headers });
    return t.call(tool.path, input, apiKey);
  }

  function expectError(res: Answer | LightMyRequestResponse, status: number, error: string, tool?: AnyTool): void {
    assert.equal(res.statusCode, status, res.body);
    const body = res.json();
    if (tool?.errorBody === 'status-message') {
      // The spec's shorter body (convertors/to-jpg): the HTTP status and a message, nothing else.
      assert.deepEqual(Object.keys(body).sort(), ['message', 'status'], res.body);
      assert.equal(body.status, status);
      assert.equal(typeof body.message, 'string');
      return;
    }
    assert.equal(body.status, false);
    assert.equal(body.code, status);
    assert.equal(body.error, error);
    assert.equal(typeof body.message, 'string');
    assert.equal(typeof body.detail, 'string');
    if (tool?.errorBody === 'insight') {
      // video-insight's envelope has result and meta on every answer: empty on an error.
      assert.deepEqual([body.result, body.meta, typeof body.retryAfterSeconds], ['', {}, 'number'], 'no result leaks');
      return;
    }
    assert.equal(body.result, undefined, 'no result leaks');
  }

  it('covers every tool in the catalog', () => {
    assert.ok(t.services.catalog.tools.length >= 38);
  });

  const cases: [string, string | undefined, number, string][] = [
    ['no key', undefined, 401, 'missing_api_key'],
    ['a malformed key', 'not-a-key', 401, 'invalid_api_key'],
    ['an unknown key of the right shape', 'uts_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 401, 'invalid_api_key'],
    ['a revoked key', 'revoked', 401, 'api_key_revoked'],
    ['an unverified account', 'unverified', 403, 'email_not_verified'],
    ['a key scoped away from the tool', 'scoped', 403, 'tool_not_allowed'],
    ['an exhausted quota', 'exhausted', 429, 'quota_exhausted'],
    ['the per-minute limit', 'limited', 429, 'rate_limited'],
  ];

  for (const [name, keyName, status, error] of cases) {
    it(`every tool answers ${status} ${error} to ${name}`, async () => {
      for (const tool of t.services.catalog.tools) {
        const apiKey = keyName === undefined ? undefined : (keys[keyName] ?? keyName);
        const res = await send(tool, apiKey);
        expectError(res, status, error, tool);
        if (error === 'rate_limited') assert.ok(Number(res.headers['retry-after']) >= 1, `${tool.operationId} Retry-After`);
        if (error === 'quota_exhausted') assert.equal(res.headers['x-should-retry'], 'false', tool.operationId);
      }
    });
  }

  it('sends the key in the header only: a key in the query string or body is not accepted', async () => {
    const tool = t.services.catalog.get('calculators_emi_calculator')!;
    const { apiKey } = await t.account();
    const viaQuery = await t.app.inject({ method: 'POST', url: `${tool.path}?api_key=${apiKey}`, payload: tool.examples[0]!.input });
    expectError(viaQuery, 401, 'missing_api_key');
    const viaBody = await t.call(tool.path, { ...(tool.examples[0]!.input as object), apiKey }, undefined);
    expectError(viaBody, 401, 'missing_api_key');
  });
});
