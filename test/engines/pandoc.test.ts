// pandoc on real files: conversions hold the text; local files and URLs stay unread.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../src/core/errors.ts';
import { PandocEngine } from '../../src/engines/pandoc.ts';
import { findProgram } from '../../src/engines/process.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';
import { minimalDocx, png } from '../support/fixtures.ts';
import { recordingServer, zipEntryNames, zipEntryText, type RecordingServer } from './support/tools.ts';

const available = (await findProgram('pandoc')) !== null;

describe('pandoc engine', { skip: !available && 'pandoc not installed' }, () => {
  let dir: string;
  let engine: PandocEngine;
  let server: RecordingServer;
  let hits: string[];
  let base: string;
  let n = 0;
  const file = async (ext: string, content: string | Buffer): Promise<string> => {
    const name = path.join(dir, `in-${++n}.${ext}`);
    await writeFile(name, content);
    return name;
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'engines-pandoc-test-'));
    engine = new PandocEngine({ logger: silentLogger });
    server = await recordingServer(png(16), 'image/png');
    ({ hits, base } = server);
  });

  after(async () => {
    await engine.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports its version', async () => {
    const status = await engine.status();
    assert.equal(status.state, 'ready');
    assert.match(status.version ?? '', /^\d+\.\d+/);
  });

  it('converts markdown to HTML and to a docx holding the text', async () => {
    const md = await file('md', '# Heading One\n\nSome *markdown* text.\n\n- item one\n- item two\n');
    const html = path.join(dir, 'out.html');
    await engine.convert({ inputPath: md, outputPath: html, from: 'gfm', to: 'html5' });
    const htmlText = await readFile(html, 'utf8');
    assert.match(htmlText, /<h1[^>]*>Heading One<\/h1>/);
    assert.match(htmlText, /<em>markdown<\/em>/);
    const docx = path.join(dir, 'out.docx');
    await engine.convert({ inputPath: md, outputPath: docx, from: 'markdown', to: 'docx' });
    const xml = await zipEntryText(docx, 'word/document.xml');
    assert.match(xml, /Heading One/);
    assert.match(xml, /item two/);
  });

  it('reads a docx into markdown', async () => {
    const docx = await file('docx', minimalDocx(['Paragraph from Word', 'Another one']));
    const md = path.join(dir, 'from-docx.md');
    await engine.convert({ inputPath: docx, outputPath: md, from: 'docx', to: 'gfm' });
    const text = await readFile(md, 'utf8');
    assert.match(text, /Paragraph from Word/);
    assert.match(text, /Another one/);
  });

  it('cannot read /etc/passwd or fetch a URL through an image link', async () => {
    const local = path.join(dir, 'secret.png');
    await writeFile(local, png(16));
    const md = await file(
      'md',
      [
        'Image probe',
        '',
        '![passwd](/etc/passwd)',
        '',
        '![passwd-url](file:///etc/passwd)',
        '',
        `![absolute](${local})`,
        '',
        '![parent](../../../../etc/passwd)',
        '',
        `![remote](${base}/image.png)`,
        '',
      ].join('\n'),
    );
    for (const to of ['docx', 'odt', 'epub', 'html5']) {
      const output = path.join(dir, `probe.${to}`);
      await engine.convert({ inputPath: md, outputPath: output, from: 'markdown', to });
      const data = await readFile(output);
      if (to === 'html5') {
        assert.doesNotMatch(data.toString('utf8'), /root:|data:/, 'no file content inlined in HTML');
        assert.match(data.toString('utf8'), /Image probe/);
      } else {
        const media = (await zipEntryNames(output)).filter((name) => /media|Pictures|images/i.test(name) && !name.endsWith('/'));
        assert.deepEqual(media, [], `${to}: no image embedded`);
        for (const name of await zipEntryNames(output)) {
          assert.doesNotMatch(await zipEntryText(output, name, 'latin1'), /root:x:0:0/, `${to}: ${name}`);
        }
      }
    }
    assert.deepEqual(hits, [], 'the local HTTP server received no request');
  });

  it('keeps raw HTML out of markdown input by default', async () => {
    const md = await file('md', 'Before\n\n<script>alert(1)</script>\n\nAfter\n');
    const html = path.join(dir, 'raw.html');
    await engine.convert({ inputPath: md, outputPath: html, from: 'markdown', to: 'html5' });
    const text = await readFile(html, 'utf8');
    assert.doesNotMatch(text, /<script>alert/);
    assert.match(text, /After/);
  });

  it('does not include local files into LaTeX input', async () => {
    const tex = await file('tex', '\\documentclass{article}\\begin{document}Included: \\input{/etc/passwd} end\\end{document}');
    const out = path.join(dir, 'tex.txt');
    await engine.convert({ inputPath: tex, outputPath: out, from: 'latex', to: 'plain' });
    const text = await readFile(out, 'utf8');
    assert.match(text, /Included:/);
    assert.doesNotMatch(text, /root:/);
  });

  it('answers 422 for a file pandoc cannot read', async () => {
    const bad = await file('docx', Buffer.from('this is not a zip at all'));
    await assert.rejects(engine.convert({ inputPath: bad, outputPath: path.join(dir, 'bad.md'), from: 'docx', to: 'gfm' }), (error) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.status, 422);
      assert.equal(error.error, 'unprocessable_input');
      return true;
    });
    const empty = await file('md', '');
    await assert.rejects(engine.convert({ inputPath: empty, outputPath: path.join(dir, 'empty.html'), from: 'markdown', to: 'html5' }), { status: 422 });
  });

  it('stops a run over its time limit with 422 document_too_complex', async () => {
    // Deeply nested lists make pandoc work hard; a 1 ms limit stops any run.
    const md = await file('md', Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(i % 40)}- item ${i}`).join('\n'));
    await assert.rejects(engine.convert({ inputPath: md, outputPath: path.join(dir, 'slow.html'), from: 'markdown', to: 'html5', timeoutMs: 1 }), {
      status: 422,
      error: 'document_too_complex',
    });
    const ok = await file('md', 'still fine\n');
    await engine.convert({ inputPath: ok, outputPath: path.join(dir, 'ok.html'), from: 'markdown', to: 'html5' });
  });

  it('reads no file outside the job: a symlink out of it, /proc/self/environ, a database, an rst include', async () => {
    const canary = `pandoc-canary-${randomBytes(8).toString('hex')}`;
    process.env.PANDOC_TEST_CANARY = canary;
    try {
      const outside = await mkdtemp(path.join(os.tmpdir(), 'engines-pandoc-outside-'));
      const job = path.join(dir, `job-${++n}`);
      await mkdir(job);
      try {
        await writeFile(path.join(outside, 'tool-service.db'), `SQLite format 3\0${canary}`);
        await symlink(path.join(outside, 'tool-service.db'), path.join(job, 'inside.png'));
        await writeFile(path.join(job, 'real.png'), png(16));
        const refs = ['inside.png', './inside.png', '%69nside.png', '/proc/self/environ', 'file:///proc/self/environ', '../../../../../../proc/self/environ', path.join(outside, 'tool-service.db')];
        const md = path.join(job, 'doc.md');
        await writeFile(md, ['Probe', '', ...refs.map((ref, i) => `![cap-${i}](${ref})`), '', '![kept](real.png)', ''].join('\n\n'));
        const docx = path.join(job, 'out.docx');
        await engine.convert({ inputPath: md, outputPath: docx, from: 'markdown', to: 'docx' });
        const names = await zipEntryNames(docx);
        for (const name of names) assert.doesNotMatch(await zipEntryText(docx, name, 'latin1'), new RegExp(`${canary}|SQLite format`), name);
        // The one real image of the job is kept: the check judges, it does not drop everything.
        assert.equal(names.filter((name) => name.startsWith('media/') || name.startsWith('word/media/')).length, 1, names.join(', '));
        assert.match(await zipEntryText(docx, 'word/document.xml'), /cap-0/);
        const rst = path.join(job, 'doc.rst');
        await writeFile(rst, `Title\n=====\n\nBefore\n\n.. include:: /proc/self/environ\n\n.. include:: ${path.join(outside, 'tool-service.db')}\n\nAfter\n`);
        const txt = path.join(job, 'rst.txt');
        await engine.convert({ inputPath: rst, outputPath: txt, from: 'rst', to: 'plain' });
        const text = await readFile(txt, 'utf8');
        assert.match(text, /Before[\s\S]*After/);
        assert.doesNotMatch(text, new RegExp(`${canary}|SQLite format|PATH=`));
      } finally {
        await rm(outside, { recursive: true, force: true });
      }
    } finally {
      delete process.env.PANDOC_TEST_CANARY;
    }
  });

  it('answers 422 document_too_complex before running pandoc on a nesting bomb or an oversized text', async () => {
    const bombs: [string, string, string][] = [
      ['gfm', 'md', `${'>'.repeat(50_000)} deep\n`],
      ['markdown', 'md', Array.from({ length: 400 }, (_, i) => `${' '.repeat(2 * i)}- level ${i}`).join('\n')],
      ['gfm', 'md', `${'*_'.repeat(10_000)}x${'_*'.repeat(10_000)}\n`],
      ['markdown', 'md', `${'['.repeat(40)}x${']'.repeat(40)}\n`],
      ['gfm', 'md', `${'<div>'.repeat(5000)}x\n`],
      ['gfm', 'md', `    \`\`\`\n${'> '.repeat(5000)}hidden behind a fake fence\n`],
      ['html', 'html', `<html><body>${'<section><div>'.repeat(3000)}deep</body></html>`],
    ];
    for (const [from, ext, content] of bombs) {
      const input = await file(ext, content);
      await assert.rejects(engine.convert({ inputPath: input, outputPath: path.join(dir, 'bomb.out'), from, to: 'docx' }), (error) => {
        assert.ok(error instanceof ServiceError, String(error));
        assert.equal(error.status, 422);
        assert.equal(error.error, 'document_too_complex', `${from}: ${content.slice(0, 30)}`);
        assert.match(error.message, /at most \d+ levels/);
        return true;
      });
    }
    const small = new PandocEngine({ logger: silentLogger, limits: { maxInputBytes: 1024 } });
    try {
      await assert.rejects(small.convert({ inputPath: await file('md', 'word '.repeat(500)), outputPath: path.join(dir, 'big.html'), from: 'gfm', to: 'html5' }), {
        status: 422,
        error: 'document_too_complex',
        message: /at most 1 KB of text/,
      });
    } finally {
      await small.close();
    }
    // Ordinary nesting, tables with emphasis and snake_case names stay well within the limits.
    const fine = await file(
      'md',
      [
        ...Array.from({ length: 12 }, (_, i) => `${'  '.repeat(i)}- level ${i} with **bold** and some_snake_case_name`),
        '',
        '> > > a quote in a quote',
        '',
        '| a | b |',
        '|---|---|',
        ...Array.from({ length: 400 }, (_, i) => `| **row ${i}** | _cell_ [link](#x) |`),
        '',
      ].join('\n'),
    );
    const out = path.join(dir, 'fine.html');
    await engine.convert({ inputPath: fine, outputPath: out, from: 'gfm', to: 'html5' });
    assert.match(await readFile(out, 'utf8'), /level 11/);
  });

  it('answers 503 naming the program when pandoc is missing', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const missing = new PandocEngine({ logger: silentLogger });
      await assert.rejects(missing.convert({ inputPath: path.join(dir, 'in-1.md'), outputPath: path.join(dir, 'x.html'), from: 'markdown', to: 'html5' }), (error) => {
        assert.ok(error instanceof ServiceError);
        assert.equal(error.status, 503);
        assert.equal(error.error, 'engine_unavailable');
        assert.match(error.message, /pandoc/);
        return true;
      });
      assert.equal((await missing.status()).state, 'missing');
    } finally {
      process.env.PATH = saved;
    }
  });
});
