// delivery=binary with results in S3 (FILE_STORE=s3://) when the storage fails between the
// conversion's store and the bytes' delivery. A call that was charged is delivered (its bytes come
// from the conversion's own output on this node, not read back from the bucket), and an
// Idempotency-Key replay, which charges nothing, answers a clear 503 while the storage is down and
// delivers once it is back. The bucket is a real S3-compatible server (s3rver) on loopback, killed
// at the moment the result's upload has finished (the store's put wrapped), not at a time guessed.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FileStore } from '../../src/files/file-store.ts';
import { json, listen, upload } from '../support/http.ts';
import { startS3Server, type S3Server } from '../support/s3-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const BINARY = '/api/v1/documents/txt-to-md?delivery=binary';

describe('delivery=binary when the S3 storage fails after the result is stored', () => {
  let s3: S3Server;
  let t: TestApp;
  let base: string;
  let account: { accountId: string; apiKey: string };
  /** set to kill the storage right after the next put() has stored its object */
  let killAfterPut = false;

  before(async () => {
    s3 = await startS3Server();
    t = await startTestApp({ env: { ...s3.env('binary'), BINARY_DELIVERY_SUNSET_AT: '2099-01-01' } });
    base = await listen(t);
    account = await t.account({ quota: 100 });
    const store: FileStore = t.services.store;
    const put = store.put.bind(store);
    store.put = async (...args) => {
      const stored = await put(...args);
      if (killAfterPut) {
        killAfterPut = false;
        await s3.kill();
      }
      return stored;
    };
  });
  after(async () => {
    await t?.close();
    await s3?.stop();
  });

  const used = async () => {
    await t.services.usage.flush();
    return t.services.accounts.usedCredits(account.accountId);
  };
  const workFolders = () => {
    const root = join(t.dataDir, 'work');
    return existsSync(root) ? readdirSync(root) : [];
  };

  it('delivers the bytes of a charged conversion although the storage went down once they were stored', async () => {
    const before = await used();
    killAfterPut = true;
    try {
      const res = await upload(base, BINARY, account.apiKey, { name: 'report.txt', content: 'Stored, then the storage went away\n' });
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200, body.toString('utf8'));
      assert.equal(killAfterPut, false, 'the storage was killed after the put');
      assert.equal(res.headers.get('content-type'), 'application/octet-stream');
      assert.equal(res.headers.get('content-disposition'), `attachment; filename="report.md"; filename*=UTF-8''report.md`);
      assert.equal(res.headers.get('content-length'), String(body.length));
      assert.match(res.headers.get('deprecation') ?? '', /^@\d+$/);
      assert.equal(body.toString('utf8'), 'Stored, then the storage went away\n');
      assert.equal(res.headers.get('x-credits-remaining'), String(100 - before - 1));
      assert.equal(await used(), before + 1, 'charged once, for a conversion that was delivered');
      assert.deepEqual(workFolders(), [], 'the work folder is gone once the bytes are sent');
    } finally {
      await s3.restart();
    }
  });

  it('a replay by Idempotency-Key while the storage is down is a 503 naming the storage, uncharged, and delivers once it is back', async () => {
    const headers = { 'idempotency-key': `binary-replay-${Date.now()}` };
    const first = await upload(base, BINARY, account.apiKey, { name: 'again.txt', content: 'Delivered twice\n' }, {}, headers);
    assert.equal(first.status, 200);
    assert.equal(await first.text(), 'Delivered twice\n');
    const charged = await used();
    await s3.kill();
    try {
      const replay = await upload(base, BINARY, account.apiKey, { name: 'again.txt', content: 'Delivered twice\n' }, {}, headers);
      const body = await json(replay);
      assert.equal(replay.status, 503, JSON.stringify(body));
      assert.equal(body.error, 'storage_unavailable');
      assert.equal(replay.headers.get('retry-after'), '5');
      assert.match(body.detail, /S3-compatible storage/);
      assert.match(body.detail, /Idempotency-Key/);
      assert.equal(await used(), charged, 'the replay charged nothing');
    } finally {
      await s3.restart();
    }
    const later = await upload(base, BINARY, account.apiKey, { name: 'again.txt', content: 'Delivered twice\n' }, {}, headers);
    assert.equal(later.status, 200);
    assert.equal(await later.text(), 'Delivered twice\n');
    assert.equal(await used(), charged, 'the delivered replay charged nothing either');
  });
});
