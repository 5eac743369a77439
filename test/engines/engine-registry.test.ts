// The engine registry: one list gives the engines, their settings, their labels and credits,
// and the preflight that answers 503 for a missing program before the charge.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ServiceError } from '../../src/core/errors.ts';
import { defineFileTool } from '../../src/core/define-tool.ts';
import { createEngines, ENGINE_DEFINITIONS, engineByLabel, engineOptionsFrom, type Engines } from '../../src/engines/index.ts';
import { findProgram } from '../../src/engines/process.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';
import { enginesOfLabel } from '../../src/catalog/conversions/define-conversions.ts';
import { DEFAULT_ZIP_LIMITS } from '../../src/files/zip-limits.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { json, listen, upload } from '../support/http.ts';
import { minimalDocx } from '../support/fixtures.ts';
import { z } from 'zod';

const hasPandoc = (await findProgram('pandoc')) !== null;

describe('the engine registry', () => {
  it('lists each engine once, with its label and default credits', () => {
    const names = ENGINE_DEFINITIONS.map((d) => d.name);
    assert.equal(new Set(names).size, names.length, 'no name twice');
    const labels = ENGINE_DEFINITIONS.map((d) => d.label);
    assert.equal(new Set(labels).size, labels.length, 'no label twice');
    // The document engines come first (the families of issue 12 register theirs after them).
    assert.deepEqual(
      ENGINE_DEFINITIONS.slice(0, 4).map((d) => [d.name, d.label, d.credits]),
      [
        ['libreoffice', 'LibreOffice', 3],
        ['chromium', 'Chromium', 3],
        ['pandoc', 'pandoc', 2],
        ['poppler', 'poppler', 2],
      ],
    );
    assert.deepEqual(engineByLabel('LibreOffice'), { name: 'libreoffice', label: 'LibreOffice', credits: 3 });
    assert.equal(engineByLabel('libreoffice'), undefined);
  });

  it('turns a conversion label into the engines its tool declares', () => {
    assert.deepEqual(enginesOfLabel('poppler + pandoc'), ['poppler', 'pandoc']);
    assert.deepEqual(enginesOfLabel('built-in'), []);
    assert.throws(() => enginesOfLabel('FFmpeg 9000'), /"FFmpeg 9000" is not a registered engine label/);
  });

  it('reads each engine\'s own settings in loadConfig, with their defaults, and refuses bad ones naming the key', () => {
    // The document engines' settings; the families' engines are tested with their own keys.
    const defaults = loadConfig({ DATA_DIR: '/tmp/unused' });
    assert.deepEqual(Object.keys(defaults.engines), ENGINE_DEFINITIONS.map((d) => d.name));
    assert.deepEqual(defaults.engines.libreoffice, { LIBREOFFICE_INSTANCES: 2, LIBREOFFICE_PROGRAM: 'soffice', LIBREOFFICE_MAX_RSS_MB: 512, LIBREOFFICE_MAX_JOBS: 5000 });
    assert.deepEqual(defaults.engines.chromium, { CHROMIUM_PROGRAM: '/usr/bin/chromium' });
    assert.deepEqual(defaults.engines.pandoc, {});
    assert.deepEqual(defaults.engines.poppler, {});
    const set = engineOptionsFrom(loadConfig({ DATA_DIR: '/tmp/unused', LIBREOFFICE_INSTANCES: '3', LIBREOFFICE_MAX_RSS_MB: '0', CHROMIUM_PROGRAM: '/opt/chromium' }).engines);
    assert.deepEqual(set.libreoffice, { instances: 3, soffice: 'soffice', maxRssPerInstanceBytes: 0, maxJobsPerInstance: 5000 });
    assert.equal(engineOptionsFrom(defaults.engines).libreoffice?.maxRssPerInstanceBytes, 512 * 2 ** 20);
    assert.deepEqual(set.chromium, { executablePath: '/opt/chromium' });
    assert.deepEqual(set.pandoc, {});
    assert.deepEqual(set.poppler, {});
    assert.throws(() => loadConfig({ LIBREOFFICE_INSTANCES: '0' }), (error: unknown) => error instanceof ConfigError && /LIBREOFFICE_INSTANCES/.test(error.message));
  });

  it('reads one set of zip limits, the stricter of the two old sets by default', () => {
    assert.deepEqual(loadConfig({ DATA_DIR: '/tmp/unused' }).zipLimits, {
      maxEntries: 10_000,
      maxUncompressedBytes: 300 * 1024 * 1024,
      maxRatio: 200,
      maxPartBytes: 64 * 1024 * 1024,
      ratioFloorBytes: 1024 * 1024,
      maxDepth: 2,
    });
    assert.deepEqual(DEFAULT_ZIP_LIMITS, loadConfig({}).zipLimits);
    const set = loadConfig({ ZIP_MAX_ENTRIES: '50', ZIP_MAX_DEPTH: '4', ZIP_MAX_RATIO: '90' }).zipLimits;
    assert.equal(set.maxEntries, 50);
    assert.equal(set.maxDepth, 4);
    assert.equal(set.maxRatio, 90);
    assert.throws(() => loadConfig({ ZIP_MAX_DEPTH: '0' }), (error: unknown) => error instanceof ConfigError && /ZIP_MAX_DEPTH/.test(error.message));
  });

  describe('require()', () => {
    let engines: Engines;
    before(() => {
      engines = createEngines({ logger: silentLogger, libreoffice: { soffice: '/nonexistent/soffice' } });
    });
    after(async () => {
      await engines?.close();
    });

    it('answers 503 engine_unavailable naming the missing program', async () => {
      await assert.rejects(engines.require(['libreoffice']), (error: unknown) => {
        assert.ok(error instanceof ServiceError);
        assert.equal(error.status, 503);
        assert.equal(error.error, 'engine_unavailable');
        assert.equal(error.message, 'LibreOffice is not installed on this server (missing: soffice (Debian packages libreoffice-writer-nogui, libreoffice-calc-nogui, libreoffice-impress-nogui))');
        return true;
      });
      const status = await engines.engineStatus();
      assert.equal(status.find((s) => s.name === 'libreoffice')?.state, 'missing');
    });

    it('passes for installed engines and for none', { skip: !hasPandoc && 'needs pandoc' }, async () => {
      await engines.require([]);
      await engines.require(['pandoc']);
    });
  });

  it('gives a file tool the engines it declares, typed', () => {
    const tool = defineFileTool({
      family: 'test',
      slug: 'declares-pandoc',
      title: 'Declares pandoc',
      description: 'A tool that uses pandoc.',
      credits: 1,
      input: z.object({}),
      upload: { field: 'file', accept: ['md'] },
      examples: [],
      engines: ['pandoc'],
      async run(_input, ctx) {
        await ctx.engines.pandoc.convert({ inputPath: ctx.upload.path, outputPath: `${ctx.workDir}/out.html`, from: 'gfm', to: 'html5' });
        // @ts-expect-error libreoffice was not declared, so ctx.engines has no libreoffice
        void ctx.engines.libreoffice;
        return { path: `${ctx.workDir}/out.html`, fileName: 'out.html', mimeType: 'text/html' };
      },
    });
    assert.deepEqual(tool.engines, ['pandoc']);
  });
});

