// The archive family through the real service over HTTP: every tool's example runs as a test
// (the source archive built from the example's tree, converted, downloaded by its link and every
// entry of the result read back), archive/list answers JSON, and hostile archives answer 4xx
// JSON with the service still up and no work folder left behind.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import type { AnyTool } from '../../src/core/define-tool.ts';
import type { TestApp } from '../support/test-app.ts';
import { json, upload } from '../support/http.ts';
import { documentedResponsesAt, downloadDocumented } from '../support/documented-responses.ts';
import { expectRefused, startFileApp, type Refusal } from '../support/file-app.ts';
import { buildArchive, buildTar, buildZip, build7z, expectedEntries, readArchive, type Tree } from './support/archive-fixtures.ts';

let t: TestApp | undefined;
let base: string;
let apiKey: string;

before(async () => ({ t, base, apiKey } = await startFileApp({ quota: 1_000_000 })));
after(() => t?.close());

function archiveTools(): AnyTool[] {
  return t!.services.catalog.tools.filter((tool) => tool.family === 'archive');
}

const NAMES: Record<string, string> = { zip: 'bundle.zip', '7z': 'bundle.7z', tar: 'bundle.tar', 'tar.gz': 'bundle.tar.gz' };

/** Posts `content` to an archive route and expects a 4xx JSON envelope; the service must still answer. */
function refused(slug: string, name: string, content: Buffer, fields: Record<string, string> = {}): Promise<Refusal> {
  return expectRefused({ t: t!, base, apiKey }, `/api/v1/archive/${slug}`, { name, content }, fields);
}

describe('archive examples run as tests: entry names and contents of the result', () => {
  test('the family has the spec\'s tools and the conversions', () => {
    assert.deepEqual(archiveTools().map((tool) => tool.slug).sort(), ['7z-to-tar', '7z-to-zip', 'list', 'tar-gz-to-7z', 'tar-gz-to-zip', 'tar-to-7z', 'tar-to-zip', 'zip-to-7z', 'zip-to-gz', 'zip-to-tar']);
  });

  test('every conversion example, its answer and its download as /openapi.json documents them', async () => {
    const documented = await documentedResponsesAt(base);
    const tools = archiveTools().filter((tool) => tool.answer !== 'json');
    assert.equal(tools.length, 9);
    for (const tool of tools) {
      for (const example of tool.fileExamples ?? []) {
        const label = `${tool.slug}: ${example.title}`;
        const source = example.source as { format: string; tree: Tree };
        const archive = await buildArchive(source.format, source.tree);
        const fields = Object.fromEntries(Object.entries(example.input as Record<string, string>));
        const res = await upload(base, tool.path, apiKey, { name: NAMES[source.format]!, content: archive }, fields);
        const body = await json(res);
        assert.equal(res.status, 200, `${label}: ${JSON.stringify(body)}`);
        assert.deepEqual(documented.problems({ path: tool.path, method: 'POST', status: res.status, contentType: res.headers.get('content-type') ?? undefined, body }), [], label);
        const result = await downloadDocumented(documented, base, body, label);
        const facts = example.expect.facts as { entries: Tree };
        const readable = example.expect.extension === 'tar.gz' ? gunzipSync(result) : result;
        assert.deepEqual(await readArchive(readable, example.expect.extension === 'tar.gz' ? 'tar' : example.expect.extension), expectedEntries(facts.entries), label);
      }
    }
  });

  test('the answer names the result after the upload, with the target type', async () => {
    const res = await upload(base, '/api/v1/archive/tar-gz-to-zip', apiKey, { name: 'site backup.tar.gz', content: await buildArchive('tar.gz', { 'a.txt': 'a' }) });
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual([body.result.fileName, body.result.mimeType], ['site backup.zip', 'application/zip']);
    const gz = await json(await upload(base, '/api/v1/archive/zip-to-gz', apiKey, { name: 'photos.zip', content: await buildArchive('zip', { 'a.txt': 'a' }) }));
    assert.deepEqual([gz.result.fileName, gz.result.mimeType], ['photos.tar.gz', 'application/gzip']);
  });

  test('archive/list answers its example\'s facts, the whole answer, as JSON and as /openapi.json documents it', async () => {
    const documented = await documentedResponsesAt(base);
    const tool = archiveTools().find((candidate) => candidate.slug === 'list')!;
    const example = tool.fileExamples![0]!;
    const source = example.source as { format: string; tree: Tree };
    const res = await upload(base, tool.path, apiKey, { name: 'docs.tar', content: await buildArchive(source.format, source.tree) });
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    // The facts are what /openapi.json shows as the example's result: every key, every entry.
    assert.deepEqual(body.result, example.expect.facts);
    assert.equal(body.result.downloadUrl, undefined);
    assert.deepEqual(documented.problems({ path: tool.path, method: 'POST', status: res.status, contentType: res.headers.get('content-type') ?? undefined, body }), []);
  });

  test('archive/list shows ratios and what extraction would refuse, without refusing', async () => {
    const zip = buildZip([
      { name: 'zeros.bin', content: Buffer.alloc(100_000) },
      { name: '../../escape.txt', content: 'x', method: 0 },
    ]);
    const body = await json(await upload(base, '/api/v1/archive/list', apiKey, { name: 'odd.zip', content: zip }));
    const [zeros, escape] = body.result.entries;
    assert.equal(zeros.path, 'zeros.bin');
    assert.equal(zeros.ratio, Math.round((100_000 / zeros.packedBytes) * 100) / 100);
    assert.ok(zeros.ratio > 500);
    assert.equal(zeros.unsafe, null);
    assert.deepEqual([escape.path, escape.packedBytes, escape.unsafe], ['../../escape.txt', 1, 'its name has a ".." segment (it would climb out of the folder)']);
  });
});

