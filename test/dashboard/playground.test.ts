// The Playground over real HTTP with a session cookie, as a browser sends it: the picker searched
// as discover_tools searches, the forms generated from the input schemas (a JSON tool, a file
// tool), a JSON tool run charged exactly as the same call over REST (and its curl snippet's body
// giving the same result over REST), the API's refusals on the page (validation, another account's
// key, a revoked key, a key scoped to another tool), a file conversion whose signed link downloads,
// and the multipart form's CSRF token.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolServiceClient } from '../../packages/sdk/src/index.ts';
import { searchTools } from '../../src/mcp/tool-search.ts';
import { json, listen, upload as restUpload } from '../support/http.ts';
import { startTestApp } from '../support/test-app.ts';
import { dashboardApp, getPage, postFields, signedInWithToken } from './support/dashboard-client.ts';

const EMI = 'calculators_emi_calculator';
const CSV = 'web_json_to_csv';
const ORDERS = '[{"id":1,"item":"Tea"},{"id":2,"item":"Milk"}]';

interface Session {
  cookie: string;
  token: string;
  accountId: string;
  apiKey: string;
  keyId: string;
}

const unescape = (text: string): string =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** The text of the element with this id (a <code> in a <pre>), unescaped. */
function codeOf(page: string, id: string): string {
  const match = new RegExp(`<code id="${id}">([\\s\\S]*?)</code>`).exec(page);
  assert.ok(match, `the page has #${id}:\n${page}`);
  return unescape(match[1]!);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const envelopeOf = (page: string): any => JSON.parse(codeOf(page, 'envelope'));

describe('dashboard Playground', () => {
  const app = dashboardApp();

  const session = (): Promise<Session> => signedInWithToken(app, 'playground', '/dashboard/playground');

  function run(s: Session, operationId: string, entries: [string, string][], keyId = s.keyId): Promise<Response> {
    return postFields(app.base, `/dashboard/playground/${operationId}`, [['_csrf', s.token], ['keyId', keyId], ...entries], s.cookie);
  }

  /** A multipart post as the browser sends the file form: its fields in order, the file where it is placed. */
  function upload(s: Session, operationId: string, parts: ([string, string] | ['file', { name: string; content: string }])[]): Promise<Response> {
    const form = new FormData();
    for (const [name, value] of parts) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([value.content], { type: 'application/json' }), value.name);
    }
    return fetch(`${app.base}/dashboard/playground/${operationId}/upload`, { method: 'POST', redirect: 'manual', headers: { accept: 'text/html', origin: app.base, cookie: s.cookie }, body: form });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function usage(apiKey: string): Promise<any> {
    const res = await fetch(`${app.base}/api/v1/usage`, { headers: { 'x-api-key': apiKey } });
    assert.equal(res.status, 200);
    return (await json(res)).result;
  }

  it('needs a session', async () => {
    const res = await getPage(app.base, '/dashboard/playground');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/dashboard/sign-in');
  });

  it('lists the tools the catalog search finds, in its order, and marks Playground current', async () => {
    const s = await session();
    const res = await getPage(app.base, '/dashboard/playground?q=loan%20emi', s.cookie);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /<a href="\/dashboard\/playground" aria-current="page">Playground<\/a>/);
    const expected = searchTools(app.t.services.catalog.tools, { query: 'loan emi', pageSize: 25 });
    const listed = [...page.matchAll(/<li><a href="\/dashboard\/playground\/([a-z0-9_]+)">/g)].map((m) => m[1]);
    assert.deepEqual(listed, expected.tools.map((tool) => tool.operationId));
    assert.equal(listed[0], EMI);
    assert.match(page, new RegExp(`${expected.total} tools? match “loan emi”`));
    // Found by a word of its description only ("formulas" is in neither title nor name).
    const byDescription = await (await getPage(app.base, '/dashboard/playground?q=formulas', s.cookie)).text();
    assert.match(byDescription, /href="\/dashboard\/playground\/web_json_to_csv"/);
    assert.match(byDescription, /2 tools match “formulas”/);
    const none = await (await getPage(app.base, '/dashboard/playground?q=zzqqxx', s.cookie)).text();
    assert.match(none, /0 tools match “zzqqxx”/);
    // No query: the whole catalog, a page at a time.
    const all = await (await getPage(app.base, '/dashboard/playground', s.cookie)).text();
    assert.match(all, new RegExp(`${app.t.services.catalog.tools.length} tools in the catalog`));
    assert.match(all, /href="\/dashboard\/playground\?page=2">Next page<\/a>/);
  });

  it('generates a JSON tool’s form from its input schema', async () => {
    const s = await session();
    const page = await (await getPage(app.base, `/dashboard/playground/${EMI}`, s.cookie)).text();
    assert.match(page, /<form class="stack wide" method="post" action="\/dashboard\/playground\/calculators_emi_calculator">/);
    assert.match(page, /<label for="field-principal"><code>principal<\/code> <span class="required">\(required\)<\/span><\/label>/);
    assert.match(page, /<input type="number" id="field-principal" name="in.principal" required aria-describedby="field-principal-hint" step="any" max="1000000000000" value="">/);
    assert.match(page, /<input type="number" id="field-tenure" name="in.tenure" required aria-describedby="field-tenure-hint" step="1" min="1" max="600" value="">/);
    assert.match(page, /<p id="field-tenure-hint" class="muted hint">Tenure in months\. Unit: months\.<\/p>/);
    // The key picker: the account's key, by name and prefix; the raw JSON alternative with the example.
    assert.match(page, new RegExp(`<option value="${s.keyId}" selected>`));
    assert.match(page, /<textarea class="field" id="raw" name="raw"[^>]*>\{\n {2}&quot;principal&quot;/);
    // Defaults prefilled; an enum as a select.
    const counter = await (await getPage(app.base, '/dashboard/playground/text_utilities_word_counter', s.cookie)).text();
    assert.match(counter, /name="in.readingWordsPerMinute" aria-describedby="field-readingWordsPerMinute-hint" step="1" min="50" max="1000" value="200">/);
  });

  it('gives a file tool a file input in a multipart form, its options from the schema', async () => {
    const s = await session();
    const page = await (await getPage(app.base, `/dashboard/playground/${CSV}`, s.cookie)).text();
    assert.match(page, /action="\/dashboard\/playground\/web_json_to_csv\/upload" enctype="multipart\/form-data">/);
    assert.match(page, /<input id="field-file" type="file" name="file" required aria-describedby="field-file-hint">/);
    assert.match(page, /<select id="field-delimiter" name="in.delimiter" aria-describedby="field-delimiter-hint">\n<option value="" selected>\(not set: the tool's default\)<\/option>\n<option value="comma">comma<\/option>/);
    // An optional flag without a declared default: not set, true or false (an unticked box would override it).
    assert.match(page, /<select id="field-header" name="in.header"[^>]*>\n<option value="" selected>/);
    // The token and the key come before the file in the form (so in the body).
    assert.ok(page.indexOf('name="_csrf"') < page.indexOf('type="file"') && page.indexOf('name="keyId"') < page.indexOf('type="file"'));
  });

  it('runs a JSON tool as the chosen key, charged exactly as the same call over REST; the curl body gives the same result', async () => {
    const s = await session();
    const credits = app.t.services.catalog.get(EMI)!.credits;
    const before = await usage(s.apiKey);
    const res = await run(s, EMI, [['in.principal', '100000'], ['in.rate', '10'], ['in.tenure', '12'], ['mode', 'fields']]);
    assert.equal(res.status, 200);
    const page = await res.text();
    const envelope = envelopeOf(page);
    assert.equal(envelope.status, true);
    assert.equal(envelope.result.emi, 8791.59);
    assert.match(page, new RegExp(`<dt>Credits charged</dt><dd>${credits}</dd>`));
    const afterPlayground = await usage(s.apiKey);
    assert.equal(afterPlayground.used, before.used + credits);
    assert.deepEqual(afterPlayground.byKey.map((k: { keyId: string; calls: number; credits: number }) => [k.keyId, k.calls, k.credits]), [[s.keyId, 1, credits]]);
    // The fields are kept on the page.
    assert.match(page, /name="in.tenure"[^>]*value="12">/);

    // The curl snippet: the key from the shell, the body the call used; the SDK's the same.
    const curl = codeOf(page, 'curl-snippet');
    assert.match(curl, /^curl -sS -X POST 'http:\/\/localhost:8080\/api\/v1\/calculators\/emi-calculator' \\\n {2}-H "X-Api-Key: \$UTS_API_KEY" \\\n {2}-H 'Content-Type: application\/json' \\\n {2}-d '(.+)'$/);
    const body = /-d '(.+)'$/.exec(curl)![1]!;
    assert.deepEqual(JSON.parse(body), { principal: 100000, rate: 10, tenure: 12 });
    const sdk = codeOf(page, 'sdk-snippet');
    assert.match(sdk, /apiKey: process\.env\.UTS_API_KEY/);
    assert.match(sdk, /const answer = await client\.calculators_emi_calculator\(\{\n {2}"principal": 100000,\n {2}"rate": 10,\n {2}"tenure": 12\n\}\);/);
    assert.doesNotMatch(page, new RegExp(s.apiKey), 'the secret is never on the page');

    const rest = await fetch(`${app.base}/api/v1/calculators/emi-calculator`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': s.apiKey }, body });
    assert.equal(rest.status, 200);
    const restBody = await json(rest);
    assert.deepEqual(restBody.result, envelope.result);
    const afterRest = await usage(s.apiKey);
    assert.equal(afterRest.used - afterPlayground.used, afterPlayground.used - before.used, 'REST charged what the Playground charged');
    assert.equal(afterRest.byKey[0].calls, 2);

    // The SDK snippet's call, made with the SDK itself: the same result.
    const [, method, args] = /client\.(\w+)\((\{[\s\S]*\})\);/.exec(sdk)!;
    const client = new ToolServiceClient({ apiKey: s.apiKey, baseUrl: app.base, maxRetries: 0 });
    const answer = (await (client as unknown as Record<string, (input: unknown) => Promise<{ result: unknown }>>)[method!]!(JSON.parse(args!))).result;
    assert.deepEqual(answer, envelope.result);
  });

  it('runs the raw JSON alternative', async () => {
    const s = await session();
    const res = await run(s, EMI, [['in.principal', ''], ['mode', 'raw'], ['raw', '{"principal": 50000, "rate": 0, "tenure": 10}']]);
    assert.equal(res.status, 200);
    assert.equal(envelopeOf(await res.text()).result.emi, 5000);
  });

  it('shows the API’s validation error next to the form, the fields kept, nothing charged', async () => {
    const s = await session();
    const before = await usage(s.apiKey);
    const res = await run(s, EMI, [['in.principal', '100000'], ['in.rate', '10'], ['in.tenure', '0'], ['mode', 'fields']]);
    assert.equal(res.status, 400);
    const page = await res.text();
    assert.match(page, /<div id="run-error" class="notice error" role="alert">\n<p><strong>400 <code>validation_error<\/code><\/strong>/);
    assert.match(page, /<li><code>tenure<\/code>: /);
    assert.match(page, /name="in.tenure" required aria-describedby="field-tenure-hint" aria-invalid="true" aria-errormessage="run-error" step="1" min="1" max="600" value="0">/);
    assert.match(page, /name="in.principal"[^>]*value="100000">/);
    // The envelope is REST's for the same body.
    const rest = await fetch(`${app.base}/api/v1/calculators/emi-calculator`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': s.apiKey }, body: JSON.stringify({ principal: 100000, rate: 10, tenure: 0 }) });
    const restBody = await json(rest);
    const { requestId: _a, ...shown } = envelopeOf(page);
    const { requestId: _b, ...expected } = restBody;
    assert.deepEqual(shown, expected);
    assert.equal((await usage(s.apiKey)).used, before.used);
    // Raw JSON that is not JSON: refused before any call, the text kept.
    const bad = await run(s, EMI, [['mode', 'raw'], ['raw', '{"principal": ']]);
    assert.equal(bad.status, 400);
    const badPage = await bad.text();
    assert.match(badPage, /<code>invalid_json<\/code>/);
    assert.match(badPage, /aria-invalid="true" aria-errormessage="run-error">\{&quot;principal&quot;: <\/textarea>/);
  });

  it('refuses another account’s key id as not found, and a revoked key as the API does', async () => {
    const s = await session();
    const other = await session();
    const before = await usage(other.apiKey);
    const foreign = await run(s, EMI, [['in.principal', '1000'], ['in.rate', '1'], ['in.tenure', '1']], other.keyId);
    assert.equal(foreign.status, 404);
    assert.match(await foreign.text(), /<code>key_not_found<\/code>/);
    assert.equal((await usage(other.apiKey)).used, before.used);

    const { key } = await app.t.services.accounts.createKey({ accountId: s.accountId, name: 'soon revoked' });
    await app.t.services.accounts.revokeKey(key.id, s.accountId);
    const revoked = await run(s, EMI, [['in.principal', '1000'], ['in.rate', '1'], ['in.tenure', '1']], key.id);
    assert.equal(revoked.status, 401);
    const page = await revoked.text();
    assert.match(page, /<strong>401 <code>api_key_revoked<\/code><\/strong>: The API key has been revoked/);
    // A revoked key is not offered.
    assert.doesNotMatch(page, new RegExp(`<option value="${key.id}"`));

    // No active key at all: no form, a link to create one.
    await app.t.services.accounts.revokeKey(s.keyId, s.accountId);
    const none = await (await getPage(app.base, `/dashboard/playground/${EMI}`, s.cookie)).text();
    assert.match(none, /This account has no active API key\. A call runs as one of your keys: <a href="\/dashboard\/keys#create">create a key<\/a> first\./);
    assert.doesNotMatch(none, /<form class="stack wide"/);
  });

  it('refuses a key scoped to another tool with the API’s 403', async () => {
    const s = await session();
    const { key, secret } = await app.t.services.accounts.createKey({ accountId: s.accountId, name: 'slugs only', tools: ['text_utilities_slugify'] });
    const res = await run(s, EMI, [['in.principal', '1000'], ['in.rate', '1'], ['in.tenure', '1']], key.id);
    assert.equal(res.status, 403);
    const page = await res.text();
    const rest = await json(await fetch(`${app.base}/api/v1/calculators/emi-calculator`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': secret }, body: JSON.stringify({ principal: 1000, rate: 1, tenure: 1 }) }));
    assert.equal(rest.error, 'tool_not_allowed');
    assert.match(page, new RegExp(`<strong>403 <code>tool_not_allowed</code></strong>: ${rest.message}`));
    assert.match(page, new RegExp(`<option value="${key.id}" selected>slugs only`));
    // A file tool too, refused before its upload is read; the upload (300 KB) is drained and the page arrives.
    const big = JSON.stringify(Array.from({ length: 12_000 }, (_, i) => ({ id: i, item: `item ${i}` })));
    const file = await upload(s, CSV, [['_csrf', s.token], ['keyId', key.id], ['in.delimiter', 'tab'], ['file', { name: 'big.json', content: big }]]);
    assert.equal(file.status, 403);
    const filePage = await file.text();
    assert.match(filePage, /<strong>403 <code>tool_not_allowed<\/code><\/strong>/);
    assert.match(filePage, /<option value="tab" selected>tab<\/option>/, 'the options sent before the file are kept');
    const other = await session();
    const foreign = await upload(s, CSV, [['_csrf', s.token], ['keyId', other.keyId], ['file', { name: 'big.json', content: big }]]);
    assert.equal(foreign.status, 404);
    assert.match(await foreign.text(), /<code>key_not_found<\/code>/);
  });

  it('runs a file conversion: the upload through REST’s reader, a signed link that downloads, charged', async () => {
    const s = await session();
    const credits = app.t.services.catalog.get(CSV)!.credits;
    const before = await usage(s.apiKey);
    const res = await upload(s, CSV, [['_csrf', s.token], ['keyId', s.keyId], ['in.delimiter', 'semicolon'], ['in.header', ''], ['file', { name: 'orders.json', content: ORDERS }], ['mode', 'fields'], ['raw', '{}']]);
    const page = await res.text();
    assert.equal(res.status, 200, page);
    const envelope = envelopeOf(page);
    assert.equal(envelope.status, true);
    const link = /<a id="download" href="([^"]+)">Download the result<\/a>/.exec(page)?.[1];
    assert.ok(link);
    assert.equal(unescape(link), envelope.result.downloadUrl);
    const url = new URL(unescape(link));
    const download = await fetch(`${app.base}${url.pathname}${url.search}`);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), 'id;item\r\n1;Tea\r\n2;Milk\r\n');
    assert.equal((await usage(s.apiKey)).used, before.used + credits);
    assert.match(page, new RegExp(`<dt>Credits charged</dt><dd>${credits}</dd>`));
    // The snippets send the same file and option.
    assert.equal(codeOf(page, 'curl-snippet'), `curl -sS -X POST 'http://localhost:8080/api/v1/web/json-to-csv' \\\n  -H "X-Api-Key: $UTS_API_KEY" \\\n  -F 'file=@orders.json' \\\n  --form-string 'delimiter=semicolon'`);
    assert.match(codeOf(page, 'sdk-snippet'), /client\.web_json_to_csv\(\{ file: await readFile\("orders\.json"\), fileName: "orders\.json", "delimiter": "semicolon" \}\)/);
    // The option kept on the form.
    assert.match(page, /<option value="semicolon" selected>semicolon<\/option>/);
  });

  it('shows a file tool’s refusal (a file it cannot read) with the API’s error, charged as REST charges it', async () => {
    const s = await session();
    const before = await usage(s.apiKey);
    const res = await upload(s, CSV, [['_csrf', s.token], ['keyId', s.keyId], ['file', { name: 'notes.json', content: 'not json at all' }], ['mode', 'fields']]);
    const page = await res.text();
    assert.ok(res.status >= 400 && res.status < 500, `${res.status}`);
    const envelope = envelopeOf(page);
    assert.equal(envelope.status, false);
    assert.match(page, new RegExp(`<strong>${res.status} <code>${envelope.error}</code></strong>`));
    const afterPlayground = (await usage(s.apiKey)).used;
    const rest = await restUpload(app.base, '/api/v1/web/json-to-csv', s.apiKey, { name: 'notes.json', content: 'not json at all' });
    const restBody = await json(rest);
    assert.equal(rest.status, res.status);
    assert.equal(restBody.error, envelope.error);
    assert.equal((await usage(s.apiKey)).used - afterPlayground, afterPlayground - before.used, 'REST charged what the Playground charged');
  });

  it('checks the multipart form’s CSRF token before the file is read or anything is charged', async () => {
    const s = await session();
    const before = await usage(s.apiKey);
    const file = ['file', { name: 'orders.json', content: ORDERS }] as ['file', { name: string; content: string }];
    const missing = await upload(s, CSV, [['keyId', s.keyId], file]);
    assert.equal(missing.status, 403);
    assert.match(await missing.text(), /no security token/);
    const wrong = await upload(s, CSV, [['_csrf', 'x'.repeat(43)], ['keyId', s.keyId], file]);
    assert.equal(wrong.status, 403);
    assert.match(await wrong.text(), /does not match your session/);
    // The token after the file: refused, the file unread.
    const late = await upload(s, CSV, [['keyId', s.keyId], file, ['_csrf', s.token]]);
    assert.equal(late.status, 403);
    await late.arrayBuffer();
    // Another site's page: refused by the Origin check first.
    const form = new FormData();
    form.append('_csrf', s.token);
    form.append('keyId', s.keyId);
    form.append('file', new Blob([ORDERS]), 'orders.json');
    const foreign = await fetch(`${app.base}/dashboard/playground/${CSV}/upload`, { method: 'POST', redirect: 'manual', headers: { accept: 'text/html', origin: 'https://evil.example', cookie: s.cookie }, body: form });
    assert.equal(foreign.status, 403);
    await foreign.arrayBuffer();
    assert.equal((await usage(s.apiKey)).used, before.used);
    assert.equal((await usage(s.apiKey)).byKey.length, 0, 'no call was made');
  });

  it('takes uploads larger than the form limit (64 KB), streamed to the tool', async () => {
    const s = await session();
    const rows = Array.from({ length: 4000 }, (_, i) => ({ id: i, item: `item number ${i}` }));
    const content = JSON.stringify(rows);
    assert.ok(content.length > 64 * 1024);
    const res = await upload(s, CSV, [['_csrf', s.token], ['keyId', s.keyId], ['file', { name: 'big.json', content }], ['mode', 'fields']]);
    const page = await res.text();
    assert.equal(res.status, 200, page);
    const url = new URL(envelopeOf(page).result.downloadUrl);
    const csv = await (await fetch(`${app.base}${url.pathname}${url.search}`)).text();
    assert.equal(csv.split('\r\n').length, 4002, 'a header, 4000 rows and the last line end');
  });

  it('holds an upload to REST’s upload limit (UPLOAD_LIMIT_BYTES), with REST’s 413', async () => {
    const small = await startTestApp({ env: { UPLOAD_LIMIT_BYTES: '2048' } });
    try {
      const smallBase = await listen(small);
      const { apiKey, keyId, cookie, token } = await signedInWithToken({ t: small, base: smallBase }, 'playground-limit', '/dashboard/playground');
      const form = new FormData();
      form.append('_csrf', token);
      form.append('keyId', keyId);
      form.append('file', new Blob([JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i })))]), 'big.json');
      const res = await fetch(`${smallBase}/dashboard/playground/${CSV}/upload`, { method: 'POST', headers: { accept: 'text/html', origin: smallBase, cookie }, body: form });
      const page = await res.text();
      assert.equal(res.status, 413, page);
      assert.match(page, /<strong>413 <code>payload_too_large<\/code><\/strong>/);
      const usage = await (await fetch(`${smallBase}/api/v1/usage`, { headers: { 'x-api-key': apiKey } })).json();
      assert.equal((usage as { result: { used: number } }).result.used, 0);
    } finally {
      await small.close();
    }
  });

  it('answers an unknown tool with 404', async () => {
    const s = await session();
    const res = await getPage(app.base, '/dashboard/playground/no_such_tool', s.cookie);
    assert.equal(res.status, 404);
    assert.match(await res.text(), /Tool not found/);
  });
});
