// A 50 MB result goes to S3 and back through the real app (the pipeline's own store step, a
// multipart upload of file ranges, then the signed link's download over HTTP) without the process
// holding it: the Buffers alive at once are a few streams' worth, never anything like the file. The storage is s3rver
// in a process of its own (test/support/s3-server.ts), so this process's memory is the service's.
// Also here: a storage that accepts connections and then says nothing (SIGSTOP) is a 503 once
// the client's timeouts run out, not a call that hangs.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { isServiceError } from '../../src/core/errors.ts';
import { S3FileStore, s3Client } from '../../src/files/s3-file-store.ts';
import type { S3StoreSettings } from '../../src/files/s3-settings.ts';
import { listen } from '../support/http.ts';
import { startS3Server, type S3Server } from '../support/s3-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

// The resident set also holds garbage V8 has not yet collected (every streamed chunk is a fresh
// Buffer, and V8 frees their memory lazily): that measures the collector's mood, not what the
// service holds. So the sampler collects before it reads. What it holds is read twice: the
// Buffers alive after the collection (process.memoryUsage().arrayBuffers: the file held, or
// lib-storage's part-sized Buffers, would show here whole), and the resident set, which also
// counts what the allocator kept of freed memory (writing the file first leaves tens of MB of it,
// which the transfer reuses: it read 0.0 MB of growth on most runs and 37.8 MB on one CI run
// whose Buffers were never measured), so it is held only to less than the file itself.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const MB = 1024 * 1024;
const SIZE = 50 * MB;
/**
 * The Buffers alive at once: streams' and sockets' buffers, plus a part sent again (under load
 * s3rver reset a part's connection and the upload retried it on a fresh stream and socket). 0-15 MB
 * measured, with three CPU-bound processes beside the test. A service holding the file (up or down)
 * holds 50-100 MB, and lib-storage's part-sized Buffers 26-46 MB: both stay above this.
 */
const MAX_HELD = 25 * MB;

/** Writes `bytes` of varied (not compressible to nothing, not all one byte) content in 1 MB writes; answers its SHA-256. */
async function writeLarge(path: string, bytes: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  for (let offset = 0; offset < bytes; offset += MB) {
    const chunk = Buffer.alloc(Math.min(MB, bytes - offset));
    for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE(Math.imul(offset + i, 2654435761) >>> 0, i);
    hash.update(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return hash.digest('hex');
}

describe('a 50 MB result in S3', () => {
  let s3: S3Server;
  let t: TestApp;
  let base: string;
  before(async () => {
    s3 = await startS3Server();
    t = await startTestApp({ env: s3.env('large') });
    base = await listen(t);
  });
  after(async () => {
    await t?.close();
    await s3?.stop();
  });

  const downloadHashed = async (downloadUrl: string) => {
    const link = new URL(downloadUrl);
    // node:http rather than fetch: the client's own buffering (web streams) is not the service's.
    const res = await new Promise<IncomingMessage>((resolve, reject) => get(`${base}${link.pathname}${link.search}`, resolve).on('error', reject));
    assert.equal(res.statusCode, 200);
    const hash = createHash('sha256');
    let received = 0;
    // Read as a stream and hashed chunk by chunk: the test itself holds none of it either.
    for await (const chunk of res as AsyncIterable<Buffer>) {
      hash.update(chunk);
      received += chunk.length;
    }
    return { sha256: hash.digest('hex'), received, length: res.headers['content-length'] };
  };

  it('goes up in parts and comes down streamed, with the resident set growing far less than its size', async () => {
    const { accountId } = await t.account();
    // Warm-up: the SDK, the upload and the download paths loaded, so the measure is the transfer's.
    const warmDir = await t.services.files.createWorkDir();
    await writeFile(join(warmDir, 'warm.bin'), Buffer.alloc(64 * 1024, 7));
    const warm = await t.services.files.store({ path: join(warmDir, 'warm.bin'), fileName: 'warm.bin', mimeType: 'application/octet-stream' }, accountId);
    await downloadHashed(warm.downloadUrl);

    const dir = await t.services.files.createWorkDir();
    const sha256 = await writeLarge(join(dir, 'large.bin'), SIZE);
    collect();
    const baseline = process.memoryUsage().rss;
    const heldBase = process.memoryUsage().arrayBuffers;
    let peak = baseline;
    let heldPeak = heldBase;
    const sample = () => {
      collect();
      const m = process.memoryUsage();
      peak = Math.max(peak, m.rss);
      heldPeak = Math.max(heldPeak, m.arrayBuffers);
    };
    const sampler = setInterval(sample, 100);
    let result: Awaited<ReturnType<typeof t.services.files.store>>;
    let down: Awaited<ReturnType<typeof downloadHashed>>;
    try {
      result = await t.services.files.store({ path: join(dir, 'large.bin'), fileName: 'large.bin', mimeType: 'application/octet-stream' }, accountId);
      down = await downloadHashed(result.downloadUrl);
    } finally {
      clearInterval(sampler);
      sample();
    }
    const growth = peak - baseline;
    const held = heldPeak - heldBase;
    assert.equal(result.sizeBytes, SIZE);
    assert.equal(down.length, String(SIZE));
    assert.equal(down.received, SIZE);
    assert.equal(down.sha256, sha256, 'the download is the bytes that were stored');
    assert.ok(held < MAX_HELD, `${(held / MB).toFixed(1)} MB of Buffers were alive at once for a ${SIZE / MB} MB result`);
    assert.ok(growth < SIZE, `the resident set grew by ${(growth / MB).toFixed(1)} MB for a ${SIZE / MB} MB result`);

    // In the bucket as one object of that size.
    const client = s3Client(t.config.fileStore as S3StoreSettings);
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `large/${result.fileId}` }));
      assert.equal(head.ContentLength, SIZE);
    } finally {
      client.destroy();
    }
    await t.services.files.removeWorkDir(dir);
    await t.services.files.removeWorkDir(warmDir);
  });

  it('a storage that accepts connections but never answers is a 503 storage_unavailable, not a hang', async () => {
    const settings = t.config.fileStore as S3StoreSettings;
    const store = new S3FileStore(settings, { retentionMs: 3600_000, connectTimeoutMs: 1000, idleTimeoutMs: 1000, maxAttempts: 1 });
    const dir = await t.services.files.createWorkDir();
    await writeFile(join(dir, 'small.txt'), 'a small result\n');
    const kept = await store.put(join(dir, 'small.txt'), { fileName: 'small.txt', mimeType: 'text/plain', retentionMs: 3600_000 });
    await writeFile(join(dir, 'second.txt'), 'another result\n');
    s3.pause();
    try {
      const unavailable = (err: unknown) => isServiceError(err) && err.status === 503 && err.error === 'storage_unavailable';
      // A hang guard, not a clock: each refusal comes from the client's own 1 s timeouts.
      const guard = <T>(promise: Promise<T>) => Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still waiting after 60 s')), 60_000).unref())]);
      await assert.rejects(guard(store.get(kept.fileId)), unavailable);
      await assert.rejects(guard(store.open(kept.fileId)), unavailable);
      await assert.rejects(guard(store.put(join(dir, 'second.txt'), { fileName: 'second.txt', mimeType: 'text/plain', retentionMs: 3600_000 })), unavailable);
    } finally {
      s3.resume();
      store.close();
    }
    assert.equal((await t.services.store.get(kept.fileId))?.fileName, 'small.txt', 'the file is there once the storage answers again');
    await t.services.files.removeWorkDir(dir);
  });
});
