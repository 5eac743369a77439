import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listZipEntries, readEntry } from '../../src/files/zip-inspect.ts';
import { safeLinkTarget } from '../../src/engines/pandoc-active-content.ts';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp } from '../support/file-app.ts';
import { convertAndDownload } from '../support/http.ts';
import { minimalDocx } from '../support/fixtures.ts';

/**
 * Issue 8, item 4, for results that are not HTML but carry HTML of their own: Markdown passes link
 * targets, image attributes and raw HTML through, so whoever renders an html-to-md or docx-to-md
 * result would run what the source smuggled in. Hostile sources are generated here; the results,
 * downloaded over HTTP, keep their text and lose every vector.
 */

const HOSTILE_HTML = [
  '<h1>Release notes</h1>',
  '<p>Read the <a href="https://example.org/docs">docs</a>, then <a href="javascript:alert(1)">plain</a>,',
  '<a href="JaVa&#x09;script:alert(2)">tabbed</a>, <a href="&#106;avascript:alert(3)">entity</a>',
  'and <a href="vbscript:msgbox(4)">vb</a> and <a href="data:text/html;base64,PHNjcmlwdD4=">data</a>.</p>',
  '<p><img src="pic.png" alt="a picture" onerror="alert(5)" style="x:expression(alert(6))"></p>',
  '<p><span onclick="alert(7)" data-x="1">Click text</span></p>',
  '<script>alert(8)</script><iframe src="https://evil.example/"></iframe>',
  '<table><tr><td><p>Widget</p><p>42</p></td></tr></table>',
].join('\n');

/** What a Markdown (or any markup) result must not hold, whatever it was made from. */
function assertInertMarkup(text: string, label: string): void {
  for (const bad of ['javascript', 'vbscript', 'data:text', 'alert(', 'msgbox', 'onerror', 'onclick', 'expression', '<script', '<iframe', 'evil.example']) {
    assert.ok(!text.toLowerCase().includes(bad), `${label}: ${bad} survived in\n${text}`);
  }
}

describe('markup results carry no active content (issue 8, item 4)', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  const scratch = mkdtempSync(join(tmpdir(), 'markup-active-'));
  before(async () => {
    ({ t, base, apiKey } = await startFileApp());
  });
  after(async () => {
    await t?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const convert = (path: string, name: string, content: Buffer | string): Promise<Buffer> => convertAndDownload(base, path, apiKey, { name, content });

  async function zipText(content: Buffer): Promise<string> {
    const file = join(scratch, `result-${Date.now()}-${Math.random()}.zip`);
    writeFileSync(file, content);
    const zip = await listZipEntries(file);
    const parts: string[] = [];
    for (const entry of zip.entries) parts.push(`${entry.name}\n${(await readEntry(file, entry, 64 * 1024 * 1024)).toString('utf8')}`);
    return parts.join('\n');
  }

  it('judges link schemes after decoding and squeezing out white space', () => {
    for (const target of ['https://example.org/a', 'http://x', 'mailto:a@b.c', 'tel:+100', '#part', 'guide/intro.md', '../up.md', '?q=1']) {
      assert.equal(safeLinkTarget(target), true, target);
    }
    for (const target of ['javascript:alert(1)', 'JaVaScRiPt:x', 'java\tscript:x', ' java\nscript:x', 'java%09script:x', 'javascript%253Ax', 'vbscript:x', 'data:text/html,x', 'file:///etc/passwd']) {
      assert.equal(safeLinkTarget(target), false, target);
    }
  });

  it('html-to-md keeps the text, the table and the web link, and drops every vector', async () => {
    const md = (await convert('/api/v1/documents/html-to-md', 'notes.html', HOSTILE_HTML)).toString('utf8');
    assertInertMarkup(md, 'html-to-md');
    assert.match(md, /# Release notes/);
    assert.match(md, /\[docs\]\(https:\/\/example\.org\/docs\)/);
    for (const text of ['plain', 'tabbed', 'entity', 'vb', 'data', 'Click text', 'Widget', '42']) assert.ok(md.includes(text), `${text} was lost:\n${md}`);
  });

  it('docx-to-md drops a javascript: hyperlink and keeps its text', async () => {
    const docx = minimalDocx(['Employee handbook introduction', 'Second paragraph'], { hyperlinkUrl: 'javascript:alert(document.cookie)' });
    const md = (await convert('/api/v1/documents/docx-to-md', 'handbook.docx', docx)).toString('utf8');
    assertInertMarkup(md, 'docx-to-md');
    assert.match(md, /Employee handbook introduction/);
    assert.match(md, /Second paragraph/);
  });

  it('md-to-docx and html-to-docx write no script link and no handler into the document', async () => {
    const markdown = '# Plan\n\nSee [the plan](javascript:alert(1)) and [the site](https://example.org/).\n\n<img src="x.png" onerror="alert(2)">\n';
    const fromMd = await zipText(await convert('/api/v1/documents/md-to-docx', 'plan.md', markdown));
    assertInertMarkup(fromMd, 'md-to-docx');
    assert.match(fromMd, /the plan/);
    assert.match(fromMd, /Target="https:\/\/example\.org\/"/);
    const fromHtml = await zipText(await convert('/api/v1/documents/html-to-docx', 'notes.html', HOSTILE_HTML));
    assertInertMarkup(fromHtml, 'html-to-docx');
    assert.match(fromHtml, /Widget/);
  });
});
