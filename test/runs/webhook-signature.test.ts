// Webhook signatures against the Standard Webhooks published vector and against HMACs computed
// here with node:crypto; the sealing of stored secrets; the fetcher's POST bounds.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { EMPTY_POLICY } from '../../src/analysis/egress-policy.ts';
import { fetchPage } from '../../src/analysis/fetcher.ts';
import { SecretBox, signWebhook, verifyWebhookSignature, webhookHeaders } from '../../src/runs/webhook-signature.ts';

describe('webhook signatures', () => {
  it('matches the Standard Webhooks published vector', () => {
    const headers = { 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' };
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    assert.equal(signWebhook(secret, headers['webhook-id'], 1614265330, '{"test": 2432232314}'), headers['webhook-signature']);
    assert.equal(verifyWebhookSignature({ secret, headers, body: '{"test": 2432232314}', nowSeconds: 1614265330 }), true);
  });

  it('signs "id.timestamp.body" with HMAC-SHA256 under the decoded secret, and refuses tampering, a wrong secret and an old timestamp', () => {
    const key = randomBytes(32);
    const secret = `whsec_${key.toString('base64')}`;
    const body = JSON.stringify({ id: 'e1', type: 'mcp.job.finished', data: { runId: 'r' } });
    const expected = `v1,${createHmac('sha256', key).update(`evt_1.1700000000.${body}`).digest('base64')}`;
    const headers = webhookHeaders(secret, 'evt_1', 1700000000, body);
    assert.deepEqual(headers, { 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000', 'webhook-signature': expected });
    const now = 1700000000 + 60;
    assert.equal(verifyWebhookSignature({ secret, headers, body, nowSeconds: now }), true);
    assert.equal(verifyWebhookSignature({ secret, headers, body: Buffer.from(body), nowSeconds: now }), true);
    assert.equal(verifyWebhookSignature({ secret, headers, body: body.replace('"r"', '"s"'), nowSeconds: now }), false);
    assert.equal(verifyWebhookSignature({ secret: `whsec_${randomBytes(32).toString('base64')}`, headers, body, nowSeconds: now }), false);
    assert.equal(verifyWebhookSignature({ secret, headers: { ...headers, 'webhook-id': 'evt_2' }, body, nowSeconds: now }), false);
    assert.equal(verifyWebhookSignature({ secret, headers, body, nowSeconds: 1700000000 + 301 }), false);
    assert.equal(verifyWebhookSignature({ secret, headers: { ...headers, 'webhook-signature': `v1,AAAA ${expected}` }, body, nowSeconds: now }), true);
    assert.equal(verifyWebhookSignature({ secret, headers: { 'webhook-id': 'evt_1' }, body, nowSeconds: now }), false);
  });

  it('seals stored secrets: only the same service secret opens them', () => {
    const box = new SecretBox('service-secret-1');
    const sealed = box.seal('whsec_abc');
    assert.ok(!sealed.includes('whsec_abc'));
    assert.equal(box.open(sealed), 'whsec_abc');
    assert.throws(() => new SecretBox('service-secret-2').open(sealed));
  });
});

describe('the fetcher POST', () => {
  it('sends a body only with POST, within its cap', async () => {
    await assert.rejects(fetchPage('https://example.com/', { policy: EMPTY_POLICY, method: 'POST' }), /a POST needs a body/);
    await assert.rejects(fetchPage('https://example.com/', { policy: EMPTY_POLICY, body: { data: '{}', contentType: 'application/json' } }), /only with POST, not GET/);
    await assert.rejects(fetchPage('https://example.com/', { policy: EMPTY_POLICY, method: 'POST', body: { data: Buffer.alloc(300 * 1024), contentType: 'application/json' } }), /over the 262144-byte cap/);
    // The egress rules still apply to a POST.
    await assert.rejects(fetchPage('http://127.0.0.1:9/', { policy: EMPTY_POLICY, method: 'POST', body: { data: '{}', contentType: 'application/json' } }), (e: { error?: string }) => e.error === 'url_not_allowed');
  });
});