describe('options are validated', () => {
  for (const level of ['500', '-1', 'fast']) {
    test(`level=${level} is a 400 naming the field`, async () => {
      const r = await refused('tar-to-7z', 'a.tar', await buildArchive('tar', { 'a.txt': 'a' }), { level });
      assert.deepEqual([r.status, r.error], [400, 'validation_error']);
      assert.match(r.detail, /^level: /);
    });
  }

  test('a level on a tar result is an unknown field', async () => {
    const r = await refused('zip-to-tar', 'a.zip', await buildArchive('zip', { 'a.txt': 'a' }), { level: '5' });
    assert.deepEqual([r.status, r.error], [400, 'validation_error']);
  });
});

describe('hostile archives through the service (issue 12 §8)', () => {
  test('zip slip', async () => {
    const r = await refused('zip-to-7z', 'slip.zip', buildZip([{ name: '../../../../tmp/evil.sh', content: '#!/bin/sh\nid\n' }]));
    assert.deepEqual([r.status, r.error, r.detail], [422, 'unsafe_document', 'entry "../../../../tmp/evil.sh" has a ".." segment (it would climb out of the folder)']);
  });

  test('a tar symlink escape', async () => {
    const r = await refused('tar-to-zip', 'links.tar', buildTar([{ name: 'etc', type: '2', linkName: '/etc' }, { name: 'etc/cron.d/x', content: 'x' }]));
    assert.deepEqual([r.status, r.error], [422, 'unsafe_document']);
  });

  test('a tar hard-link escape and a device file', async () => {
    assert.equal((await refused('tar-to-7z', 'hard.tar', buildTar([{ name: 'h', type: '1', linkName: '../../../etc/shadow' }]))).error, 'unsafe_document');
    assert.equal((await refused('tar-to-7z', 'dev.tar', buildTar([{ name: 'sda', type: '4' }]))).error, 'unsafe_document');
  });

  test('42.zip style nesting', async () => {
    const bottom = buildZip([{ name: 'zeros.bin', content: Buffer.alloc(64 * 1024) }]);
    const middle = buildZip(Array.from({ length: 16 }, (_, i) => ({ name: `${i.toString(16)}.zip`, content: bottom })));
    const top = buildZip(Array.from({ length: 16 }, (_, i) => ({ name: `lib ${i.toString(16)}.zip`, content: middle })));
    const r = await refused('zip-to-7z', '42.zip', top);
    assert.deepEqual([r.status, r.error], [422, 'document_bomb']);
  });

  test('overlapping entries (refused by the upload check or the engine, as a bomb)', async () => {
    const entries = Array.from({ length: 400 }, (_, i) => ({ name: `p${i}.txt`, content: Buffer.alloc(1024 * 1024, 0x61) }));
    const r = await refused('zip-to-tar', 'overlap.zip', buildZip(entries, { overlap: true }));
    assert.deepEqual([r.status, r.error], [422, 'document_bomb']);
  });

  test('an encrypted 7z answers 422 encrypted_document', async () => {
    const r = await refused('7z-to-zip', 'secret.7z', await build7z({ 'a.txt': 'classified' }, { password: 'pw' }));
    assert.deepEqual([r.status, r.error], [422, 'encrypted_document']);
  });

  test('a truncated tar.gz', async () => {
    const whole = await buildArchive('tar.gz', { 'a.txt': 'hello '.repeat(5000), 'b.txt': 'world '.repeat(5000) });
    const r = await refused('tar-gz-to-zip', 'cut.tar.gz', whole.subarray(0, Math.floor(whole.length / 2)));
    assert.deepEqual([r.status, r.error], [422, 'corrupt_document']);
  });

  test('a 0-byte upload', async () => {
    const r = await refused('tar-to-7z', 'empty.tar', Buffer.alloc(0));
    assert.deepEqual([r.status, r.error], [400, 'empty_file']);
  });

  test('a polyglot PDF with a zip after it is typed as the PDF it starts as', async () => {
    const r = await refused('zip-to-7z', 'doc.zip', Buffer.concat([Buffer.from('%PDF-1.7\n'), buildZip([{ name: 'a.txt', content: 'x' }])]));
    assert.deepEqual([r.status, r.error], [415, 'unsupported_file_type']);
  });

  test('a file of another format than the route takes', async () => {
    const r = await refused('7z-to-zip', 'fake.7z', await buildArchive('zip', { 'a.txt': 'a' }));
    assert.deepEqual([r.status, r.error], [415, 'unsupported_file_type']);
  });
});
