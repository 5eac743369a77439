// An expired download link says how long links live on this server (DOWNLOAD_URL_TTL_SECONDS),
// not a fixed hour.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeDuration } from '../../src/rest/file-routes.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('link_expired names the configured lifetime', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { DOWNLOAD_URL_TTL_SECONDS: '1800' } });
  });
  after(() => t.close());

  it('a genuine link past its time answers 410 link_expired with "30 minutes"', async () => {
    const past = Math.floor(Date.now() / 1000) - 5;
    const url = new URL(t.services.signer.url('http://localhost:8080', 'f_0123456789abcdef', 'report.pdf', past));
    const res = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    assert.equal(res.statusCode, 410);
    const body = res.json() as { error: string; detail: string };
    assert.equal(body.error, 'link_expired');
    assert.equal(body.detail, 'Links are valid for 30 minutes; run the conversion again for a new one');
  });

  it('reads durations as a person would', () => {
    assert.deepEqual([3600, 7200, 1800, 60, 90, 45].map(describeDuration), ['1 hour', '2 hours', '30 minutes', '1 minute', '90 seconds', '45 seconds']);
  });
});
