// LocalFileStore's get() and check(): what a result's metadata read answers (the steps it shares
// with S3FileStore through readLiveStoredFile: the id checked, the metadata read, deleteAt against
// the clock), and whether its folder can take results. The S3 side is in s3-file-store.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalFileStore, storageStatus } from '../../src/files/file-store.ts';

describe('LocalFileStore', () => {
  let dir: string;
  let n = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tool-service-local-store-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const put = (store: LocalFileStore, retentionMs: number) => {
    const source = join(dir, `source-${++n}`);
    writeFileSync(source, `result ${n}\n`);
    return store.put(source, { fileName: `result-${n}.txt`, mimeType: 'text/plain', retentionMs, ownerId: 'acct_1' });
  };

  it('gives a live result with its owner, and nothing for an expired one, an unknown id or a non-id', async () => {
    const store = new LocalFileStore(join(dir, 'get'));
    const live = await put(store, 3600_000);
    assert.deepEqual(await store.get(live.fileId), live);
    assert.equal((await store.get(live.fileId))?.ownerId, 'acct_1');
    // deleteAt already past: gone to get() although the sweep has not removed it.
    const expired = await put(store, -1000);
    assert.equal(await store.get(expired.fileId), undefined);
    assert.equal(await store.sweep(), 1, 'the expired one was still on disk');
    assert.equal(await store.get('00000000-0000-4000-8000-000000000000'), undefined);
    assert.equal(await store.get('../get/x'), undefined);
    assert.equal(await store.get('not-an-id'), undefined);
  });

  it('answers nothing (never throws) for metadata that is half-written or not a result', async () => {
    const root = join(dir, 'broken');
    const store = new LocalFileStore(root);
    const half = await put(store, 3600_000);
    writeFileSync(join(root, half.fileId, 'meta.json'), '{"fileId":');
    assert.equal(await store.get(half.fileId), undefined);
    const nulled = await put(store, 3600_000);
    writeFileSync(join(root, nulled.fileId, 'meta.json'), 'null');
    assert.equal(await store.get(nulled.fileId), undefined);
  });

  it('checks that its folder can take results: made when missing, failed when it is not a folder', async () => {
    assert.deepEqual(await storageStatus(new LocalFileStore(join(dir, 'fresh', 'files')), 5000), { state: 'ready' });
    const notAFolder = join(dir, 'not-a-folder');
    writeFileSync(notAFolder, 'a file where the results folder should be');
    const status = await storageStatus(new LocalFileStore(notAFolder), 5000);
    assert.equal(status.state, 'failed');
    assert.match(status.detail ?? '', /EEXIST|ENOTDIR/);
  });
});
