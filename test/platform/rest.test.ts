import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { json, listen, upload } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('REST behaviour', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await startTestApp();
    ({ apiKey } = await t.account({ quota: 10_000 }));
  });
  after(() => t.close());

  it('answers the success envelope, with fields at the top level', async () => {
    const res = await t.call('/api/v1/calculators/simple-interest-calculator', { principal: 1000, rate: 5, timeYears: 2 }, apiKey);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'result', 'status', 'warnings']);
    assert.equal(body.status, true);
    assert.equal(body.code, 200);
    assert.equal(body.result.interest, 100);
    assert.equal(body.result.totalAmount, 1100);
  });

  it('accepts the same fields nested under inputs', async () => {
    const res = await t.call('/api/v1/calculators/simple-interest-calculator', { inputs: { principal: 1000, rate: 5, timeYears: 2 } }, apiKey);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().result.interest, 100);
  });

  it('answers 400 naming each bad field, with the allowed values of an enum', async () => {
    const res = await t.call('/api/v1/text-utilities/text-case-converter', { text: 42, case: 'shouting' }, apiKey);
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.status, false);
    assert.equal(body.code, 400);
    assert.equal(body.error, 'validation_error');
    const fields = body.issues.map((i: { field: string }) => i.field).sort();
    assert.deepEqual(fields, ['case', 'text']);
    const caseIssue = body.issues.find((i: { field: string }) => i.field === 'case');
    for (const value of ['upper', 'lower', 'title', 'sentence', 'camel', 'pascal', 'snake', 'kebab', 'constant', 'dot', 'alternating', 'inverse']) {
      assert.ok(caseIssue.allowed.includes(value), value);
    }
    assert.match(body.detail, /case: must be one of: /);
  });

  it('lists the units when a unit is unknown', async () => {
    const res = await t.call('/api/v1/unit-conversions/mass-converter', { value: 5, from: 'parsec', to: 'kg' }, apiKey);
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.error, 'validation_error');
    assert.equal(body.issues[0].field, 'from');
    assert.ok(body.issues[0].allowed.includes('kg'));
    assert.ok(body.issues[0].allowed.includes('lb'));
  });

  it('answers an unknown path with 404 JSON', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/no-such-family' });
    assert.equal(res.statusCode, 404);
    assert.match(res.headers['content-type'] as string, /application\/json/);
    assert.equal(res.json().error, 'not_found');
    // A tool path that names no tool: unknown_tool, with the near tools (unknown-tool-route.test.ts).
    const tool = await t.app.inject({ method: 'GET', url: '/api/v1/calculators/no-such-tool' });
    assert.equal(tool.statusCode, 404);
    assert.equal(tool.json().error, 'unknown_tool');
  });

  it('answers a wrong method with 405 JSON and Allow', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/calculators/emi-calculator' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers['allow'], 'POST');
    assert.equal(res.json().error, 'method_not_allowed');
  });

  it('answers an oversized body with 413 JSON', async () => {
    const res = await t.call('/api/v1/text-utilities/text-case-converter', { text: 'a'.repeat(t.config.bodyLimitBytes + 10), case: 'upper' }, apiKey);
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error, 'payload_too_large');
  });

  it('answers malformed JSON with 400 JSON', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/calculators/emi-calculator', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, payload: '{"principal": 1,' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_json');
  });

  it('answers a non-object body with 400 JSON', async () => {
    const res = await t.call('/api/v1/calculators/emi-calculator', [1, 2, 3], apiKey);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_body');
  });

  it('answers an unsupported content type with 415 JSON', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/calculators/emi-calculator', headers: { 'content-type': 'text/csv', 'x-api-key': apiKey }, payload: 'a,b' });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().error, 'unsupported_media_type');
  });

  it('answers a multipart body sent to a JSON tool with 415 JSON', async () => {
    const boundary = 'x-boundary';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="principal"\r\n\r\n1000\r\n--${boundary}--\r\n`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calculators/emi-calculator',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-api-key': apiKey },
      payload,
    });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().error, 'unsupported_media_type');
  });

  it('puts X-Request-Id on every response, keeping a sane caller-given id', async () => {
    for (const res of [
      await t.app.inject({ method: 'GET', url: '/healthz' }),
      await t.app.inject({ method: 'GET', url: '/nope' }),
      await t.call('/api/v1/calculators/emi-calculator', {}, apiKey),
    ]) {
      assert.match(res.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
    }
    const mine = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-123' } });
    assert.equal(mine.headers['x-request-id'], 'trace-123');
    const evil = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\u0000<script>' } });
    assert.notEqual(evil.headers['x-request-id'], 'bad id\u0000<script>');
  });

  it('never answers HTML or a stack trace on errors', async () => {
    const responses = [
      await t.app.inject({ method: 'DELETE', url: '/api/v1/tools' }),
      await t.app.inject({ method: 'POST', url: '/api/v1/calculators/emi-calculator', headers: { 'content-type': 'application/json' }, payload: '' }),
      await t.app.inject({ method: 'GET', url: '/%E0%A4%A' }),
    ];
    for (const res of responses) {
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, String(res.statusCode));
      assert.match(res.headers['content-type'] as string, /application\/json/);
      assert.doesNotMatch(res.body, /<html|at .*\.ts:\d+/i);
    }
  });

  it('lists the catalog at /api/v1/tools', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/tools' });
    const { result } = res.json();
    assert.equal(result.count, t.services.catalog.tools.length);
    const emi = result.tools.find((tool: { operationId: string }) => tool.operationId === 'calculators_emi_calculator');
    assert.deepEqual(
      { family: emi.family, path: emi.path, method: emi.method, credits: emi.credits },
      { family: 'calculators', path: '/api/v1/calculators/emi-calculator', method: 'POST', credits: 1 },
    );
    assert.ok(emi.summary.length > 0);
  });

  it('serves a generated OpenAPI 3.1 document with security, enums, examples and errors', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.components.securitySchemes.ApiKeyAuth, { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: doc.components.securitySchemes.ApiKeyAuth.description });
    for (const tool of t.services.catalog.tools) {
      const op = doc.paths[tool.path]?.[tool.method.toLowerCase()];
      assert.ok(op, `${tool.path} documented`);
      assert.equal(op.operationId, tool.operationId);
      assert.deepEqual(op.security, [{ ApiKeyAuth: [] }]);
      for (const status of ['200', '400', '401', '403', '429']) assert.ok(op.responses[status], `${tool.operationId} documents ${status}`);
    }
    const caseOp = doc.paths['/api/v1/text-utilities/text-case-converter'].post;
    const schema = caseOp.requestBody.content['application/json'].schema.oneOf[0];
    assert.ok(schema.properties.case.enum.includes('alternating'));
    assert.ok(Object.keys(caseOp.requestBody.content['application/json'].examples).length >= 1);
    const emiOp = doc.paths['/api/v1/calculators/emi-calculator'].post;
    assert.equal(emiOp.responses['200'].content['application/json'].examples.example1.value.result.emi, 5075.12);
    assert.ok(doc.paths['/api/v1/api-keys'].post);
    assert.ok(doc.paths['/api/v1/usage'].get);
  });

  it('serves the interactive docs page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/html/);
    assert.match(res.body, /swagger-ui/i);
    const spec = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(spec.json().openapi, '3.1.0');
  });

  it('reports health, readiness and Prometheus metrics', async () => {
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    const ready = (await t.app.inject({ method: 'GET', url: '/readyz' })).json();
    assert.equal(ready.status, 'ready');
    assert.equal(ready.checks.database.state, 'ready');
    assert.deepEqual(ready.fetcher, { name: 'fetcher', version: null, state: 'ready', workers: 0, queued: 0, running: 0, concurrency: 16 });
    const scrape = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const value = (text: string, series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? 0 : Number(line.slice(series.length + 1));
    };
    const route = 'route="/api/v1/calculators/sip-calculator"';
    const before = await scrape();
    for (let i = 0; i < 3; i++) await t.call('/api/v1/calculators/sip-calculator', { monthlyInvestment: 1000, annualReturnRate: 12, years: 1 }, apiKey);
    const bad = await t.call('/api/v1/calculators/sip-calculator', { monthlyInvestment: 'x' }, apiKey);
    assert.equal(bad.statusCode, 400);
    const metrics = await scrape();
    assert.match(metrics, /^process_cpu_user_seconds_total \d/m, "prom-client's default process metrics");
    assert.equal(value(metrics, `http_requests_total{method="POST",${route},status="200"}`) - value(before, `http_requests_total{method="POST",${route},status="200"}`), 3);
    assert.equal(value(metrics, `http_requests_total{method="POST",${route},status="400"}`) - value(before, `http_requests_total{method="POST",${route},status="400"}`), 1);
    const count = value(metrics, `http_request_duration_seconds_count{method="POST",${route}}`);
    assert.equal(count - value(before, `http_request_duration_seconds_count{method="POST",${route}}`), 4);
    assert.equal(value(metrics, `http_request_duration_seconds_bucket{le="+Inf",method="POST",${route}}`), count, '+Inf holds every observation');
    assert.ok(value(metrics, `http_request_duration_seconds_bucket{le="0.005",method="POST",${route}}`) <= count);
    assert.ok(value(metrics, `http_request_duration_seconds_sum{method="POST",${route}}`) > 0);
    // Three successful calls at 1 credit each; the 400 is not charged.
    assert.equal(value(metrics, 'credits_charged_total{operation_id="calculators_sip_calculator"}') - value(before, 'credits_charged_total{operation_id="calculators_sip_calculator"}'), 3);
  });
});

/** One raw HTTP/1.1 exchange on a fresh socket: the bytes go out as written, the answer is read to the end. */
function rawExchange(port: number, request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

/** A GET through node's HTTP client on its own connection (the server closes it after a parser error). */
function httpGet(port: number, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function assertEnvelope(res: { status: number; headers: Record<string, unknown>; body: string }, status: number, error: string): Record<string, unknown> {
  assert.equal(res.status, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const requestId = String(res.headers['x-request-id']);
  assert.match(requestId, /^[0-9a-f-]{36}$/);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  assert.equal(body['status'], false);
  assert.equal(body['code'], status);
  assert.equal(body['error'], error);
  assert.equal(body['requestId'], requestId);
  assert.equal(typeof body['message'], 'string');
  assert.equal(typeof body['detail'], 'string');
  return body;
}

describe('every response is the JSON envelope with X-Request-Id, on a real listening server', () => {
  let t: TestApp;
  let apiKey: string;
  let base: string;
  let port: number;
  before(async () => {
    t = await startTestApp();
    ({ apiKey } = await t.account({ quota: 10_000 }));
    base = await listen(t);
    port = Number(new URL(base).port);
  });
  after(() => t.close());

  it('answers a query string over the header limit with 431 JSON', async () => {
    const res = await httpGet(port, `/api/v1/tools?q=${'a'.repeat(17_000)}`);
    const body = assertEnvelope(res, 431, 'headers_too_large');
    assert.match(String(body['detail']), /at most 16384 bytes; send long input as JSON in a POST body/);
  });

  it('answers a request the HTTP parser refuses with 400 JSON', async () => {
    const res = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n');
    const body = assertEnvelope(res, 400, 'malformed_request');
    assert.match(String(body['detail']), /HPE_INVALID_HEADER_TOKEN/);
  });

  it('answers a malformed percent-encoding in the path with 400 JSON', async () => {
    const res = await httpGet(port, '/api/v1/%ZZ');
    const body = assertEnvelope(res, 400, 'invalid_url');
    assert.equal(body['message'], 'The URL path is not valid percent-encoding');
    assert.match(String(body['detail']), /^\/api\/v1\/%ZZ holds a %/);
  });

  it('answers a path segment over the router limit with 414 JSON', async () => {
    const res = await httpGet(port, `/files/${'a'.repeat(1100)}/x.md`);
    const body = assertEnvelope(res, 414, 'uri_too_long');
    assert.match(String(body['detail']), /at most 1024 characters/);
  });

  it('keeps a caller-given X-Request-Id on router failures too', async () => {
    const res = await rawExchange(port, 'GET /api/v1/%ZZ HTTP/1.1\r\nHost: x\r\nX-Request-Id: trace-router-1\r\nConnection: close\r\n\r\n');
    assert.equal(res.status, 400);
    assert.equal(res.headers['x-request-id'], 'trace-router-1');
    assert.equal(JSON.parse(res.body).requestId, 'trace-router-1');
  });

  it('issues links that work: every link of the root document answers 200', async () => {
    const root = await json(await fetch(`${base}/`));
    for (const key of ['docs', 'openapi', 'tools']) {
      const link = new URL(root[key] as string);
      const res = await fetch(`${base}${link.pathname}${link.search}`);
      assert.equal(res.status, 200, `${key}: ${link.pathname}`);
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    }
  });

  it('converts a file with a 200-character name and its downloadUrl downloads', async () => {
    for (const name of [`${'n'.repeat(200)}.txt`, `${'日本語'.repeat(70)}.txt`, `${'𠀀'.repeat(120)}.txt`]) {
      const res = await upload(base, '/api/v1/documents/txt-to-md', apiKey, { name, content: 'Plain *text* that stays plain' });
      assert.equal(res.status, 200, name);
      const { result } = await json(res);
      const stem = result.fileName.slice(0, -'.md'.length);
      assert.ok([...stem].length <= 80, result.fileName);
      assert.ok(result.fileName.endsWith('.md'));
      assert.ok(name.startsWith(stem.slice(0, 10)), 'the stem keeps the start of the original name');
      const link = new URL(result.downloadUrl);
      const download = await fetch(`${base}${link.pathname}${link.search}`);
      assert.equal(download.status, 200, `${result.fileName}: ${await download.clone().text()}`);
      assert.equal(await download.text(), 'Plain \\*text\\* that stays plain\n');
    }
  });
});
