// FILE_STORE=s3:// through the real app: two apps with their own DATA_DIR on one database, one
// signing secret and one bucket are two nodes. A conversion on one stores its result as an object
// in the bucket (the download is those very bytes), its downloadUrl downloads through the other,
// a {fileId} source on the other reads it from the bucket (never for another account), the
// sweeper deletes expired objects from the bucket, and a storage outage is a 503, refunded.
// The bucket is a real S3-compatible server (s3rver, test/support/s3-server.ts) on loopback.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { S3StoreSettings } from '../../src/files/s3-settings.ts';
import { s3Client } from '../../src/files/s3-file-store.ts';
import { json, listen, upload } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';
import { startS3Server, type S3Server } from '../support/s3-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const TXT_TO_MD = '/api/v1/documents/txt-to-md';
const PREFIX = 'nodes/results';
const SECRET = 's3-two-nodes-signing-secret-0123456789abcdef';

describe('results in S3 (FILE_STORE=s3://)', () => {
  let s3: S3Server;
  let one: TestApp;
  let two: TestApp;
  let baseOne: string;
  let baseTwo: string;
  let bucket: S3Client;
  let account: { accountId: string; apiKey: string };

  before(async () => {
    s3 = await startS3Server();
    one = await startTestApp({ env: { ...s3.env(PREFIX), FILE_SIGNING_SECRET: SECRET } });
    // The second node: its own DATA_DIR (no shared disk), the same database, secret and bucket.
    two = await startTestApp({ env: { ...s3.env(PREFIX), FILE_SIGNING_SECRET: SECRET, DATABASE_URL: one.config.databaseUrl } });
    baseOne = await listen(one);
    baseTwo = await listen(two);
    bucket = s3Client(one.config.fileStore as S3StoreSettings);
    account = await one.account({ quota: 1000 });
  });
  after(async () => {
    bucket?.destroy();
    await two?.close();
    await one?.close();
    await s3?.stop();
  });

  const used = async (accountId: string) => {
    await one.services.usage.flush();
    await two.services.usage.flush();
    return one.services.accounts.usedCredits(accountId);
  };
  const convert = async (base: string, text: string, name = 'notes.txt') => {
    const res = await upload(base, TXT_TO_MD, account.apiKey, { name, content: text });
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.result as { fileId: string; downloadUrl: string; fileName: string; sizeBytes: number };
  };
  const download = (base: string, downloadUrl: string) => {
    const link = new URL(downloadUrl);
    return fetch(`${base}${link.pathname}${link.search}`);
  };
  const object = async (fileId: string) => {
    const answer = await bucket.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `${PREFIX}/${fileId}` }));
    return { bytes: Buffer.from(await answer.Body!.transformToByteArray()), metadata: answer.Metadata ?? {}, type: answer.ContentType };
  };
  const exists = async (fileId: string) =>
    bucket.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `${PREFIX}/${fileId}` })).then(
      () => true,
      (err: { $metadata?: { httpStatusCode?: number } }) => {
        if (err.$metadata?.httpStatusCode === 404) return false;
        throw err;
      },
    );

  it('stores a conversion result as an object under the prefix, and the download is its bytes', async () => {
    const result = await convert(baseOne, 'Quarterly notes\n\nSales rose in *every* region.\n', 'résumé 2026.txt');
    const stored = await object(result.fileId);
    assert.equal(stored.bytes.toString('utf8'), 'Quarterly notes\n\nSales rose in \\*every\\* region.\n');
    assert.equal(stored.bytes.length, result.sizeBytes);
    assert.equal(stored.metadata['owner-id'], account.accountId);
    assert.equal(decodeURIComponent(stored.metadata['file-name'] ?? ''), 'résumé 2026.md');
    assert.match(String(stored.type), /^text\/markdown/);
    const res = await download(baseOne, result.downloadUrl);
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), stored.bytes);
    // Nothing on the node's own disk: the bucket is the store.
    assert.equal(existsSync(join(one.dataDir, 'files')), false);
  });

  it('downloads through the other node, streamed from the bucket with the same headers', async () => {
    const result = await convert(baseOne, 'Minutes of the board meeting\n', 'board minutes.txt');
    const res = await download(baseTwo, result.downloadUrl);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-length'), String(result.sizeBytes));
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="board minutes.md"; filename*=UTF-8''board%20minutes.md`);
    assert.match(String(res.headers.get('content-type')), /^text\/markdown/);
    assert.equal(res.headers.get('cache-control'), 'private, no-store');
    assert.equal(await res.text(), 'Minutes of the board meeting\n');
    // The link is still the service's own, checked by whichever node gets it.
    const forged = new URL(result.downloadUrl);
    forged.searchParams.set('signature', 'x'.repeat(43));
    assert.equal((await download(baseTwo, forged.toString())).status, 403);
  });

  it("reads a {fileId} source from the bucket on the other node; another account's is not found, uncharged", async () => {
    const first = await convert(baseOne, 'Agenda\n\nItem one: budget.\n', 'agenda.txt');
    const connect = async (apiKey: string) => {
      const client = new Client({ name: 's3-client', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${baseTwo}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
      return client;
    };
    const mine = await connect(account.apiKey);
    try {
      const again = await mine.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, file: { fileId: first.fileId } } });
      assert.equal(again.isError, undefined, JSON.stringify(answerOf(again)));
      const result = (answerOf(again) as { result: { fileId: string; fileName: string; downloadUrl: string } }).result;
      assert.equal(result.fileName, 'agenda.md');
      // Node two has no copy on its disk (its own DATA_DIR): the source came from the bucket.
      assert.equal((await object(result.fileId)).bytes.toString('utf8'), 'Agenda\n\nItem one: budget.\n');
      assert.equal(await (await download(baseOne, result.downloadUrl)).text(), 'Agenda\n\nItem one: budget.\n');
    } finally {
      await mine.close();
    }

    const other = await one.account({ quota: 100 });
    const stranger = await connect(other.apiKey);
    try {
      const refused = await stranger.callTool({ name: 'invoke_tool', arguments: { operationId: 'documents_txt_to_md', input: {}, file: { fileId: first.fileId } } });
      assert.equal(refused.isError, true);
      assert.equal(answerOf(refused)['error'], 'file_not_found');
      assert.equal(await used(other.accountId), 0);
    } finally {
      await stranger.close();
    }
  });

  it('answers 503 storage_unavailable, refunded, while the storage is down, and serves again once it is back', async () => {
    const earlier = await convert(baseOne, 'Kept through the outage\n');
    const before = await used(account.accountId);
    await s3.kill();
    try {
      const res = await upload(baseOne, TXT_TO_MD, account.apiKey, { name: 'down.txt', content: 'Converted while the storage is down\n' });
      const body = await json(res);
      assert.equal(res.status, 503, JSON.stringify(body));
      assert.equal(body.error, 'storage_unavailable');
      assert.equal(res.headers.get('retry-after'), '5');
      assert.equal(await used(account.accountId), before, 'the failed call is refunded');
      const gone = await download(baseTwo, earlier.downloadUrl);
      assert.equal(gone.status, 503, 'an outage is not answered as a deleted file');
      assert.equal((await json(gone)).error, 'storage_unavailable');
    } finally {
      await s3.restart();
    }
    assert.equal(await (await download(baseTwo, earlier.downloadUrl)).text(), 'Kept through the outage\n');
    await convert(baseOne, 'After the outage\n');
  });

  it("the sweeper deletes expired results from the bucket, and leaves other nodes' unexpired ones", async () => {
    const kept = await convert(baseOne, 'Kept for a day\n');
    // A node whose results live 2 seconds: its own sweeper (every second) deletes them from the bucket.
    const brief = await startTestApp({ env: { ...s3.env(PREFIX), FILE_SIGNING_SECRET: SECRET, FILE_RETENTION_HOURS: String(2 / 3600) } });
    try {
      const base = await listen(brief);
      const { apiKey } = await brief.account({ quota: 100 });
      const res = await upload(base, TXT_TO_MD, apiKey, { name: 'brief.txt', content: 'Gone soon\n' });
      assert.equal(res.status, 200);
      const { result } = await json(res);
      // Polled, not slept: a hang guard, not a clock the test races.
      const deadline = Date.now() + 120_000;
      while (await exists(result.fileId)) {
        assert.ok(Date.now() < deadline, 'the object was not deleted within 120 s');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const after = await download(base, result.downloadUrl);
      assert.equal(after.status, 410);
      assert.equal((await json(after)).error, 'file_gone');
      // The same sweep looked at the other node's object and left it: its own deleteAt is a day away.
      assert.equal(await exists(kept.fileId), true);
    } finally {
      await brief.close();
    }
  });
});
