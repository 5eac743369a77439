// An error says what is wrong with the input, never where on disk. The engines' own messages
// (pandoc, poppler, ffmpeg, 7-Zip quote the files they were given) and file system errors name
// work folders under DATA_DIR and engine folders under the OS temp folder; the ServiceError itself
// strips every path of the machine from its message and detail (core/errors.ts), so no tool can
// forget to. Hostile inputs to each engine, and a tool that puts paths in its error on purpose.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { Catalog, loadCatalog } from '../../src/core/catalog.ts';
import { defineTool } from '../../src/core/define-tool.ts';
import { ServiceError, unprocessable, withoutMachinePaths } from '../../src/core/errors.ts';
import { json, listen, upload } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { minimalDocx, minimalPdf, truncated, zip } from '../support/fixtures.ts';

/** Any absolute path on this machine's usual roots, the temp folder and the checkout included. */
function machinePaths(text: string, dataDir: string): string[] {
  const roots = ['/tmp', '/var/tmp', '/dev/shm', '/proc', '/sys', '/run', '/home', '/root', tmpdir(), process.cwd(), dataDir];
  const found: string[] = [];
  for (const root of roots) {
    for (const match of text.matchAll(new RegExp(`(?<![\\w:/.])${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|\\b)[^\\s"'\\\\]*`, 'g'))) found.push(match[0]);
  }
  return found;
}

/** A tool whose failures quote the paths it worked in, as an engine's stderr does. */
const pathQuotingTool = defineTool({
  family: 'testing',
  slug: 'path-quoting',
  title: 'Path-quoting tool',
  description: 'Fails with messages that name its folders, to test that callers never see them.',
  credits: 1,
  input: z.object({ where: z.enum(['work', 'temp', 'proc', 'program']) }),
  output: z.object({ never: z.boolean() }),
  examples: [],
  run({ where }) {
    const paths = {
      work: `${process.env['ERROR_PATHS_DATA_DIR']}/work/p123.abcdef01-5f0c/upload.docx`,
      temp: `${tmpdir()}/engines-libreoffice-p123.abcdef01-Xy12/profile-0/user/registrymodifications.xcu`,
      proc: '/proc/self/fd/3',
      program: `${process.cwd()}/node_modules/.bin/engine-helper`,
    };
    const path = paths[where];
    throw unprocessable(`Could not open ${path}`, `pandoc: ${path}: openBinaryFile: does not exist (No such file or directory); see ${path}/`);
  },
});

describe('error bodies name no path of the machine', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;

  before(async () => {
    const real = await loadCatalog();
    t = await startTestApp({ catalog: new Catalog([...real.tools, pathQuotingTool]) });
    process.env['ERROR_PATHS_DATA_DIR'] = t.dataDir;
    base = await listen(t);
    ({ apiKey } = await t.account({ plan: 'business', quota: 100_000 }));
  });
  after(() => t.close());

  function assertNoPaths(what: string, body: unknown): void {
    const text = JSON.stringify(body);
    assert.deepEqual(machinePaths(text, t.dataDir), [], `${what}: ${text}`);
  }

  it('the guard keeps the file name, drops the folders, and leaves URLs and API paths alone', () => {
    assert.equal(withoutMachinePaths(`Syntax Error: Couldn't open '${tmpdir()}/x/work/p1.ab-c/upload.pdf'.`), "Syntax Error: Couldn't open 'upload.pdf'.");
    assert.equal(withoutMachinePaths('reading /proc/self/environ failed'), 'reading environ failed');
    assert.equal(withoutMachinePaths('in /tmp: full'), 'in a private folder: full');
    // A caller's own paths (an archive entry named /etc/passwd), URLs and API paths are kept.
    for (const kept of ['No route GET /api/v1/nothing', 'file:///etc/passwd is not fetched', 'see https://example.com/tmp/x and /files/abc/a.md', 'entry "/etc/cron.d/evil" has an absolute path']) assert.equal(withoutMachinePaths(kept), kept);
    const error = new ServiceError(422, 'x', `at ${t.dataDir}/work/a/b.docx`, { detail: `${t.dataDir}/signing-secret` });
    assert.deepEqual([error.message, error.detail], ['at b.docx', 'signing-secret']);
  });

  it('a tool quoting its work folder, an engine folder, /proc or the install folder: the envelope names only the file', async () => {
    for (const where of ['work', 'temp', 'proc', 'program']) {
      const res = await t.call('/api/v1/testing/path-quoting', { where }, apiKey);
      const body = res.json();
      assert.equal(res.statusCode, 422, JSON.stringify(body));
      assertNoPaths(where, body);
      assert.match(body.detail, /openBinaryFile: does not exist/, 'the engine message itself is kept');
    }
  });

  it('hostile inputs to each engine (poppler, pandoc, ffmpeg) fail as 4xx without a path', async () => {
    const riffHeader = Buffer.alloc(44);
    riffHeader.write('RIFF', 0);
    riffHeader.writeUInt32LE(36 + 4096, 4);
    riffHeader.write('WAVEfmt ', 8);
    riffHeader.writeUInt32LE(16, 16);
    // An unknown codec tag, no channels, an absurd rate: ffmpeg refuses it, quoting its input's path.
    riffHeader.writeUInt16LE(0x7777, 20);
    riffHeader.writeUInt16LE(0, 22);
    riffHeader.writeUInt32LE(0xffffffff, 24);
    riffHeader.write('data', 36);
    riffHeader.writeUInt32LE(4096, 40);
    const cases: [string, string, Buffer][] = [
      ['/api/v1/documents/pdf-to-txt', 'cut.pdf', truncated(minimalPdf('Hello there'), 60)],
      ['/api/v1/documents/pdf-to-txt', 'garbage.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 0x41)])],
      ['/api/v1/documents/docx-to-md', 'broken.docx', zip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'word/document.xml', data: '<w:document><w:body><w:p>' }])],
      ['/api/v1/documents/docx-to-md', 'cut.docx', truncated(minimalDocx(['a', 'b']), 300)],
      ['/api/v1/audio/wav-to-mp3', 'odd.wav', Buffer.concat([riffHeader, Buffer.alloc(4096, 0x80)])],
    ];
    for (const [path, name, content] of cases) {
      const res = await upload(base, path, apiKey, { name, content });
      const body = await json(res);
      assert.ok(res.status >= 400 && res.status < 500, `${path} ${name}: ${res.status} ${JSON.stringify(body)}`);
      assertNoPaths(`${path} ${name}`, body);
    }
  });
});
