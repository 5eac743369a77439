// Issue 8, item 1: no pandoc route reads a file outside its job. Every vector (percent-encoded,
// double-encoded, absolute, file: URL, `..` traversal, backslashes) in every form a document can
// name a file (markdown image, <img>, <link rel=stylesheet>, <iframe>, <embed>, <object>, <video
// poster>, <source>) is sent through HTTP to every pandoc route; the canaries put in DATA_DIR and in
// the server's environment, /etc/passwd and the signing secret never show up in a result.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { listZipEntries, readEntry } from '../../src/files/zip-inspect.ts';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp } from '../support/file-app.ts';
import { downloadResult, json, upload } from '../support/http.ts';
import { sourceFile } from '../support/documents.ts';

const run = promisify(execFile);
const fileCanary = `file-canary-${randomBytes(12).toString('hex')}`;
const envCanary = `env-canary-${randomBytes(12).toString('hex')}`;

/** Every way a document names one file, for `target` given as an absolute path. */
function vectors(target: string, dataDir: string): string[] {
  const fromJob = target.startsWith(dataDir) ? `../..${target.slice(dataDir.length)}` : `../../../../../../../..${target}`;
  const percent = (s: string) => s.replace(/[./]/g, (c) => (c === '.' ? '%2e' : '%2F'));
  return [
    target,
    `file://${target}`,
    `file:${target}`,
    fromJob,
    fromJob.replace(/\//g, '\\'),
    percent(fromJob),
    percent(target),
    percent(fromJob).replace(/%/g, '%25'),
    percent(target).replace(/%/g, '%25'),
    `./${fromJob}`,
  ];
}

function markdownWith(refs: string[]): string {
  const lines = ['# Probe', ''];
  refs.forEach((ref, i) => {
    lines.push(`![caption-${i}](${ref})`, '', `<img src="${ref}" alt="raw-${i}">`, '', `<iframe src="${ref}"></iframe>`, '');
  });
  lines.push(`<link rel="stylesheet" href="${refs[0]}">`, '', 'End of probe', '');
  return lines.join('\n');
}

function htmlWith(refs: string[]): string {
  const tags = refs.map(
    (ref, i) =>
      `<p>para-${i}</p><img src="${ref}" alt="caption-${i}"><iframe src="${ref}"></iframe><embed src="${ref}"><object data="${ref}"></object>` +
      `<video poster="${ref}"><source src="${ref}"></video><link rel="stylesheet" href="${ref}">`,
  );
  return `<!doctype html><html><head><link rel="stylesheet" href="${refs[0]}"><title>Probe</title></head><body><h1>Probe</h1>${tags.join('\n')}<p>End of probe</p></body></html>`;
}

/** All bytes a result holds: every zip entry (word/media too) or the file itself, and its text. */
async function resultBytes(format: string, content: Buffer): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'local-file-read-'));
  try {
    const file = join(dir, `result.${format}`);
    writeFileSync(file, content);
    if (format === 'docx') {
      const zip = await listZipEntries(file);
      assert.ok(zip.entries.length > 0);
      const parts: string[] = [];
      for (const entry of zip.entries) parts.push(`${entry.name}\n${(await readEntry(file, entry, 64 * 1024 * 1024)).toString('latin1')}`);
      return parts.join('\n');
    }
    if (format === 'pdf') return `${content.toString('latin1')}\n${(await run('pdftotext', ['-enc', 'UTF-8', file, '-'])).stdout}`;
    return content.toString('utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('no pandoc route reads a local file (issue 8, item 1)', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  let secret: string;
  let targets: string[];

  before(async () => {
    process.env.LOCAL_FILE_READ_CANARY = envCanary;
    ({ t, base, apiKey } = await startFileApp());
    secret = readFileSync(join(t.dataDir, 'signing-secret'), 'utf8').trim();
    assert.ok(secret.length >= 16, 'the signing secret exists');
    // Next to bootstrap-key and signing-secret, as a picture would be named.
    writeFileSync(join(t.dataDir, 'canary.png'), `${fileCanary}\n`);
    targets = [join(t.dataDir, 'canary.png'), join(t.dataDir, 'signing-secret'), '/etc/passwd', '/proc/self/environ', join(t.dataDir, 'tool-service.db')];
  });

  after(async () => {
    delete process.env.LOCAL_FILE_READ_CANARY;
    await t?.close();
  });

  function assertClean(route: string, text: string): void {
    assert.ok(!text.includes(fileCanary), `${route}: holds the DATA_DIR canary`);
    assert.ok(!text.includes(envCanary), `${route}: holds the server's environment`);
    assert.ok(!text.includes(secret), `${route}: holds the signing secret`);
    assert.doesNotMatch(text, /root:x:0:0/, `${route}: holds /etc/passwd`);
    assert.doesNotMatch(text, /SQLite format 3/, `${route}: holds the database`);
  }

  async function convert(route: string, name: string, content: string | Buffer, to: string): Promise<string> {
    const res = await upload(base, `/api/v1/documents/${route}`, apiKey, { name, content });
    const body = await json(res);
    assert.equal(res.status, 200, `${route}: ${JSON.stringify(body)}`);
    return resultBytes(to, await downloadResult(base, body, route));
  }

  const markdownRoutes = [
    ['md-to-docx', 'docx'],
    ['md-to-html', 'html'],
    ['md-to-txt', 'txt'],
    ['md-to-pdf', 'pdf'],
  ] as const;
  for (const [route, to] of markdownRoutes) {
    it(`${route}: markdown images, raw <img>, <iframe> and <link> to DATA_DIR, /etc/passwd and /proc stay unread`, async () => {
      const refs = targets.flatMap((target) => vectors(target, t.dataDir));
      const text = await convert(route, 'probe.md', markdownWith(refs), to);
      assertClean(route, text);
      assert.match(text, /End of probe/, `${route}: the document itself was converted`);
      if (to === 'docx') {
        assert.match(text, /caption-0/, 'the caption of a dropped image stays');
        assert.doesNotMatch(text, /^word\/media\//m, 'no media embedded');
      }
    });
  }

  const htmlRoutes = [
    ['html-to-docx', 'docx'],
    ['html-to-md', 'md'],
    ['html-to-txt', 'txt'],
  ] as const;
  for (const [route, to] of htmlRoutes) {
    it(`${route}: <img>, <iframe>, <embed>, <object>, <video>, <source> and <link> to local files stay unread`, async () => {
      const refs = targets.flatMap((target) => vectors(target, t.dataDir));
      const text = await convert(route, 'probe.html', htmlWith(refs), to);
      assertClean(route, text);
      assert.match(text, /End of probe/, `${route}: the document itself was converted`);
      if (to === 'docx') assert.doesNotMatch(text, /^word\/media\//m, 'no media embedded');
    });
  }

  it('pdf-to-docx and the docx readers (docx-to-html, -md, -txt) leak nothing either', async () => {
    const refs = vectors(join(t.dataDir, 'canary.png'), t.dataDir).slice(0, 4);
    const pdf = await sourceFile('pdf', `Probe ${refs.map((ref) => `<img src="${ref}">`).join(' ')}`);
    assertClean('pdf-to-docx', await convert('pdf-to-docx', 'probe.pdf', pdf.content, 'docx'));
    const docx = await sourceFile('docx', `Probe ![x](${refs[0]}) <img src="${refs[3]}">`);
    for (const [route, to] of [['docx-to-html', 'html'], ['docx-to-md', 'md'], ['docx-to-txt', 'txt']] as const) {
      const text = await convert(route, 'probe.docx', docx.content, to);
      assertClean(route, text);
      assert.match(text, /Probe/, route);
    }
  });

  it('answers 422 document_too_complex, as JSON, for a nesting bomb on a pandoc route', async () => {
    const bombs: [string, string, string][] = [
      ['md-to-docx', 'quotes.md', `${'>'.repeat(50_000)} deep\n`],
      ['md-to-html', 'lists.md', Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n')],
      ['md-to-txt', 'emphasis.md', `${'*_'.repeat(10_000)}x${'_*'.repeat(10_000)}\n`],
      ['html-to-docx', 'divs.html', `<html><body>${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}</body></html>`],
    ];
    for (const [route, name, content] of bombs) {
      const res = await upload(base, `/api/v1/documents/${route}`, apiKey, { name, content });
      const body = await json(res);
      assert.equal(res.status, 422, `${route} ${name}: ${JSON.stringify(body)}`);
      assert.equal(body.error, 'document_too_complex', name);
      assert.equal(body.status, false);
      assert.match(body.message, /at most \d+ levels/, name);
      assert.equal(typeof body.requestId, 'string');
    }
  });
});
