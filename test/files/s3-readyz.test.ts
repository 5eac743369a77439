// /readyz's storage check with FILE_STORE=s3://, on the real service process (its own log is what
// it writes) and a real S3-compatible server (s3rver) on loopback: ready while the bucket answers;
// 503 naming the storage when it hangs (paused: the probe still answers, the check's own timeout
// ends the wait) or refuses (killed); ready again when it is back. Neither the answers nor the
// log carry the storage's credentials. The local store's check is in local-file-store.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startS3Server, type S3Server } from '../support/s3-server.ts';
import { startServer, type Server } from '../support/server-process.ts';

interface Readyz {
  status: string;
  checks: Record<string, { state: string; detail?: string }>;
}

describe('/readyz with results in S3', () => {
  let s3: S3Server;
  let server: Server;
  let dataDir: string;
  let secrets: string[];
  const answers: string[] = [];

  before(async () => {
    s3 = await startS3Server();
    dataDir = mkdtempSync(join(tmpdir(), 'tool-service-s3-readyz-'));
    const env = s3.env('readyz');
    secrets = [env['AWS_ACCESS_KEY_ID'] ?? '', env['AWS_SECRET_ACCESS_KEY'] ?? ''];
    assert.ok(secrets.every((s) => s.length > 0));
    // debug: the most the service ever logs, so a credential in any line would show.
    server = await startServer(dataDir, { ...env, LOG_LEVEL: 'debug', FILE_SIGNING_SECRET: 's3-readyz-signing-secret-0123456789abcdef' });
  });
  after(async () => {
    await server?.kill('SIGTERM');
    await s3?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  // No clock here: each probe is awaited, and the check's own timeout is what ends a hung one.
  const readyz = async (): Promise<{ code: number; body: Readyz }> => {
    const res = await fetch(`${server.base}/readyz`);
    const text = await res.text();
    answers.push(text);
    return { code: res.status, body: JSON.parse(text) as Readyz };
  };

  it('is ready with checks.storage ready while the bucket answers', async () => {
    const { code, body } = await readyz();
    assert.equal(code, 200, JSON.stringify(body));
    assert.equal(body.status, 'ready');
    assert.deepEqual(body.checks['storage'], { state: 'ready' });
    assert.equal(body.checks['database']?.state, 'ready');
  });

  it('answers 503 with the storage check failed while the storage hangs, and ready once it answers', async () => {
    s3.pause();
    try {
      const { code, body } = await readyz();
      assert.equal(code, 503, JSON.stringify(body));
      assert.equal(body.status, 'not_ready');
      assert.equal(body.checks['storage']?.state, 'failed');
      assert.match(body.checks['storage']?.detail ?? '', /did not answer within \d+ ms/);
      assert.equal(body.checks['database']?.state, 'ready', 'only the storage is named');
    } finally {
      s3.resume();
    }
    const back = await readyz();
    assert.equal(back.code, 200, JSON.stringify(back.body));
    assert.deepEqual(back.body.checks['storage'], { state: 'ready' });
  });

  it('answers 503 naming the bucket while the storage refuses connections, and ready after its restart', async () => {
    await s3.kill();
    const { code, body } = await readyz();
    assert.equal(code, 503, JSON.stringify(body));
    assert.equal(body.checks['storage']?.state, 'failed');
    assert.match(body.checks['storage']?.detail ?? '', new RegExp(`^FILE_STORE bucket ${s3.bucket}: `));
    await s3.restart();
    const back = await readyz();
    assert.equal(back.code, 200, JSON.stringify(back.body));
    assert.deepEqual(back.body.checks['storage'], { state: 'ready' });
  });

  it('puts no credential in any answer or log line', () => {
    assert.equal(answers.length, 5, 'every probe above was kept');
    const log = server.output();
    assert.match(log, /"url":"\/readyz","statusCode":503/, 'the failed probes are in the log read here');
    for (const secret of secrets) {
      for (const text of answers) assert.ok(!text.includes(secret), `an answer holds a credential: ${text}`);
      assert.ok(!log.includes(secret), 'the log holds a credential');
    }
  });
});
