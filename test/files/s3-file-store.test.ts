// S3FileStore against a real S3-compatible server (s3rver on loopback): what the sweep deletes and
// what it never touches, the prefix as the store's whole world, an empty result, and ids that are
// not ours. The end-to-end behaviour through the app is in s3-conversions.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../../src/config.ts';
import { S3FileStore, s3Client } from '../../src/files/s3-file-store.ts';
import type { S3StoreSettings } from '../../src/files/s3-settings.ts';
import { startS3Server, type S3Server } from '../support/s3-server.ts';

const HOUR = 3600_000;

describe('S3FileStore', () => {
  let s3: S3Server;
  let settings: S3StoreSettings;
  let client: S3Client;
  let dir: string;
  const stores: S3FileStore[] = [];
  before(async () => {
    s3 = await startS3Server();
    settings = loadConfig({ DATA_DIR: tmpdir(), ...s3.env('store') }).fileStore as S3StoreSettings;
    client = s3Client(settings);
    dir = mkdtempSync(join(tmpdir(), 'tool-service-s3-store-'));
  });
  after(async () => {
    for (const store of stores) store.close();
    client?.destroy();
    rmSync(dir, { recursive: true, force: true });
    await s3?.stop();
  });

  const storeOf = (prefix: string, retentionMs = HOUR) => {
    const store = new S3FileStore({ ...settings, prefix }, { retentionMs });
    stores.push(store);
    return store;
  };
  let n = 0;
  const put = (store: S3FileStore, content: string, retentionMs = HOUR) => {
    const path = join(dir, `source-${++n}`);
    writeFileSync(path, content);
    return store.put(path, { fileName: `result-${n}.txt`, mimeType: 'text/plain', retentionMs, ownerId: 'acct_1' });
  };
  const exists = (key: string) =>
    client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).then(
      () => true,
      (err: { $metadata?: { httpStatusCode?: number } }) => {
        if (err.$metadata?.httpStatusCode === 404) return false;
        throw err;
      },
    );

  it('takes the source file, and hands the bytes back by copyTo; an empty result too', async () => {
    const store = storeOf('roundtrip');
    const stored = await put(store, 'line one\nline two\n');
    assert.throws(() => readFileSync(join(dir, `source-${n}`)), /ENOENT/, 'the store owns (removes) the source');
    await store.copyTo(stored.fileId, join(dir, 'copy'));
    assert.equal(readFileSync(join(dir, 'copy'), 'utf8'), 'line one\nline two\n');
    const empty = await put(store, '');
    assert.equal((await store.get(empty.fileId))?.sizeBytes, 0);
    await store.copyTo(empty.fileId, join(dir, 'empty-copy'));
    assert.equal(readFileSync(join(dir, 'empty-copy'), 'utf8'), '');
  });

  it('sees only its own prefix, and answers undefined for ids that are unknown or not ids', async () => {
    const a = storeOf('tenant-a');
    const b = storeOf('tenant-b');
    const stored = await put(a, 'belongs to a\n');
    assert.equal((await a.get(stored.fileId))?.ownerId, 'acct_1');
    assert.equal(await b.get(stored.fileId), undefined);
    assert.equal(await a.get('00000000-0000-4000-8000-000000000000'), undefined);
    assert.equal(await a.get('../tenant-b/x'), undefined);
    assert.equal(await a.get('not-an-id'), undefined);
  });

  it("sweeps what is past its deleteAt, keeps the rest, and never touches keys that are not its results", async () => {
    const store = storeOf('swept', 2000);
    const brief = await put(store, 'two seconds\n', 2000);
    const longer = await put(store, 'an hour\n', HOUR);
    // Not ours: a name that is not a result id under the prefix, and a result id outside it.
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'swept/readme.txt', Body: 'operator notes' }));
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `elsewhere/${brief.fileId}`, Body: 'another app' }));

    // Ten minutes on: the two-second result is due (its deleteAt read from its metadata), the hour's is not.
    assert.equal(await store.sweep(new Date(Date.now() + 10 * 60_000)), 1);
    assert.equal(await exists(`swept/${brief.fileId}`), false);
    assert.equal(await exists(`swept/${longer.fileId}`), true);
    assert.equal(await store.get(brief.fileId), undefined);

    // Two days on: past the 24 h ceiling, every result goes; the foreign keys stay.
    assert.equal(await store.sweep(new Date(Date.now() + 48 * HOUR)), 1);
    assert.equal(await exists(`swept/${longer.fileId}`), false);
    assert.equal(await exists('swept/readme.txt'), true);
    assert.equal(await exists(`elsewhere/${brief.fileId}`), true);
  });

  it('reads a result past its deleteAt as gone before the sweep has run', async () => {
    const store = storeOf('expiring', 1);
    const stored = await put(store, 'expires at once\n', 1);
    // Polled: deleteAt is 1 ms after the put; get() compares it with the clock.
    const deadline = Date.now() + 60_000;
    while ((await store.get(stored.fileId)) !== undefined) {
      assert.ok(Date.now() < deadline, 'still visible a minute after its deleteAt');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(await exists(`expiring/${stored.fileId}`), true, 'still in the bucket until the sweep');
  });

  it('lets a download pause longer than the idle limit, and still cuts a storage gone silent mid-body', async () => {
    const size = 24 * 1024 * 1024;
    const path = join(dir, 'large-source');
    writeFileSync(path, Buffer.alloc(size, 0x61));
    // A 1 s idle limit for requests; a download may pause for the stream limit (default 5 min).
    const patient = new S3FileStore({ ...settings, prefix: 'streams' }, { retentionMs: HOUR, idleTimeoutMs: 1000 });
    stores.push(patient);
    const stored = await patient.put(path, { fileName: 'large.bin', mimeType: 'application/octet-stream', retentionMs: HOUR });
    const body = await patient.open(stored.fileId);
    // A reader that stops for 3 s, as a slow client's backpressure would: the storage's socket idles as long.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    let received = 0;
    for await (const chunk of body) received += (chunk as Buffer).length;
    assert.equal(received, size, 'the download completed after the pause');

    const strict = new S3FileStore({ ...settings, prefix: 'streams' }, { retentionMs: HOUR, idleTimeoutMs: 1000, streamIdleMs: 1000 });
    stores.push(strict);
    const cut = await strict.open(stored.fileId);
    s3.pause();
    try {
      // What was already sent arrives; then nothing, and after 1 s of silence the body fails.
      const guard = setTimeout(() => cut.destroy(new Error('still waiting after 60 s')), 60_000);
      await assert.rejects(
        (async () => {
          for await (const _chunk of cut) void _chunk;
        })(),
        (err: Error) => /timed out|aborted|socket hang up/i.test(err.message) || err.name === 'TimeoutError',
      );
      clearTimeout(guard);
    } finally {
      s3.resume();
    }
  });
});
