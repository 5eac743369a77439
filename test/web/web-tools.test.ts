// The web family through the real service over HTTP: every tool's example runs as a test (its
// source uploaded, the result downloaded by its link and compared with the exact expected text),
// options are validated, and hostile files answer 4xx JSON with the service still up and no
// work folder left behind.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyTool } from '../../src/core/define-tool.ts';
import type { TestApp } from '../support/test-app.ts';
import { convertAndDownload, json, upload } from '../support/http.ts';
import { documentedResponsesAt, downloadDocumented } from '../support/documented-responses.ts';
import { expectRefused, startFileApp, type Refusal } from '../support/file-app.ts';

let t: TestApp | undefined;
let base: string;
let apiKey: string;

before(async () => ({ t, base, apiKey } = await startFileApp({ quota: 1_000_000 })));
after(() => t?.close());

function webTools(): AnyTool[] {
  return t!.services.catalog.tools.filter((tool) => tool.family === 'web');
}

function refused(slug: string, name: string, content: string | Buffer, fields: Record<string, string> = {}): Promise<Refusal> {
  return expectRefused({ t: t!, base, apiKey }, `/api/v1/web/${slug}`, { name, content }, fields);
}

describe('web examples run as tests: the exact result text', () => {
  test('the family: the spec\'s xml-to-txt and five more (html-to-md is in documents, CSV to JSON is convertors/csv-2-json)', () => {
    assert.deepEqual(webTools().map((tool) => tool.slug).sort(), ['json-to-csv', 'json-to-xml', 'json-to-yaml', 'xml-to-json', 'xml-to-txt', 'yaml-to-json']);
  });

  test('every example, its answer and its download as /openapi.json documents them', async () => {
    const documented = await documentedResponsesAt(base);
    for (const tool of webTools()) {
      for (const example of tool.fileExamples ?? []) {
        const label = `${tool.slug}: ${example.title}`;
        const source = example.source as { text: string };
        const name = `example.${tool.upload!.accept[0]}`;
        const res = await upload(base, tool.path, apiKey, { name, content: source.text }, example.input as Record<string, string>);
        const body = await json(res);
        assert.equal(res.status, 200, `${label}: ${JSON.stringify(body)}`);
        assert.deepEqual(documented.problems({ path: tool.path, method: 'POST', status: res.status, contentType: res.headers.get('content-type') ?? undefined, body }), [], label);
        const result = await downloadDocumented(documented, base, body, label);
        assert.equal(result.toString('utf8'), (example.expect.facts as { text: string }).text, label);
      }
    }
  });

  test('the answer carries the target type and name', async () => {
    const body = await json(await upload(base, '/api/v1/web/xml-to-json', apiKey, { name: 'feed.xml', content: '<a>1</a>' }));
    assert.deepEqual([body.result.fileName, body.result.mimeType], ['feed.json', 'application/json; charset=utf-8']);
  });
});

describe('options are validated', () => {
  test('json-to-csv: an unknown delimiter and a bad boolean are 400s naming the field', async () => {
    const bad = await refused('json-to-csv', 'a.json', '[{"a":1}]', { delimiter: 'colon' });
    assert.deepEqual([bad.status, bad.error], [400, 'validation_error']);
    assert.match(bad.detail, /^delimiter: /);
    const flag = await refused('json-to-csv', 'a.json', '[{"a":1}]', { header: 'maybe' });
    assert.match(flag.detail, /^header: /);
  });

  test('an option another tool has is an unknown field here', async () => {
    const r = await refused('xml-to-json', 'a.xml', '<a/>', { delimiter: 'comma' });
    assert.deepEqual([r.status, r.error], [400, 'validation_error']);
  });
});

describe('hostile files through the service (issue 12 §8)', () => {
  test('XML billion laughs', async () => {
    const lol = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
    assert.deepEqual((await refused('xml-to-txt', 'lol.xml', lol)).error, 'unsafe_document');
  });

  test('XML external entity (file:///etc/passwd)', async () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>';
    const r = await refused('xml-to-json', 'xxe.xml', xxe);
    assert.equal(r.error, 'unsafe_document');
    assert.doesNotMatch(r.detail, /root:/);
  });

  test('YAML alias bomb and a code-running tag', async () => {
    const rows = ['a: &a [x,x,x,x,x,x,x,x,x]'];
    for (const [name, prev] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f']]) rows.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    assert.equal((await refused('yaml-to-json', 'bomb.yaml', `${rows.join('\n')}\n`)).error, 'document_bomb');
    assert.equal((await refused('yaml-to-json', 'tag.yaml', 'x: !!python/object/apply:os.system ["id"]\n')).error, 'unsafe_document');
  });

  test('deep nesting', async () => {
    assert.equal((await refused('json-to-yaml', 'deep.json', `${'['.repeat(10_000)}${']'.repeat(10_000)}`)).error, 'document_too_complex');
    assert.equal((await refused('xml-to-txt', 'deep.xml', `${'<a>'.repeat(10_000)}${'</a>'.repeat(10_000)}`)).error, 'document_too_complex');
  });

  test('truncated files', async () => {
    assert.equal((await refused('xml-to-json', 'cut.xml', '<catalog><book><title>Du')).error, 'corrupt_document');
    assert.equal((await refused('json-to-xml', 'cut.json', '{"catalog": {"book": [1, 2')).error, 'corrupt_document');
  });

  test('a 0-byte file', async () => {
    const r = await refused('json-to-yaml', 'empty.json', '');
    assert.deepEqual([r.status, r.error], [400, 'empty_file']);
  });

  test('a binary file (a zip) where text is expected, and text that is not UTF-8', async () => {
    const zip = Buffer.concat([Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18)]);
    assert.equal((await refused('xml-to-txt', 'a.xml', zip)).status, 415);
    const latin1 = Buffer.from('<a>caf\xe9</a>', 'latin1');
    assert.equal((await refused('xml-to-txt', 'latin1.xml', latin1)).status, 415);
  });

  test('a polyglot: HTML that is also XML-ish is converted as XML text only', async () => {
    const body = await convertAndDownload(base, '/api/v1/web/xml-to-txt', apiKey, { name: 'x.xml', content: '<html><body><script>alert(1)</script><p>Hi</p></body></html>' });
    assert.equal(body.toString('utf8'), 'alert(1)\nHi\n');
  });
});
