// The webhooks page over real HTTP with cookies, as a browser sends it: add (the signing secret
// once, on the POST's own answer, and it signs a test event a loopback receiver verifies), the
// list with the last delivery, a test event (the receiver's answer code on the page), each
// webhook's recent deliveries (a 204 and a 500 with their codes; 60 sent keep 50), delete after
// confirmation, the REST API's refusals on the form (a private URL, the 5-per-account limit) with
// the field named and the values kept, CSRF, and another account's webhook id as not found. The
// receiver is `hooks.test`, pinned to loopback and opened by EGRESS_ALLOW as test/mcp/runs.test.ts does.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { verifyWebhookSignature } from '../../src/runs/webhook-signature.ts';
import { startHttpSite, type TestSite } from '../analysis/support/test-sites.ts';
import { dashboardApp, getPage, postFields, secretIn, signedInWithToken, submit } from './support/dashboard-client.ts';

const SECRET = /whsec_[A-Za-z0-9+/=]+/g;
const EGRESS = { EGRESS_ALLOW: 'hooks.test', EGRESS_RESOLVE: 'hooks.test:127.0.0.1' };

describe('dashboard webhooks', () => {
  const app = dashboardApp({ env: EGRESS });
  const session = () => signedInWithToken(app, 'hooks', '/dashboard/webhooks');
  let hook: TestSite;
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  /** what the receiver answers next */
  let answer = 204;

  before(async () => {
    // The request is recorded before it is answered, and the test delivery is awaited by the
    // page's POST: once the page is in, the receiver has it.
    hook = await startHttpSite((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answer).end();
      });
    });
  });
  after(() => hook?.close());

  const hookUrl = (path: string) => `http://hooks.test:${hook.port}${path}`;

  const add = (s: { cookie: string; token: string }, entries: [string, string][]) => submit(app.base, '/dashboard/webhooks', s, entries);

  it('needs a session, and is linked from the nav', async () => {
    const page = await getPage(app.base, '/dashboard/webhooks');
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), '/dashboard/sign-in');
    const s = await session();
    const overview = await (await getPage(app.base, '/dashboard', s.cookie)).text();
    assert.match(overview, /<a href="\/dashboard\/webhooks">Webhooks<\/a>/);
    const list = await (await getPage(app.base, '/dashboard/webhooks', s.cookie)).text();
    assert.match(list, /<a href="\/dashboard\/webhooks" aria-current="page">Webhooks<\/a>/);
    assert.match(list, /<input type="checkbox" name="events" value="mcp\.job\.finished" checked>/);
    assert.match(list, /No webhooks yet\./);
  });

  it('adds a webhook: the secret once on the POST answer (no-store, no redirect), and a test event it signs is verified by the receiver; the list shows the delivery', async () => {
    const s = await session();
    const { res, page } = await add(s, [['url', hookUrl('/added')], ['events', 'mcp.job.finished'], ['description', 'build <bot>']]);
    assert.equal(res.status, 201, page);
    assert.equal(res.headers.get('location'), null);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(page, /Store it now; it is not shown again\./);
    assert.ok(page.includes('build &lt;bot&gt;'), 'the description is escaped');
    assert.match(page, /<script type="module" src="\/dashboard\/assets\/copy-secret\.[0-9a-f]{12}\.js"><\/script>/);
    const secret = secretIn(page, SECRET);

    const [webhook] = await app.t.services.webhooks.store.list(s.accountId);
    assert.ok(webhook);
    assert.deepEqual({ url: webhook.url, events: webhook.events, description: webhook.description }, { url: hookUrl('/added'), events: ['mcp.job.finished'], description: 'build <bot>' });

    const list = await (await getPage(app.base, '/dashboard/webhooks', s.cookie)).text();
    assert.ok(!list.includes(secret) && !/whsec_/.test(list), 'the list never shows a secret');
    assert.ok(list.includes(`<th scope="row"><code>${hookUrl('/added')}</code></th>`));
    assert.match(list, /None yet/);

    answer = 204;
    const before = received.length;
    const tested = await postFields(app.base, `/dashboard/webhooks/${webhook.id}/test`, [['_csrf', s.token]], s.cookie);
    const result = await tested.text();
    assert.equal(tested.status, 200, result);
    assert.match(result, /<h1>Test event delivered<\/h1>/);
    assert.match(result, /<dt>Response code<\/dt><dd>204<\/dd>/);
    assert.equal(received.length, before + 1, 'the receiver got one request');
    const delivery = received.at(-1)!;
    assert.equal(delivery.path, '/added');
    assert.equal(verifyWebhookSignature({ secret, headers: delivery.headers as never, body: delivery.body }), true, 'signed with the secret the page showed');
    assert.equal(JSON.parse(delivery.body).type, 'webhook.test');
    assert.ok(result.includes(String(delivery.headers['webhook-id'])), 'the page names the event id');

    const after = await (await getPage(app.base, '/dashboard/webhooks', s.cookie)).text();
    assert.match(after, /<span class="status active">delivered<\/span> HTTP 204 <code>webhook\.test<\/code>/);
  });

  it('shows a test event the receiver refused, with its response code', async () => {
    const s = await session();
    const { res } = await add(s, [['url', hookUrl('/refusing')]]);
    assert.equal(res.status, 201);
    const [webhook] = await app.t.services.webhooks.store.list(s.accountId);
    assert.ok(webhook);
    assert.deepEqual(webhook.events, ['mcp.job.finished'], 'no box checked is the default event');
    answer = 418;
    try {
      const tested = await postFields(app.base, `/dashboard/webhooks/${webhook.id}/test`, [['_csrf', s.token]], s.cookie);
      const result = await tested.text();
      assert.equal(tested.status, 200);
      assert.match(result, /<h1>Test event not delivered<\/h1>/);
      assert.match(result, /<dt>Response code<\/dt><dd>418<\/dd>/);
    } finally {
      answer = 204;
    }
    const list = await (await getPage(app.base, '/dashboard/webhooks', s.cookie)).text();
    assert.match(list, /<span class="status revoked">failed<\/span> HTTP 418/);
  });

  /** The rows of a deliveries page's table, each as its cells' texts. */
  function deliveryRows(page: string): string[][] {
    const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
    return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
      [...m[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => c[1]!.replace(/<br>/g, ' ').replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim()),
    );
  }

  it('lists the recent deliveries on the webhook’s page: a 204 then a 500, newest first, with code, outcome and duration', async () => {
    const s = await session();
    assert.equal((await add(s, [['url', hookUrl('/history')], ['description', 'history <hook>']])).res.status, 201);
    const [webhook] = await app.t.services.webhooks.store.list(s.accountId);
    assert.ok(webhook);
    const empty = await getPage(app.base, `/dashboard/webhooks/${webhook.id}`, s.cookie);
    assert.equal(empty.status, 200);
    assert.equal(empty.headers.get('cache-control'), 'no-store');
    assert.match(await empty.text(), /No deliveries yet\./);

    const eventIds: string[] = [];
    for (const code of [204, 500]) {
      answer = code;
      try {
        const tested = await postFields(app.base, `/dashboard/webhooks/${webhook.id}/test`, [['_csrf', s.token]], s.cookie);
        const result = await tested.text();
        assert.equal(tested.status, 200);
        assert.ok(result.includes(`<a href="/dashboard/webhooks/${webhook.id}">Recent deliveries</a>`), 'the result links the history');
        eventIds.push(String(received.at(-1)?.headers['webhook-id']));
      } finally {
        answer = 204;
      }
    }
    const list = await (await getPage(app.base, '/dashboard/webhooks', s.cookie)).text();
    assert.ok(list.includes(`<a href="/dashboard/webhooks/${webhook.id}">Recent deliveries<span class="visually-hidden"> of history &lt;hook&gt;</span></a>`), 'the list links each webhook’s deliveries');

    const res = await getPage(app.base, `/dashboard/webhooks/${webhook.id}`, s.cookie);
    const page = await res.text();
    assert.equal(res.status, 200);
    assert.ok(page.includes('history &lt;hook&gt;'), 'the description is escaped');
    const rows = deliveryRows(page);
    assert.equal(rows.length, 2, page);
    const [newest, oldest] = rows as [string[], string[]];
    assert.match(newest[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/, 'when');
    assert.deepEqual(newest.slice(1, 5), [`webhook.test ${eventIds[1]}`, '1', 'failed the receiver answered HTTP 500', '500']);
    assert.deepEqual(oldest.slice(1, 5), [`webhook.test ${eventIds[0]}`, '1', 'delivered', '204']);
    for (const row of rows) assert.match(row[5]!, /^\d+ ms$/, 'the duration');
    assert.ok(!/whsec_/.test(page), 'no secret on the page');
  });

  it('keeps the last 50 deliveries of a webhook: after 60, the 10 oldest are gone', async () => {
    const s = await session();
    assert.equal((await add(s, [['url', hookUrl('/many')]])).res.status, 201);
    const [webhook] = await app.t.services.webhooks.store.list(s.accountId);
    assert.ok(webhook);
    const sent: string[] = [];
    for (let i = 0; i < 60; i++) {
      const report = await app.t.services.webhooks.sendTest(s.accountId, webhook.id);
      assert.equal(report.outcome, 'delivered');
      sent.push(report.eventId);
    }
    const kept = await app.t.services.db.selectFrom('webhook_deliveries').select('event_id').where('webhook_id', '=', webhook.id).orderBy('id').execute();
    assert.deepEqual(
      kept.map((r) => r.event_id),
      sent.slice(10),
    );
    const page = await (await getPage(app.base, `/dashboard/webhooks/${webhook.id}`, s.cookie)).text();
    const rows = deliveryRows(page);
    assert.equal(rows.length, 50);
    assert.equal(rows[0]![1], `webhook.test ${sent[59]}`, 'newest first');
    assert.equal(rows[49]![1], `webhook.test ${sent[10]}`);
  });

  it('deletes after the confirmation box: without it the page asks again and nothing is deleted', async () => {
    const s = await session();
    assert.equal((await add(s, [['url', hookUrl('/to-delete')]])).res.status, 201);
    const [webhook] = await app.t.services.webhooks.store.list(s.accountId);
    assert.ok(webhook);
    const list = await (await getPage(app.base, '/dashboard/webhooks', s.cookie)).text();
    assert.ok(list.includes(`href="/dashboard/webhooks/${webhook.id}/delete"`));
    const confirm = await getPage(app.base, `/dashboard/webhooks/${webhook.id}/delete`, s.cookie);
    assert.equal(confirm.status, 200);
    assert.match(await confirm.text(), /<input type="checkbox" name="confirm" value="yes" required>/);

    const unconfirmed = await postFields(app.base, `/dashboard/webhooks/${webhook.id}/delete`, [['_csrf', s.token]], s.cookie);
    assert.equal(unconfirmed.status, 400);
    assert.match(await unconfirmed.text(), /Tick the box to confirm/);
    assert.equal((await app.t.services.webhooks.store.list(s.accountId)).length, 1);

    const deleted = await postFields(app.base, `/dashboard/webhooks/${webhook.id}/delete`, [['_csrf', s.token], ['confirm', 'yes']], s.cookie);
    assert.equal(deleted.status, 303);
    assert.equal(deleted.headers.get('location'), `/dashboard/webhooks?deleted=${webhook.id}`);
    assert.deepEqual(await app.t.services.webhooks.store.list(s.accountId), []);
    const after = await (await getPage(app.base, deleted.headers.get('location')!, s.cookie)).text();
    assert.match(after, /The webhook was deleted/);
    assert.match(after, /No webhooks yet\./);
  });

  it('refuses a private address and a bad URL on the form, naming the URL field and keeping the values', async () => {
    const s = await session();
    for (const url of ['https://127.0.0.1/hook', 'https://10.1.2.3/hook', 'http://localhost:8080/hook']) {
      const { res, page } = await add(s, [['url', url], ['description', 'kept <text>']]);
      assert.equal(res.status, 400, `${url}: ${page}`);
      assert.match(page, /<p id="webhook-error" class="notice error" role="alert">URL: /);
      assert.ok(page.includes(`value="${url}"`), 'the URL is kept');
      assert.ok(page.includes('value="kept &lt;text&gt;"'), 'the description is kept');
      assert.match(page, /id="webhook-url"[^>]* aria-invalid="true" aria-errormessage="webhook-error"/);
    }
    const bad = await add(s, [['url', 'not a url']]);
    assert.equal(bad.res.status, 400);
    assert.match(bad.page, /URL: /);
    const badEvent = await add(s, [['url', hookUrl('/x')], ['events', 'no.such.event']]);
    assert.equal(badEvent.res.status, 400);
    assert.match(badEvent.page, /Events: must be one of: mcp\.job\.finished/);
    assert.deepEqual(await app.t.services.webhooks.store.list(s.accountId), []);
  });

  it('refuses a sixth webhook (the REST limit) on the form, keeping the values', async () => {
    const s = await session();
    for (let i = 0; i < 5; i++) assert.equal((await add(s, [['url', hookUrl(`/n${i}`)]])).res.status, 201);
    const { res, page } = await add(s, [['url', hookUrl('/sixth')], ['description', 'one too many']]);
    assert.equal(res.status, 409);
    assert.match(page, /at most 5 webhooks/);
    assert.ok(page.includes(`value="${hookUrl('/sixth')}"`) && page.includes('value="one too many"'));
    assert.equal((await app.t.services.webhooks.store.list(s.accountId)).length, 5);
  });

  it('refuses an add without the CSRF token or from another site (403): nothing is made', async () => {
    const s = await session();
    const noToken = await postFields(app.base, '/dashboard/webhooks', [['url', hookUrl('/forged')]], s.cookie);
    assert.equal(noToken.status, 403);
    const foreign = await postFields(app.base, '/dashboard/webhooks', [['_csrf', s.token], ['url', hookUrl('/forged')]], s.cookie, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.deepEqual(await app.t.services.webhooks.store.list(s.accountId), []);
  });

  it('answers another account’s webhook id as not found, like an unknown id: neither tested, deleted nor its deliveries shown', async () => {
    const victim = await app.t.account();
    const { webhook } = await app.t.services.webhooks.store.create(victim.accountId, { url: hookUrl('/victim'), events: ['mcp.job.finished'] });
    assert.equal((await app.t.services.webhooks.sendTest(victim.accountId, webhook.id)).outcome, 'delivered', 'the victim’s webhook has a delivery to hide');
    const s = await session();
    const before = received.length;
    const answers: string[] = [];
    for (const id of [webhook.id, '00000000-0000-4000-8000-000000000000']) {
      const confirm = await getPage(app.base, `/dashboard/webhooks/${id}/delete`, s.cookie);
      const del = await postFields(app.base, `/dashboard/webhooks/${id}/delete`, [['_csrf', s.token], ['confirm', 'yes']], s.cookie);
      const test = await postFields(app.base, `/dashboard/webhooks/${id}/test`, [['_csrf', s.token]], s.cookie);
      const deliveries = await getPage(app.base, `/dashboard/webhooks/${id}`, s.cookie);
      assert.deepEqual([confirm.status, del.status, test.status, deliveries.status], [404, 404, 404, 404]);
      const texts = [await confirm.text(), await del.text(), await test.text(), await deliveries.text()];
      for (const text of texts) assert.ok(!text.includes('/victim'), 'nothing of the webhook is shown');
      answers.push(texts.join('\n'));
    }
    assert.equal(answers[0], answers[1], 'the same pages as for an id that does not exist');
    assert.equal(received.length, before, 'no test event was sent');
    assert.equal((await app.t.services.webhooks.store.list(victim.accountId)).length, 1);
  });
});