describe('a missing engine over REST', () => {
  let t: TestApp | undefined;
  let base: string;
  before(async () => {
    t = await startTestApp({ env: { LIBREOFFICE_PROGRAM: '/nonexistent/soffice' } });
    base = await listen(t);
  });
  after(async () => {
    await t?.close();
  });

  it('is refused before the charge: an account with no credits left hears 503, not 429 quota_exhausted', async () => {
    const { apiKey, accountId } = await t!.account({ quota: 0 });
    const res = await upload(base, '/api/v1/documents/docx-to-pdf', apiKey, { name: 'a.docx', content: minimalDocx(['x']) });
    const body = await json(res);
    assert.equal(res.status, 503, JSON.stringify(body));
    assert.equal(body.error, 'engine_unavailable');
    assert.match(body.message, /^LibreOffice is not installed on this server \(missing: soffice/);
    assert.equal(await t!.services.ledger.used(accountId), 0);
  });

  it('still checks the upload first: a PNG sent to docx-to-pdf is 415', async () => {
    const { apiKey } = await t!.account({ quota: 100 });
    const res = await upload(base, '/api/v1/documents/docx-to-pdf', apiKey, { name: 'a.docx', content: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex') });
    assert.equal(res.status, 415);
    assert.equal((await json(res)).error, 'unsupported_file_type');
  });
});
