import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { json, listen, upload } from '../support/http.ts';
import { LinkSigner } from '../../src/files/signed-links.ts';

const TXT_TO_MD = '/api/v1/documents/txt-to-md';

describe('the file pipeline (through documents/txt-to-md, which needs no engine)', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  let accountId: string;
  before(async () => {
    t = await startTestApp({ env: { UPLOAD_LIMIT_BYTES: '200000', BINARY_DELIVERY_SUNSET_AT: '2099-01-01' } });
    base = await listen(t);
    ({ apiKey, accountId } = await t.account({ quota: 1000 }));
  });
  after(() => t.close());

  it('answers the file-result envelope with a presigned link that works without a key', async () => {
    const res = await upload(base, TXT_TO_MD, apiKey, { name: 'notes.txt', content: '# not a heading\nprice: 5 * 3 = 15\n\nsecond paragraph' });
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.status, true);
    const result = body.result;
    assert.match(result.fileId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(result.fileName, 'notes.md');
    assert.equal(result.mimeType, 'text/markdown; charset=utf-8');
    const url = new URL(result.downloadUrl);
    assert.equal(`${url.protocol}//${url.host}`, 'http://localhost:8080');
    assert.equal(url.pathname, `/files/${result.fileId}/notes.md`);
    const expires = Number(url.searchParams.get('expires'));
    const now = Date.now() / 1000;
    assert.ok(expires > now + 3500 && expires <= now + 3601, 'valid for one hour');
    assert.equal(new Date(result.expiresAt).getTime(), expires * 1000);

    const download = await fetch(`${base}${url.pathname}${url.search}`);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.equal(download.headers.get('content-disposition'), `attachment; filename="notes.md"; filename*=UTF-8''notes.md`);
    const text = await download.text();
    assert.equal(text, '\\# not a heading  \nprice: 5 \\* 3 = 15\n\nsecond paragraph\n');
    assert.equal(Number(download.headers.get('content-length')), result.sizeBytes);
  });

  it('refuses an altered or expired link with JSON', async () => {
    const res = await upload(base, TXT_TO_MD, apiKey, { name: 'a.txt', content: 'hello' });
    const { result } = await json(res);
    const url = new URL(result.downloadUrl);
    const tamperedSig = await fetch(`${base}${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${'A'.repeat(43)}`);
    assert.equal(tamperedSig.status, 403);
    assert.equal((await json(tamperedSig)).error, 'invalid_signature');
    const laterExpiry = await fetch(`${base}${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 3600}&signature=${url.searchParams.get('signature')}`);
    assert.equal(laterExpiry.status, 403);
    const otherName = await fetch(`${base}/files/${result.fileId}/other.md${url.search}`);
    assert.equal(otherName.status, 403);
    // A genuinely signed link whose time has passed.
    const signer = new LinkSigner((await import('node:fs')).readFileSync(join(t.dataDir, 'signing-secret'), 'utf8').trim());
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = await fetch(`${base}/files/${result.fileId}/a.md?expires=${past}&signature=${signer.signature(result.fileId, 'a.md', past)}`);
    assert.equal(expired.status, 410);
    assert.equal((await json(expired)).error, 'link_expired');
  });

  it('refuses the genuine signature with expires spelled any other way than the signed text (0-padded, +, spaces, exponent, hex)', async () => {
    const res = await upload(base, TXT_TO_MD, apiKey, { name: 'b.txt', content: 'hello' });
    const { result } = await json(res);
    const url = new URL(result.downloadUrl);
    const expires = url.searchParams.get('expires') ?? '';
    const signature = url.searchParams.get('signature') ?? '';
    const asSigned = await fetch(`${base}${url.pathname}?expires=${expires}&signature=${signature}`);
    assert.equal(asSigned.status, 200, 'the link as signed works');
    // Each spelling is the same number to Number(), so only a comparison of the exact text refuses it.
    const respellings = [`0${expires}`, `${'0'.repeat(12 - expires.length)}${expires}`, `+${expires}`, ` ${expires}`, `${expires} `, `${expires}.0`, Number(expires).toExponential(), `0x${Number(expires).toString(16)}`];
    for (const spelled of respellings) {
      assert.equal(Number(spelled), Number(expires), `${spelled} is the same number`);
      const answer = await fetch(`${base}${url.pathname}?expires=${encodeURIComponent(spelled)}&signature=${signature}`);
      assert.equal(answer.status, 403, JSON.stringify(spelled));
      assert.equal((await json(answer)).error, 'invalid_signature');
    }
  });

  it('checks the type by content, not by name, and answers 415 naming what it found', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000000000500010d0a2db40000000049454e44ae426082', 'hex');
    const res = await upload(base, TXT_TO_MD, apiKey, { name: 'innocent.txt', content: png, type: 'text/plain' });
    assert.equal(res.status, 415);
    const body = await json(res);
    assert.equal(body.error, 'unsupported_file_type');
    assert.equal(body.detectedType, 'png');
    assert.match(body.detail, /PNG/);
  });

  it('answers 400 for an empty file and for a missing file field, without charging', async () => {
    const before = await t.services.ledger.used(accountId);
    const empty = await upload(base, TXT_TO_MD, apiKey, { name: 'empty.txt', content: '' });
    assert.equal(empty.status, 400);
    assert.equal((await json(empty)).error, 'empty_file');
    const missing = await upload(base, TXT_TO_MD, apiKey, undefined, { note: 'no file here' });
    assert.equal(missing.status, 400);
    const body = await json(missing);
    assert.equal(body.error, 'validation_error');
    assert.equal(body.issues[0].field, 'file');
    const wrongField = await upload(base, TXT_TO_MD, apiKey, { field: 'document', name: 'a.txt', content: 'x' });
    assert.equal(wrongField.status, 400);
    assert.match((await json(wrongField)).detail, /"file"/);
    assert.equal(await t.services.ledger.used(accountId), before);
  });

  it('answers 415 JSON when the body is not multipart', async () => {
    const res = await fetch(`${base}${TXT_TO_MD}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: '{"text":"hi"}' });
    assert.equal(res.status, 415);
    assert.equal((await json(res)).error, 'multipart_required');
  });

  it('answers 413 JSON for an upload over the limit, and stays up', async () => {
    const res = await upload(base, TXT_TO_MD, apiKey, { name: 'big.txt', content: 'a'.repeat(300_000) });
    assert.equal(res.status, 413);
    const body = await json(res);
    assert.equal(body.error, 'payload_too_large');
    assert.match(body.detail, /200000 bytes/);
    const next = await upload(base, TXT_TO_MD, apiKey, { name: 'small.txt', content: 'still here' });
    assert.equal(next.status, 200);
  });

  it('reads the upload only after the key is checked: a missing or bad key gets no work folder at all', async () => {
    // Counted where folders are made, not only looked for afterwards (a folder made and removed
    // within the call leaves nothing to see).
    const files = t.services.files;
    const made: string[] = [];
    const createWorkDir = files.createWorkDir.bind(files);
    files.createWorkDir = async () => {
      const dir = await createWorkDir();
      made.push(dir);
      return dir;
    };
    try {
      for (const key of [undefined, 'uts_live_not_a_real_key_000000000000000000']) {
        const res = await upload(base, TXT_TO_MD, key, { name: 'a.txt', content: 'x' });
        assert.equal(res.status, 401);
        assert.match((await json(res)).error, /^(missing|invalid)_api_key$/);
      }
      assert.deepEqual(made, [], 'no work folder was made for a refused key');
      const work = join(t.dataDir, 'work');
      assert.deepEqual(existsSync(work) ? readdirSync(work) : [], [], 'no work folder is left behind');
      // The same request with a valid key does make one (and removes it): the count above was not luck.
      assert.equal((await upload(base, TXT_TO_MD, apiKey, { name: 'a.txt', content: 'x' })).status, 200);
      assert.equal(made.length, 1);
      assert.deepEqual(readdirSync(work), []);
    } finally {
      files.createWorkDir = createWorkDir;
    }
  });

  it('serves delivery=binary with Deprecation, Sunset and Link headers', async () => {
    const res = await upload(`${base}`, `${TXT_TO_MD}?delivery=binary`, apiKey, { name: 'b.txt', content: 'direct bytes' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.match(res.headers.get('deprecation') ?? '', /^@\d+$/);
    assert.equal(res.headers.get('sunset'), new Date('2099-01-01T00:00:00Z').toUTCString());
    assert.match(res.headers.get('link') ?? '', /rel="deprecation"/);
    assert.equal(await res.text(), 'direct bytes\n');
  });

  it('keeps the result until retention ends, and the sweeper removes it then, also after a restart', async () => {
    const res = await upload(base, TXT_TO_MD, apiKey, { name: 'kept.txt', content: 'kept' });
    const { result } = await json(res);
    const dir = join(t.dataDir, 'files', result.fileId);
    assert.ok(existsSync(dir));
    assert.equal(await t.services.store.sweep(new Date()), 0);
    assert.ok(existsSync(dir));
    // A leftover from before a restart: a result folder without metadata, old enough.
    const orphan = join(t.dataDir, 'files', '00000000-0000-4000-8000-000000000000');
    mkdirSync(orphan, { recursive: true });
    writeFileSync(join(orphan, 'blob'), 'x');
    utimesSync(orphan, new Date(Date.now() - 3 * 3600_000), new Date(Date.now() - 3 * 3600_000));
    const removed = await t.services.store.sweep(new Date(Date.now() + 24 * 3600_000 + 1000));
    assert.ok(removed >= 2);
    assert.ok(!existsSync(dir));
    assert.ok(!existsSync(orphan));
    const after = await fetch(`${base}${new URL(result.downloadUrl).pathname}${new URL(result.downloadUrl).search}`);
    assert.equal(after.status, 410);
    assert.equal((await json(after)).error, 'file_gone');
  });

  it('charges a successful conversion its catalog cost', async () => {
    const { apiKey: key, accountId: id } = await t.account({ quota: 10 });
    const res = await upload(base, TXT_TO_MD, key, { name: 'c.txt', content: 'charged' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-credits-remaining'), '9');
    assert.equal(await t.services.ledger.used(id), 1);
  });
});

describe('delivery=binary after its sunset', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { BINARY_DELIVERY_SUNSET_AT: '2020-01-01' } });
  });
  after(() => t.close());

  it('answers 410 JSON and does not charge', async () => {
    const base = await listen(t);
    const { apiKey, accountId } = await t.account({ quota: 10 });
    const res = await upload(base, '/api/v1/documents/txt-to-md?delivery=binary', apiKey, { name: 'a.txt', content: 'x' });
    assert.equal(res.status, 410);
    const body = await json(res);
    assert.equal(body.error, 'delivery_binary_gone');
    assert.match(body.detail, /2020-01-01/);
    assert.equal(await t.services.ledger.used(accountId), 0);
  });
});
