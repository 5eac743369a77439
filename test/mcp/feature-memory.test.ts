// The feature-memory tools through the SDK's own client over Streamable HTTP against the real app:
// recall_context, capture_feature, list_feature_memory, compare_feature_memory, delete_feature and
// the community patterns. Passes are recorded with the services' own recordPass (what verify_task,
// run_playbook and solve_task call on a gate pass). A second account proves that everything but a
// published pattern is private: it cannot read, compare, delete, supersede, publish or unpublish
// another account's records, and each refusal is the same not-found as for an id that never was.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadSigningSecret } from '../../src/files/signed-links.ts';
import { jobReportKey } from '../../src/runs/loop/report-signature.ts';
import { finding, jobReportOf, okStep, passingRule, reportOf } from '../runs/loop/loop-fixtures.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { listen } from '../support/http.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Structured = Record<string, any>;

const TOOLS = [
  'recall_context',
  'capture_feature',
  'list_feature_memory',
  'compare_feature_memory',
  'delete_feature',
  'publish_feature_pattern',
  'unpublish_feature_pattern',
  'list_community_patterns',
];
const MISSING = 'feat_0123456789abcdef0123456789abcdef';

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: Structured; text: string }> {
  const answer = await client.callTool({ name, arguments: args });
  const content = answer.content as { type: string; text: string }[];
  const text = content[0]?.text ?? '';
  // failures come as text only (see feature-tools.ts), successes as structuredContent and its text mirror
  return { isError: answer.isError === true, body: (answer.structuredContent ?? JSON.parse(text)) as Structured, text };
}

