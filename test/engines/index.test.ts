// The engines together: one status entry each for /readyz, and close() leaves no child behind.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createEngines } from '../../src/engines/index.ts';
import { findProgram } from '../../src/engines/process.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';
import { descendantsOf, waitUntil } from './support/tools.ts';

const everything = (await Promise.all(['soffice', 'pandoc', 'pdftotext', '/usr/bin/chromium'].map(findProgram))).every((p) => p !== null);

describe('createEngines', () => {
  it('lists every engine with version and state', async () => {
    const engines = createEngines({ logger: silentLogger });
    try {
      const status = await engines.engineStatus();
      assert.deepEqual(status.map((s) => s.name), ['libreoffice', 'chromium', 'pandoc', 'poppler', 'image', 'ffmpeg', 'calibre', 'sevenzip']);
      for (const s of status) {
        assert.ok(['ready', 'starting', 'missing', 'degraded'].includes(s.state));
        assert.equal(typeof s.workers, 'number');
        assert.equal(typeof s.queued, 'number');
        if (s.state !== 'missing') assert.match(s.version ?? '', /\d+\.\d+/, `${s.name} names its version`);
      }
    } finally {
      await engines.close();
    }
  });

  it('runs a markdown → HTML → PDF chain and leaves no process after close', { skip: !everything && 'needs all engines installed' }, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'engines-index-test-'));
    const engines = createEngines({ logger: silentLogger, libreoffice: { instances: 1, workDir: path.join(dir, 'lo') } });
    try {
      const md = path.join(dir, 'note.md');
      await writeFile(md, '# Chained\n\nFrom markdown to PDF.\n');
      const html = path.join(dir, 'note.html');
      await engines.pandoc.convert({ inputPath: md, outputPath: html, from: 'gfm', to: 'html5' });
      const pdf = path.join(dir, 'note.pdf');
      const { readFile } = await import('node:fs/promises');
      await engines.chromium.htmlToPdf({ html: await readFile(html), outputPath: pdf, page: { pageSize: 'A5' } });
      assert.match(await engines.poppler.pdfToText({ inputPath: pdf }), /From markdown to PDF/);
      const docxPdf = path.join(dir, 'note2.pdf');
      await engines.libreoffice.convert({ inputPath: html, outputPath: docxPdf, format: 'pdf' });
      assert.match(await engines.poppler.pdfToText({ inputPath: docxPdf }), /From markdown to PDF/);
      const status = await engines.engineStatus();
      assert.ok(status.every((s) => s.state === 'ready'), JSON.stringify(status));
      assert.ok(descendantsOf(process.pid).length > 0);
    } finally {
      await engines.close();
      await rm(dir, { recursive: true, force: true });
    }
    // A killed child is gone once its parent has reaped it; wait for that, not for a guessed delay.
    await waitUntil(() => descendantsOf(process.pid).length === 0, `no child process left (left: ${descendantsOf(process.pid).join(', ')})`);
  });
});
