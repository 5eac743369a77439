import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { downloadResult, json, listen, upload } from '../support/http.ts';
import { extractText, firstWordLeft, pdfInfo } from '../support/documents.ts';
import { docxBomb, encryptedOoxmlLike, encryptedPdf, minimalDocx, png, truncated, xxeDocx } from '../support/fixtures.ts';
import { commandOf, descendantsOf } from '../engines/support/tools.ts';
import type { EngineSupervisor, EngineWorker } from '../../src/engines/supervisor.ts';

const DOCX_TO_PDF = '/api/v1/documents/docx-to-pdf';
const HTML_TO_PDF = '/api/v1/documents/html-to-pdf';
const MM = 72 / 25.4;

/** Resolves when `owner`'s next job on the engine has its worker and runs. */
function jobStarted(supervisor: EngineSupervisor<EngineWorker>, owner: string): Promise<void> {
  return new Promise((resolve) => {
    const off = supervisor.onJobStart((job) => {
      if (job.owner !== owner) return;
      off();
      resolve();
    });
  });
}

/** A loopback HTTP server that counts every request: any hit means an engine reached out. */
async function tripwire(): Promise<{ server: Server; url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('gotcha');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}`, hits };
}

describe('PDF options, bad input and hostile documents, through HTTP', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  let accountId: string;
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    ({ apiKey, accountId } = await t.account({ plan: 'business', quota: 100_000 }));
  });
  after(() => t.close());

  it('honours page_size, orientation and margin on html-to-pdf: the page box and the text position prove it', async () => {
    const html = Buffer.from('<!doctype html><html><body style="margin:0"><p style="margin:0">Margins are measured here</p></body></html>');
    const a5 = await upload(base, HTML_TO_PDF, apiKey, { name: 'page.html', content: html }, { page_size: 'A5', orientation: 'landscape', margin: '30mm' });
    const a5Pdf = await downloadResult(base, await json(a5));
    const a5Info = await pdfInfo(a5Pdf);
    assert.ok(Math.abs(a5Info.widthPt - 210 * MM) < 1 && Math.abs(a5Info.heightPt - 148 * MM) < 1, JSON.stringify(a5Info));
    assert.ok(Math.abs((await firstWordLeft(a5Pdf)) - 30 * MM) < 2, 'the text starts at the 30 mm margin');

    // The same options as query parameters.
    const letter = await upload(base, `${HTML_TO_PDF}?page_size=Letter&margin=1in`, apiKey, { name: 'page.html', content: html });
    const letterPdf = await downloadResult(base, await json(letter));
    const letterInfo = await pdfInfo(letterPdf);
    assert.ok(Math.abs(letterInfo.widthPt - 612) < 1 && Math.abs(letterInfo.heightPt - 792) < 1, JSON.stringify(letterInfo));
    assert.ok(Math.abs((await firstWordLeft(letterPdf)) - 72) < 2, 'the text starts at the 1 in margin');
  });

  it('honours page_size and orientation on docx-to-pdf and txt-to-pdf', async () => {
    const docx = await upload(base, DOCX_TO_PDF, apiKey, { name: 'a.docx', content: minimalDocx(['Legal landscape']) }, { page_size: 'Legal', orientation: 'landscape', margin: '15mm' });
    const info = await pdfInfo(await downloadResult(base, await json(docx)));
    assert.ok(Math.abs(info.widthPt - 355.6 * MM) < 1.5 && Math.abs(info.heightPt - 215.9 * MM) < 1.5, JSON.stringify(info));
    const txt = await upload(base, '/api/v1/documents/txt-to-pdf?page_size=A3', apiKey, { name: 'a.txt', content: 'A3 text' });
    const txtInfo = await pdfInfo(await downloadResult(base, await json(txt)));
    assert.ok(Math.abs(txtInfo.widthPt - 297 * MM) < 1 && Math.abs(txtInfo.heightPt - 420 * MM) < 1, JSON.stringify(txtInfo));
  });

  it('answers 400 naming the field for a bad page option, and lists the sizes', async () => {
    const res = await upload(base, HTML_TO_PDF, apiKey, { name: 'p.html', content: '<p>x</p>' }, { page_size: 'Napkin', margin: 'wide' });
    assert.equal(res.status, 400);
    const body = await json(res);
    const fields = body.issues.map((i: { field: string }) => i.field).sort();
    assert.deepEqual(fields, ['margin', 'page_size']);
    assert.ok(body.issues.find((i: { field: string }) => i.field === 'page_size').allowed.includes('Letter'));
    const unknown = await upload(base, '/api/v1/documents/docx-to-txt', apiKey, { name: 'a.docx', content: minimalDocx(['x']) }, { page_size: 'A4' });
    assert.equal(unknown.status, 400);
    assert.equal((await json(unknown)).issues[0].field, 'page_size');
  });

  const hostile: [string, () => Buffer, number, string][] = [
    ['an empty file', () => Buffer.alloc(0), 400, 'empty_file'],
    ['a truncated docx', () => truncated(minimalDocx(['cut short', 'x'.repeat(5000)]), 900), 422, 'corrupt_document'],
    ['a PNG claiming to be a docx', () => png(), 415, 'unsupported_file_type'],
    ['an encrypted (password-protected) docx', () => encryptedOoxmlLike(), 422, 'encrypted_document'],
    ['a document bomb (XML inflating to 1 GB)', () => docxBomb({ gigabytes: 1 }), 422, 'document_bomb'],
    ['a docx with an XML external entity', () => xxeDocx('file:///etc/passwd'), 422, 'unsafe_document'],
  ];
  for (const [name, make, status, error] of hostile) {
    it(`answers ${status} ${error} to ${name}, and the service stays up`, async () => {
      const res = await upload(base, DOCX_TO_PDF, apiKey, { name: 'input.docx', content: make() });
      const body = await json(res);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(body.error, error);
      assert.equal(body.status, false);
      assert.ok(body.detail.length > 10, 'the detail names the problem');
      const next = await upload(base, '/api/v1/documents/docx-to-txt', apiKey, { name: 'ok.docx', content: minimalDocx(['Still converting']) });
      assert.equal(next.status, 200);
    });
  }

  it('answers 422 for an encrypted PDF', async () => {
    const res = await upload(base, '/api/v1/documents/pdf-to-txt', apiKey, { name: 'locked.pdf', content: encryptedPdf() });
    assert.equal(res.status, 422);
    assert.equal((await json(res)).error, 'encrypted_document');
  });

  it('charges for a file the user got wrong (422) and not for one rejected up front (400/415)', async () => {
    const { apiKey: key, accountId: id } = await t.account({ quota: 100 });
    await upload(base, DOCX_TO_PDF, key, { name: 'e.docx', content: Buffer.alloc(0) });
    await upload(base, DOCX_TO_PDF, key, { name: 'p.docx', content: png() });
    assert.equal(await t.services.ledger.used(id), 0);
    const res = await upload(base, DOCX_TO_PDF, key, { name: 'x.docx', content: xxeDocx() });
    assert.equal(res.status, 422);
    assert.equal(await t.services.ledger.used(id), 3, 'docx-to-pdf costs 3 credits');
    void accountId;
  });

  it('converts a docx that links a loopback URL and file:///etc/passwd without touching either', async () => {
    const wire = await tripwire();
    try {
      for (const target of [`${wire.url}/image.png`, 'file:///etc/passwd']) {
        const docx = minimalDocx(['Linked content stays outside'], { linkedImageUrl: target, hyperlinkUrl: `${wire.url}/link` });
        const res = await upload(base, DOCX_TO_PDF, apiKey, { name: 'linked.docx', content: docx });
        const body = await json(res);
        assert.equal(res.status, 200, JSON.stringify(body));
        const text = await extractText('pdf', await downloadResult(base, body));
        assert.match(text, /Linked content stays outside/);
        assert.doesNotMatch(text, /root:x:0:0/);
      }
      assert.deepEqual(wire.hits, [], 'LibreOffice made no request');
    } finally {
      wire.server.close();
    }
  });

  it('renders HTML to PDF with no network: images, scripts, styles and fetches to loopback never leave', async () => {
    const wire = await tripwire();
    try {
      const html = `<!doctype html><html><head><link rel="stylesheet" href="${wire.url}/style.css"><script src="${wire.url}/script.js"></script></head>
        <body><p>Offline render</p><img src="${wire.url}/pixel.png"><iframe src="${wire.url}/frame"></iframe><img src="file:///etc/passwd">
        <script>fetch('${wire.url}/fetch').catch(() => {}); new Image().src = '${wire.url}/beacon';</script></body></html>`;
      const res = await upload(base, HTML_TO_PDF, apiKey, { name: 'page.html', content: html });
      const body = await json(res);
      assert.equal(res.status, 200, JSON.stringify(body));
      const text = await extractText('pdf', await downloadResult(base, body));
      assert.match(text, /Offline render/);
      assert.doesNotMatch(text, /gotcha|root:x:0:0/);
      assert.deepEqual(wire.hits, [], 'Chromium made no request');
    } finally {
      wire.server.close();
    }
  });

  it('keeps pandoc from reading local files through an image or include', async () => {
    const md = '# Notes\n\n![secret](/etc/passwd)\n\n![remote](file:///etc/passwd)\n\nVisible text\n';
    for (const path of ['/api/v1/documents/md-to-html', '/api/v1/documents/md-to-docx']) {
      const res = await upload(base, path, apiKey, { name: 'notes.md', content: md });
      const body = await json(res);
      assert.equal(res.status, 200, JSON.stringify(body));
      const content = await downloadResult(base, body);
      assert.doesNotMatch(content.toString('latin1'), /root:x:0:0/, path);
    }
  });

  it('recovers from a LibreOffice crash mid-job: that job gets 503 JSON, the next one succeeds', async () => {
    const { apiKey: key, accountId: id } = await t.account({ quota: 100 });
    // Warm the pool, then convert a long document and kill soffice while it works.
    assert.equal((await upload(base, DOCX_TO_PDF, key, { name: 'w.docx', content: minimalDocx(['warm']) })).status, 200);
    const usedBefore = await t.services.ledger.used(id);
    const long = minimalDocx(Array.from({ length: 25_000 }, (_, i) => `Paragraph ${i} of a long report that keeps LibreOffice busy for a while.`));
    // Kill once the job is known to run on its instance, not after a guess at how long that takes.
    const running = jobStarted(t.services.engines.libreoffice.supervisor, id);
    const pending = upload(base, DOCX_TO_PDF, key, { name: 'long.docx', content: long });
    await running;
    const offices = descendantsOf(process.pid).filter((pid) => commandOf(pid).includes('soffice.bin'));
    assert.ok(offices.length >= 1, 'soffice is running');
    for (const pid of offices) process.kill(pid, 'SIGKILL');
    const res = await pending;
    const body = await json(res);
    assert.equal(res.status, 503, JSON.stringify(body));
    assert.equal(body.error, 'engine_crashed');
    assert.equal(await t.services.ledger.used(id), usedBefore, 'the failed job is refunded');
    const next = await upload(base, DOCX_TO_PDF, key, { name: 'after.docx', content: minimalDocx(['After the crash']) });
    assert.equal(next.status, 200);
    assert.match(await extractText('pdf', await downloadResult(base, await json(next))), /After the crash/);
  });

  it('lists every engine with its version and state at /readyz', async () => {
    const ready = await json(await fetch(`${base}/readyz`));
    const names = ready.engines.map((e: { name: string }) => e.name).sort();
    assert.deepEqual(names, ['calibre', 'chromium', 'ffmpeg', 'image', 'libreoffice', 'pandoc', 'poppler', 'sevenzip']);
    for (const engine of ready.engines) {
      assert.match(engine.version ?? '', /\d+\.\d+/, `${engine.name} has a version`);
      assert.notEqual(engine.state, 'missing');
    }
  });
});

describe('a hung engine and a missing engine', () => {
  it('stops a job over the engine time limit with 422 document_too_complex JSON, charges it, and the next job succeeds', async () => {
    const t = await startTestApp({ env: { ENGINE_JOB_TIMEOUT_MS: '1500' } });
    try {
      const base = await listen(t);
      const { apiKey, accountId } = await t.account({ quota: 100 });
      const heavy = minimalDocx(Array.from({ length: 60_000 }, (_, i) => `Row ${i}: a long line of text that takes LibreOffice time to lay out on pages.`));
      const res = await upload(base, DOCX_TO_PDF, apiKey, { name: 'heavy.docx', content: heavy });
      const body = await json(res);
      // The engine was healthy and spent its whole time limit on this input: the input's fault, charged.
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(body.error, 'document_too_complex');
      assert.equal(body.status, false);
      assert.match(body.message, /LibreOffice could not finish this document within 1\.5 s/);
      assert.match(body.detail, /1500 ms/);
      assert.equal(await t.services.ledger.used(accountId), 3, 'docx-to-pdf costs 3 credits, kept');
      const next = await upload(base, DOCX_TO_PDF, apiKey, { name: 'small.docx', content: minimalDocx(['Back to work']) });
      assert.equal(next.status, 200);
    } finally {
      await t.close();
    }
  });

  it('answers 503 JSON naming the missing program, starts anyway, and shows it in /readyz', async () => {
    const t = await startTestApp({ env: { LIBREOFFICE_PROGRAM: '/nonexistent/soffice' } });
    try {
      const base = await listen(t);
      const { apiKey, accountId } = await t.account({ quota: 100 });
      const res = await upload(base, DOCX_TO_PDF, apiKey, { name: 'a.docx', content: minimalDocx(['x']) });
      const body = await json(res);
      assert.equal(res.status, 503, JSON.stringify(body));
      assert.equal(body.error, 'engine_unavailable');
      assert.match(`${body.message} ${body.detail}`, /LibreOffice|soffice/);
      assert.equal(await t.services.ledger.used(accountId), 0);
      const ready = await json(await fetch(`${base}/readyz`));
      assert.equal(ready.status, 'ready');
      assert.equal(ready.engines.find((e: { name: string }) => e.name === 'libreoffice').state, 'missing');
      const other = await upload(base, '/api/v1/documents/md-to-html', apiKey, { name: 'a.md', content: '# still up' });
      assert.equal(other.status, 200);
    } finally {
      await t.close();
    }
  });
});