describe('MCP feature memory', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  const client = async (apiKey: string) => {
    const c = new Client({ name: 'feature-memory-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    clients.push(c);
    return c;
  };
  let owner: { accountId: string; apiKey: string };
  let a: Client;
  let b: Client;
  const ids: { first: string; second: string; manual: string } = { first: '', second: '', manual: '' };

  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    owner = await t.account();
    a = await client(owner.apiKey);
    b = await client((await t.account()).apiKey);
    const pass = (scores: Record<string, number>, findings: string[], at: string) =>
      t.services.featureMemory.features.recordPass({
        accountId: owner.accountId,
        url: 'https://shop.example.com/checkout',
        playbookId: 'ship-check',
        goal: 'make the checkout ready to ship',
        acceptance: ['tls, security-headers, http-status and mixed-content are each good'],
        report: { scores, statuses: { tls: 'good', 'security-headers': scores['security-headers'] === 100 ? 'good' : 'needs_improvement' }, findings: findings.map((findingId) => ({ findingId })) },
        now: new Date(at),
      });
    const first = await pass({ tls: 100, 'security-headers': 70 }, ['csp:1', 'hsts:2'], '2025-04-01T00:00:00.000Z');
    const second = await pass({ tls: 100, 'security-headers': 100 }, [], '2025-04-02T00:00:00.000Z');
    assert.ok(first.recorded && second.recorded);
    ids.first = first.featureId;
    ids.second = second.featureId;
  });
  after(async () => {
    for (const c of clients) await c.close();
    await t?.close();
  });

  it('lists the eight tools with output schemas and annotations', async () => {
    const { tools } = await a.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of TOOLS) {
      const tool = byName.get(name);
      assert.ok(tool, `${name} is listed`);
      assert.equal(tool.outputSchema?.type, 'object', `${name} has an output schema`);
    }
    assert.deepEqual(byName.get('recall_context')?.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(byName.get('delete_feature')?.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(byName.get('capture_feature')?.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    assert.equal(byName.get('capture_feature')?.inputSchema.properties?.['requirements'] !== undefined, true);
  });

  it('recall_context answers the scope\'s features newest first, the superseded one marked', async () => {
    const { isError, body, text } = await call(a, 'recall_context', { url: 'https://shop.example.com/any/page' });
    assert.equal(isError, false);
    assert.deepEqual(JSON.parse(text), body);
    assert.equal(body['projectScope'], 'https://shop.example.com');
    assert.equal(body['total'], 2);
    assert.deepEqual(
      body['features'].map((f: Structured) => [f['featureId'], f['superseded'], f['supersededBy'], f['supersedesFeatureId'], f['source'], f['gate']]),
      [
        [ids.second, false, null, ids.first, 'auto', 'pass'],
        [ids.first, true, ids.second, null, 'auto', 'pass'],
      ],
    );
    assert.deepEqual(body['scopes'], [{ projectScope: 'https://shop.example.com', features: 2, latestAt: '2025-04-02T00:00:00.000Z' }]);
    assert.equal(body['hint'], '2 feature(s) stored; 1 of those shown are current (not superseded). Reuse their requirements and acceptance; capture_feature with supersedesFeatureId refines one.');

    const none = await call(a, 'recall_context', { projectScope: 'elsewhere' });
    assert.deepEqual([none.body['total'], none.body['features'], none.body['hint']], [0, [], 'Nothing is stored for elsewhere. Check scopes for another name of the project, or build it and let verify_task record the pass.']);
  });

  it('capture_feature refines a record by hand; list_feature_memory pages; compare_feature_memory says what improved', async () => {
    const captured = await call(a, 'capture_feature', {
      title: 'Checkout ship-ready',
      requirements: ['HSTS with a year max-age', 'A CSP without unsafe-inline'],
      supersedesFeatureId: ids.second,
    });
    assert.equal(captured.isError, false);
    const feature = captured.body['feature'];
    ids.manual = feature['featureId'];
    assert.deepEqual({ ...feature, featureId: 'x', createdAt: 'x' }, {
      featureId: 'x',
      projectScope: 'https://shop.example.com',
      title: 'Checkout ship-ready',
      requirements: ['HSTS with a year max-age', 'A CSP without unsafe-inline'],
      acceptance: ['tls, security-headers, http-status and mixed-content are each good'],
      source: 'manual',
      playbookId: 'ship-check',
      goal: 'make the checkout ready to ship',
      gate: 'pass',
      scores: { tls: 100, 'security-headers': 100 },
      statuses: { tls: 'good', 'security-headers': 'good' },
      remainingFindingIds: [],
      supersedesFeatureId: ids.second,
      superseded: false,
      supersededBy: null,
      createdAt: 'x',
    });

    const page1 = await call(a, 'list_feature_memory', { limit: 2 });
    assert.deepEqual([page1.body['total'], page1.body['offset'], page1.body['nextOffset']], [3, 0, 2]);
    assert.deepEqual(page1.body['features'].map((f: Structured) => f['featureId']), [ids.manual, ids.second]);
    assert.equal(page1.body['features'][1]['supersededBy'], ids.manual);
    const page2 = await call(a, 'list_feature_memory', { offset: 2, limit: 2, projectScope: 'https://shop.example.com' });
    assert.deepEqual([page2.body['features'].map((f: Structured) => f['featureId']), page2.body['nextOffset']], [[ids.first], null]);

    const compared = await call(a, 'compare_feature_memory', { fromFeatureId: ids.first, toFeatureId: ids.second });
    assert.equal(compared.isError, false);
    assert.deepEqual(compared.body['scoreDeltas'], { 'security-headers': 30, tls: 0 });
    assert.deepEqual(compared.body['statusChanges'], [{ key: 'security-headers', from: 'needs_improvement', to: 'good' }]);
    assert.deepEqual(compared.body['findings'], { resolved: ['csp:1', 'hsts:2'], new: [], remaining: [] });
    assert.deepEqual(compared.body['improvements'], ['security-headers score 70 -> 100', 'security-headers status needs_improvement -> good', 'finding csp:1 resolved', 'finding hsts:2 resolved']);
    assert.deepEqual([compared.body['regressions'], compared.body['improved'], compared.body['gate']], [[], true, { from: 'pass', to: 'pass' }]);
    const backwards = await call(a, 'compare_feature_memory', { fromFeatureId: ids.second, toFeatureId: ids.first });
    assert.equal(backwards.body['improved'], false);
  });

  it('another account can read, compare, delete, supersede or publish none of it: the same not-found as an id that never was', async () => {
    const missing = await call(b, 'compare_feature_memory', { fromFeatureId: MISSING, toFeatureId: MISSING });
    const expected = (featureId: string) => ({
      status: 'error',
      error: 'feature_not_found',
      message: `No feature ${featureId} in this account`,
      featureId,
      detail: 'Use a featureId that list_feature_memory or recall_context answered to this account',
    });
    assert.deepEqual([missing.isError, missing.body], [true, expected(MISSING)]);

    const recall = await call(b, 'recall_context', { url: 'https://shop.example.com/' });
    assert.deepEqual([recall.body['total'], recall.body['features'], recall.body['scopes']], [0, [], []]);
    assert.deepEqual((await call(b, 'list_feature_memory', {})).body, { features: [], total: 0, offset: 0, nextOffset: null });
    for (const [name, args] of [
      ['compare_feature_memory', { fromFeatureId: ids.first, toFeatureId: ids.second }],
      ['delete_feature', { featureId: ids.first }],
      ['publish_feature_pattern', { featureId: ids.first }],
      ['capture_feature', { title: 't', requirements: ['r'], supersedesFeatureId: ids.first }],
    ] as const) {
      const answer = await call(b, name, args);
      assert.deepEqual([answer.isError, answer.body], [true, expected(ids.first)], name);
    }
    // and it all still stands for its owner
    assert.equal((await call(a, 'list_feature_memory', {})).body['total'], 3);
  });

  it('publishes a redacted pattern every account lists without its publisher; only the publisher unpublishes it', async () => {
    const captured = await call(a, 'capture_feature', {
      title: 'Login hardening for shop.example.com',
      requirements: ['Rate-limit POST https://shop.example.com/login to 5 a minute', 'Lock out after 10 failures; mail security@shop.example.com'],
      acceptance: ['A request with api_key=Zq81xx99LongSecret gets 401'],
      projectScope: 'https://shop.example.com',
    });
    const featureId = captured.body['feature']['featureId'];
    const published = await call(a, 'publish_feature_pattern', { featureId });
    assert.equal(published.isError, false);
    const pattern = published.body['pattern'];
    assert.deepEqual(published.body, {
      pattern: {
        patternId: pattern['patternId'],
        title: 'Login hardening for [host]',
        requirements: ['Rate-limit POST [url] to 5 a minute', 'Lock out after 10 failures; mail [email]'],
        acceptance: ['A request with api_key=[key] gets 401'],
        publishedAt: pattern['publishedAt'],
        mine: true,
      },
      redactions: 4,
      alreadyPublished: false,
    });

    const listed = await call(b, 'list_community_patterns', { query: 'rate-limit' });
    assert.deepEqual(listed.body, { patterns: [{ ...pattern, mine: false }], total: 1, offset: 0, nextOffset: null });
    assert.deepEqual(Object.keys(listed.body['patterns'][0]).sort(), ['acceptance', 'mine', 'patternId', 'publishedAt', 'requirements', 'title']);
    assert.equal(listed.text.includes(owner.accountId), false);
    assert.equal(listed.text.includes('shop.example.com'), false);

    const refused = await call(b, 'unpublish_feature_pattern', { patternId: pattern['patternId'] });
    assert.deepEqual([refused.isError, refused.body['error'], refused.body['message']], [true, 'pattern_not_found', `No pattern ${pattern['patternId']} published by this account`]);
    assert.equal((await call(b, 'list_community_patterns', { query: 'rate-limit' })).body['total'], 1);

    const withdrawn = await call(a, 'unpublish_feature_pattern', { patternId: pattern['patternId'] });
    assert.deepEqual([withdrawn.isError, withdrawn.body], [false, { patternId: pattern['patternId'], unpublished: true }]);
    assert.equal((await call(b, 'list_community_patterns', { query: 'rate-limit' })).body['total'], 0);
    assert.equal((await call(a, 'unpublish_feature_pattern', { patternId: pattern['patternId'] })).body['error'], 'pattern_not_found');
  });

  it('delete_feature removes the record and its published pattern; the records that superseded it stay', async () => {
    const published = await call(a, 'publish_feature_pattern', { featureId: ids.second });
    const patternId = published.body['pattern']['patternId'];
    const deleted = await call(a, 'delete_feature', { featureId: ids.second });
    assert.deepEqual([deleted.isError, deleted.body], [false, { featureId: ids.second, deleted: true, unpublishedPatternId: patternId }]);
    assert.equal((await call(a, 'delete_feature', { featureId: ids.second })).body['error'], 'feature_not_found');
    assert.equal((await call(b, 'list_community_patterns', { query: 'ship' })).body['patterns'].some((p: Structured) => p['patternId'] === patternId), false);
    const recall = await call(a, 'recall_context', { projectScope: 'https://shop.example.com' });
    const manual = recall.body['features'].find((f: Structured) => f['featureId'] === ids.manual);
    assert.deepEqual([manual['supersedesFeatureId'], manual['superseded']], [null, false]);
  });

  it('answers bad input with isError: too many requirements, a baseline with no jobReport', async () => {
    const tooMany = await a.callTool({ name: 'capture_feature', arguments: { title: 't', requirements: Array.from({ length: 51 }, (_, i) => `r${i}`) } });
    assert.equal(tooMany.isError, true);
    assert.match((tooMany.content as { text: string }[])[0]?.text ?? '', /Input validation error: .*requirements/s);
    const badBaseline = await a.callTool({ name: 'capture_feature', arguments: { title: 't', requirements: ['r'], baseline: { hello: 'world' } } });
    assert.equal(badBaseline.isError, true);
    assert.equal(badBaseline.structuredContent, undefined);
    const body = JSON.parse((badBaseline.content as { text: string }[])[0]?.text ?? '') as Structured;
    assert.deepEqual([body['status'], body['error']], ['error', 'invalid_baseline']);
    assert.match(body['message'], /pass the whole result of solve_task, run_playbook or verify_task as you received it/);
  });

  it('capture_feature takes a baseline only as a jobReport sealed for the caller\'s account, and judges its gate from the report', async () => {
    const secret = loadSigningSecret(t.config.dataDir, t.config.fileSigningSecret);
    const report = jobReportOf(
      'seo-audit',
      [okStep('meta', 'seo_apis_meta_tags_analyzer', reportOf(['seo'], [finding('meta-description', 'seo', 'low')], { passing: [passingRule('title', 'seo', 5)] }))],
      { key: jobReportKey(secret, owner.accountId) },
    );
    // a solve result whose unsealed loop claims fail: the gate is judged from the sealed report (pass)
    const captured = await call(a, 'capture_feature', { title: 'SEO basics', requirements: ['A meta description'], baseline: { status: 'fail', jobReport: report, loop: { gate: 'fail' } }, projectScope: 'seo-site' });
    assert.equal(captured.isError, false);
    const feature = captured.body['feature'];
    assert.deepEqual(
      [feature['gate'], feature['playbookId'], feature['scores'], feature['statuses'], feature['remainingFindingIds'], feature['projectScope']],
      ['pass', 'seo-audit', { seo: 83, overall: 83 }, { seo: 'needs_improvement', accessibility: 'unknown', 'best-practices': 'unknown', overall: 'needs_improvement' }, [report.findings[0]?.findingId], 'seo-site'],
    );

    const foreign = await call(b, 'capture_feature', { title: 'stolen', requirements: ['r'], baseline: { jobReport: report } });
    assert.deepEqual([foreign.isError, foreign.body['error']], [true, 'invalid_baseline']);
    const forged = await call(a, 'capture_feature', { title: 'forged', requirements: ['r'], baseline: { ...report, scores: { seo: 100, overall: 100 } } });
    assert.deepEqual([forged.isError, forged.body['error']], [true, 'invalid_baseline']);
    assert.equal((await call(b, 'list_feature_memory', {})).body['total'], 0);
  });
});
