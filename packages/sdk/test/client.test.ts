// ToolServiceClient against the real app on loopback: a JSON tool of every JSON family by its
// generated method, a URL tool (GET, its three answer forms) on a loopback site, invoke typed by
// operationId, the response metadata, the Idempotency-Key every POST carries, the environment
// defaults and the browser guard.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolServiceClient, ToolServiceError, OPERATIONS, type Envelope, type RouteAnswer } from '../src/index.ts';
import { startExampleWeb, type ExampleWeb } from '../../../test/analysis/support/example-web.ts';
import { startSdkTestApp, type SdkTestApp } from './support/rest-app.ts';

const page = (body: string): string => `<!doctype html><html lang="en"><head><title>Trail shoes</title></head><body>${body}</body></html>`;

describe('ToolServiceClient over REST', () => {
  let web: ExampleWeb;
  let app: SdkTestApp;
  let apiKey: string;
  let client: ToolServiceClient;

  before(async () => {
    web = await startExampleWeb();
    web.serve({
      'https://example.com/shoes': { body: page('<h1>Shoes</h1><h2>Running</h2><h3>Trail</h3>') },
      'https://example.com/deals': { body: page('<h2>Welcome</h2><h4>Deals</h4>') },
    });
    app = await startSdkTestApp({ fetcher: web.fetcher });
    ({ apiKey } = await app.t.account({ quota: 1000 }));
    client = new ToolServiceClient({ apiKey, baseUrl: app.baseUrl });
  });

  after(async () => {
    await client?.mcp.close();
    await app?.t.close();
    await web?.close();
  });

  it('calls a calculator and answers the envelope with its result typed', async () => {
    const answer = await client.calculators_emi_calculator({ principal: 100000, rate: 10, tenure: 12 });
    assert.equal(answer.status, true);
    assert.equal(answer.code, 200);
    assert.equal(answer.message, 'OK');
    assert.deepEqual(answer.warnings, []);
    const emi: number = answer.result.emi;
    assert.equal(emi, 8791.59);
    assert.equal(answer.result.schedule.length, 12);
  });

  it('calls a tool of each JSON family: unit conversions, text utilities, video tools, security', async () => {
    const mass = await client.unit_conversions_mass_converter({ from: '5 kg', to: 'lb' });
    assert.equal(mass.status, true);
    assert.match(JSON.stringify(mass.result), /11\.02/);

    const text = await client.text_utilities_text_case_converter({ text: 'hello big world', case: 'camel' });
    assert.equal(text.result.text, 'helloBigWorld');

    const rpm = await client.video_tools_video_rpm_calculator({ views: 250000, rpm: 3.5 });
    assert.equal(rpm.result.estimatedEarnings, 875);

    const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: 'user-42', iat: 1700000000 })}.c2lnbmF0dXJl`;
    const jwt = await client.security_apis_jwt_decoder({ token });
    assert.equal(jwt.result.verified, false);
    assert.equal(jwt.result.header['alg'], 'HS256');
    assert.equal(jwt.result.payload['sub'], 'user-42');
  });

  it('calls a URL tool by GET with the url in the query, in its envelope, json and markdown forms', async () => {
    const url = web.rewrite('https://example.com/shoes');
    const envelope = await client.seo_apis_heading_structure_analyzer({ url });
    assert.equal(envelope.status, true);
    assert.equal(envelope.result.url, url);
    assert.equal(envelope.result.report.scores.seo, 100);

    const bare = await client.seo_apis_heading_structure_analyzer({ url: web.rewrite('https://example.com/deals'), format: 'json' });
    assert.ok(bare.report.findings.some((finding) => finding.rule === 'heading-missing-h1'), JSON.stringify(bare.report.findings.map((f) => f.rule)));

    const markdown: string = await client.seo_apis_heading_structure_analyzer({ url: web.rewrite('https://example.com/deals'), format: 'markdown' });
    assert.equal(typeof markdown, 'string');
    assert.match(markdown, /^# /m);
    assert.match(markdown, /h1/i);
  });

  it('calls a URL tool the catalog declares POST (csp-evaluator) with a JSON body', async () => {
    assert.equal(OPERATIONS.security_apis_csp_evaluator.method, 'POST');
    const answer = await client.security_apis_csp_evaluator({ csp: "default-src 'self'; script-src 'unsafe-inline'" });
    assert.equal(answer.status, true);
    assert.ok(answer.result.report.findings.length > 0);
  });

  it('invoke(operationId, body) answers what the method answers', async () => {
    const viaInvoke = await client.invoke('calculators_emi_calculator', { principal: 100000, rate: 10, tenure: 12 });
    const viaMethod = await client.calculators_emi_calculator({ principal: 100000, rate: 10, tenure: 12 });
    assert.deepEqual(viaInvoke, viaMethod);
    const typed: Envelope<{ emi: number }> = viaInvoke;
    assert.equal(typed.result.emi, 8791.59);
    await assert.rejects(client.invoke('no_such_tool' as never, {} as never), (err: unknown) => err instanceof ToolServiceError && err.code === 'unknown_operation');
  });

  it("types the usage and key routes' answers from the service's schema: per-day figures and each key's last use", async () => {
    // A fresh account, so the figures are this test's own calls, counted on two days by the recorder's clock.
    const { apiKey: own } = await app.t.account({ quota: 1000 });
    const mine = new ToolServiceClient({ apiKey: own, baseUrl: app.baseUrl });
    const period = new Date().toISOString().slice(0, 7);
    const at = (stamp: string) => {
      app.t.services.usage.clock = () => new Date(stamp);
    };
    try {
      at(`${period}-01T06:00:00.000Z`);
      await mine.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 6 });
      await assert.rejects(mine.calculators_emi_calculator({ principal: -1, rate: 5, tenure: 6 }), (err: unknown) => err instanceof ToolServiceError && err.status === 400);
      at(`${period}-02T18:45:00.000Z`);
      await mine.calculators_emi_calculator({ principal: 2000, rate: 5, tenure: 6 });
      await mine.calculators_emi_calculator({ principal: 3000, rate: 5, tenure: 6 });
    } finally {
      app.t.services.usage.clock = () => new Date();
    }
    const usage: RouteAnswer<'usage_get'> = await mine.request<RouteAnswer<'usage_get'>>({ method: 'GET', path: '/api/v1/usage' });
    const days: { day: string; calls: number; failures: number; credits: number }[] = usage.result.days;
    assert.deepEqual(days, [
      { day: `${period}-01`, calls: 2, failures: 1, credits: 1 },
      { day: `${period}-02`, calls: 2, failures: 0, credits: 2 },
    ]);
    const keys = await mine.request<RouteAnswer<'api_keys_list'>>({ method: 'GET', path: '/api/v1/api-keys' });
    const lastUsedAt: string | null | undefined = keys.result.keys[0]?.lastUsedAt;
    assert.equal(keys.result.keys.length, 1);
    assert.equal(lastUsedAt, `${period}-02T18:45:00.000Z`);
  });

  it('exposes the response headers as a non-enumerable meta and through withResponse()', async () => {
    // Typed by the service's own schema (RouteAnswer), so a field the service renames fails the type check here.
    const before = await client.request<RouteAnswer<'usage_get'>>({ method: 'GET', path: '/api/v1/usage' });
    const answer = await client.calculators_emi_calculator({ principal: 5000, rate: 8, tenure: 6 });
    const { meta } = answer;
    assert.match(meta.requestId ?? '', /\S+/);
    assert.equal(meta.status, 200);
    assert.equal(meta.attempts, 1);
    assert.equal(meta.replayed, false);
    assert.equal(meta.rateLimit?.limit, 100_000);
    assert.equal(meta.rateLimit?.windowSeconds, 60);
    assert.equal(meta.quota?.limit, 1000);
    assert.equal(typeof meta.creditsRemaining, 'number');
    assert.equal(meta.quota?.remaining, meta.creditsRemaining);
    // The headers and the usage route read the same standing: one credit less than the route's figure just before.
    assert.equal(before.result.quota, meta.quota?.limit);
    assert.equal(meta.creditsRemaining, before.result.remaining - OPERATIONS.calculators_emi_calculator.credits);
    assert.equal(meta.headers.get('x-request-id'), meta.requestId);
    // meta is not part of the answer's own fields
    assert.equal(Object.keys(answer).includes('meta'), false);
    assert.equal(JSON.stringify(answer).includes('"meta"'), false);

    const { data, meta: second } = await client.calculators_emi_calculator({ principal: 5000, rate: 8, tenure: 6 }).withResponse();
    assert.equal(data.result.emi, answer.result.emi);
    assert.equal(second.creditsRemaining, (meta.creditsRemaining ?? 0) - OPERATIONS.calculators_emi_calculator.credits);
    assert.notEqual(second.requestId, meta.requestId);
    assert.ok(before.meta.requestId);
  });

  it('sends every POST with an sdk_ Idempotency-Key (the caller may give its own) and the key header', async () => {
    const seen: Headers[] = [];
    const spy = new ToolServiceClient({
      apiKey,
      baseUrl: app.baseUrl,
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    await spy.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 });
    await spy.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 });
    const [first, second] = seen;
    assert.match(first?.get('idempotency-key') ?? '', /^sdk_[0-9a-f]{32}$/);
    assert.match(second?.get('idempotency-key') ?? '', /^sdk_[0-9a-f]{32}$/);
    assert.notEqual(first?.get('idempotency-key'), second?.get('idempotency-key'));
    assert.equal(first?.get('x-api-key'), apiKey);

    const own = await spy.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 }, { idempotencyKey: 'order-17' });
    const replay = await spy.calculators_emi_calculator({ principal: 1000, rate: 5, tenure: 3 }, { idempotencyKey: 'order-17' });
    assert.equal(seen[2]?.get('idempotency-key'), 'order-17');
    assert.equal(own.meta.replayed, false);
    assert.equal(replay.meta.replayed, true);
    assert.deepEqual(replay, own);
    await spy.mcp.close();
  });

  it('reads apiKey and baseUrl from TOOL_SERVICE_API_KEY and TOOL_SERVICE_BASE_URL, and refuses to start without a key', async () => {
    const saved = { key: process.env['TOOL_SERVICE_API_KEY'], base: process.env['TOOL_SERVICE_BASE_URL'] };
    try {
      process.env['TOOL_SERVICE_API_KEY'] = apiKey;
      process.env['TOOL_SERVICE_BASE_URL'] = app.baseUrl;
      const fromEnv = new ToolServiceClient();
      assert.equal(fromEnv.baseUrl, app.baseUrl);
      const answer = await fromEnv.text_utilities_text_case_converter({ text: 'from env', case: 'upper' });
      assert.equal(answer.result.text, 'FROM ENV');
      delete process.env['TOOL_SERVICE_API_KEY'];
      assert.throws(() => new ToolServiceClient(), (err: unknown) => err instanceof ToolServiceError && err.code === 'missing_api_key');
      delete process.env['TOOL_SERVICE_BASE_URL'];
      assert.equal(new ToolServiceClient({ apiKey: 'k' }).baseUrl, 'http://localhost:8080');
    } finally {
      restoreEnv('TOOL_SERVICE_API_KEY', saved.key);
      restoreEnv('TOOL_SERVICE_BASE_URL', saved.base);
    }
  });

  it('refuses to start in a browser unless dangerouslyAllowBrowser is set', () => {
    const scope = globalThis as { window?: unknown; document?: unknown };
    scope.window = {};
    scope.document = {};
    try {
      assert.throws(
        () => new ToolServiceClient({ apiKey, baseUrl: app.baseUrl }),
        (err: unknown) => err instanceof ToolServiceError && err.code === 'browser_not_allowed' && /browser/.test(err.message),
      );
      const allowed = new ToolServiceClient({ apiKey, baseUrl: app.baseUrl, dangerouslyAllowBrowser: true });
      assert.equal(allowed.baseUrl, app.baseUrl);
    } finally {
      delete scope.window;
      delete scope.document;
    }
  });
});

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
