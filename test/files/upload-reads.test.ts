// How often one small docx-to-pdf call opens its upload on disk. A REST upload's bytes are held
// in memory from its receipt until its call ends (src/files/upload-bytes.ts), so its typing, its
// checks and the engine's own zip check (engines/zip-guard.ts, when the tool runs) open nothing;
// the same file received without being held (as every upload was before, and as base64, a URL, a
// stored file or a large upload still is) is opened by them again and again. Opens for reading
// are counted by wrapping node's fs.promises.open, fs.open and fs.createReadStream, each with the
// stack that asked, so the checks' opens and the engine's are told apart.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join, sep } from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { json, listen, upload } from '../support/http.ts';
import { minimalDocx, xxeDocx } from '../support/fixtures.ts';
import { HELD_UPLOAD_MAX_BYTES, heldUploadTotals } from '../../src/files/upload-bytes.ts';
import type { FileSource } from '../../src/core/file-sources.ts';

const DOCX_TO_PDF = '/api/v1/documents/docx-to-pdf';

/**
 * Every open of a call's upload for reading (a file named `upload` under the app's DATA_DIR),
 * with who asked: fs.promises.open (FileHandle), fs.open and fs.createReadStream.
 */
function watchUploadOpens(dataDir: string): { opens: { path: string; stack: string }[]; restore: () => void } {
  const opens: { path: string; stack: string }[] = [];
  const original = { promises: fs.promises.open, callback: fs.open, stream: fs.createReadStream };
  const note = (path: unknown, flags: unknown = 'r'): void => {
    const name = String(path);
    if (flags !== undefined && flags !== 'r') return;
    if (!name.startsWith(dataDir + sep) || !name.endsWith(`${sep}upload`)) return;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 60;
    const stack = new Error('opened').stack ?? '';
    Error.stackTraceLimit = limit;
    opens.push({ path: name, stack });
  };
  fs.promises.open = function (this: unknown, path: fs.PathLike, ...rest: unknown[]) {
    note(path, rest[0]);
    return (original.promises as (...args: unknown[]) => unknown).call(this, path, ...rest);
  } as typeof fs.promises.open;
  fs.open = function (this: unknown, path: fs.PathLike, ...rest: unknown[]) {
    // A file stream opens its file on a later tick, where no stack says who made it: a read
    // stream is counted when it is made (below).
    if (!new Error().stack?.includes('Stream._construct')) note(path, typeof rest[0] === 'function' ? undefined : rest[0]);
    return (original.callback as (...args: unknown[]) => unknown).call(this, path, ...rest);
  } as typeof fs.open;
  fs.createReadStream = function (this: unknown, path: fs.PathLike, ...rest: unknown[]) {
    note(path);
    return (original.stream as (...args: unknown[]) => unknown).call(this, path, ...rest);
  } as typeof fs.createReadStream;
  // `import { open } from 'node:fs/promises'` elsewhere sees the wrappers too.
  syncBuiltinESMExports();
  return {
    opens,
    restore() {
      fs.promises.open = original.promises;
      fs.open = original.callback;
      fs.createReadStream = original.stream;
      syncBuiltinESMExports();
    },
  };
}

/** The opens made by typing the upload and its safety checks (FilePipeline.inspect and assertSafe). */
const byChecks = (opens: readonly { stack: string }[]) => opens.filter((o) => o.stack.includes(`files${sep}file-pipeline.ts`));
/** The opens made by the engine's own zip check before LibreOffice (after the checks, when the tool runs). */
const byEngine = (opens: readonly { stack: string }[]) => opens.filter((o) => o.stack.includes(`engines${sep}zip-guard.ts`));

describe('the reads of a small upload', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  let watch: ReturnType<typeof watchUploadOpens>;
  const docx = minimalDocx(['A one-page document, read once']);
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    ({ apiKey } = await t.account({ plan: 'business', quota: 100_000 }));
    watch = watchUploadOpens(t.dataDir);
  });
  after(async () => {
    watch.restore();
    await t.close();
  });

  /** Runs docx-to-pdf on `file` through the invoke path, as a surface other than REST's upload does; the upload's opens. */
  async function invokeOpens(file: FileSource, requestId: string): Promise<{ path: string; stack: string }[]> {
    watch.opens.length = 0;
    const caller = await t.services.invoker.authenticate(apiKey);
    const workDir = await t.services.files.createWorkDir();
    let outcome;
    try {
      outcome = await t.services.invoker.invoke({ caller, operationId: 'documents_docx_to_pdf', input: {}, requestId, log: t.services.log, workDir, file });
    } finally {
      await t.services.files.removeWorkDir(workDir);
    }
    assert.equal(outcome.ok, true, JSON.stringify(outcome));
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });
    return [...watch.opens];
  }

  it('docx-to-pdf: typing, checks and the engine\'s zip check open a file that is not held ~10 times, a REST upload not once', async () => {
    assert.ok(docx.length < 4096, `a small docx (${docx.length} bytes)`);

    // Before: the same call with the file written to its work folder and nothing held, as every
    // upload was received until now (and as a stored file or a step's file still is).
    const before = await invokeOpens({
      kind: 'upload',
      receive: async (dir) => {
        const path = join(dir, 'upload');
        await writeFile(path, docx);
        return { fields: {}, upload: { path, sizeBytes: docx.length, originalName: 'a.docx' } };
      },
    }, 'reads-before');
    // The same bytes as base64 (MCP's file argument): never held, read from the disk likewise.
    const base64 = await invokeOpens({ kind: 'base64', data: docx.toString('base64'), name: 'a.docx' }, 'reads-base64');

    // After: a REST upload of the same bytes.
    watch.opens.length = 0;
    const res = await upload(base, DOCX_TO_PDF, apiKey, { name: 'a.docx', content: docx });
    assert.equal(res.status, 200, JSON.stringify(await res.clone().json()));
    assert.equal((await json(res)).result.mimeType, 'application/pdf');
    const afterOpens = [...watch.opens];

    const checksBefore = byChecks(before).length;
    const checksAfter = byChecks(afterOpens).length;
    console.log(`opens of the upload: before ${before.length} (typing and checks ${checksBefore}, engine ${byEngine(before).length}); base64 ${base64.length}; after ${afterOpens.length} (typing and checks ${checksAfter}, engine ${byEngine(afterOpens).length})`);
    assert.ok(checksBefore >= 5, `typing and checks open an unheld upload many times (${checksBefore})`);
    assert.ok(byEngine(before).length >= 1, 'the engine\'s zip check opens an unheld upload');
    assert.equal(checksAfter, 0, `typing and checks opened the held upload:\n${byChecks(afterOpens).map((o) => o.stack).join('\n\n')}`);
    // Still held when the tool runs: the engine's own check reads memory too.
    assert.equal(byEngine(afterOpens).length, 0, `the engine's zip check opened the held upload:\n${byEngine(afterOpens).map((o) => o.stack).join('\n\n')}`);
    // Nothing else was counted by mistake: every open is one or the other.
    for (const opens of [before, base64, afterOpens]) assert.equal(byChecks(opens).length + byEngine(opens).length, opens.length, opens.map((o) => o.stack).join('\n\n'));
    assert.deepEqual([byChecks(base64).length, byEngine(base64).length], [checksBefore, byEngine(before).length], 'base64 is read from the disk as an unheld upload is');
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 }, 'nothing is held once the call answered');
  });

  it('an upload past HELD_UPLOAD_MAX_BYTES is read from disk; a small one is not', async () => {
    const junk = (size: number) => Buffer.alloc(size, 0x01);
    watch.opens.length = 0;
    const small = await upload(base, DOCX_TO_PDF, apiKey, { name: 'small.docx', content: junk(1000) });
    assert.equal(small.status, 415);
    assert.equal(byChecks(watch.opens).length, 0);
    watch.opens.length = 0;
    const large = await upload(base, DOCX_TO_PDF, apiKey, { name: 'large.docx', content: junk(HELD_UPLOAD_MAX_BYTES + 1) });
    assert.equal(large.status, 415);
    assert.ok(byChecks(watch.opens).length > 0, 'a large upload is typed from the disk');
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });

    // A docx past the bound, converted: its checks and the engine's zip check read the disk. An
    // XML comment of incompressible text makes it large without giving LibreOffice pages to lay out.
    const filler = randomBytes(HELD_UPLOAD_MAX_BYTES * 1.6).toString('base64');
    const largeDocx = minimalDocx(['A large document'], { extraDocumentXmlPrefix: `<!-- ${filler} -->` });
    assert.ok(largeDocx.length > HELD_UPLOAD_MAX_BYTES, `${largeDocx.length} bytes`);
    watch.opens.length = 0;
    const converted = await upload(base, DOCX_TO_PDF, apiKey, { name: 'large.docx', content: largeDocx });
    assert.equal(converted.status, 200, JSON.stringify(await converted.clone().json()));
    assert.ok(byChecks(watch.opens).length >= 5, `typed and checked from the disk (${byChecks(watch.opens).length} opens)`);
    assert.ok(byEngine(watch.opens).length >= 1, 'the engine\'s zip check reads the disk');
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });
  });

  it('holds nothing once any call has answered: refused by type, by the checks, by quota, replayed, or run', async () => {
    const refusedByType = await upload(base, DOCX_TO_PDF, apiKey, { name: 'a.docx', content: 'not a docx' });
    assert.equal(refusedByType.status, 415);
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });

    const refusedByChecks = await upload(base, DOCX_TO_PDF, apiKey, { name: 'x.docx', content: xxeDocx() });
    assert.equal(refusedByChecks.status, 422);
    assert.equal((await json(refusedByChecks)).error, 'unsafe_document');
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });

    const poor = await t.account({ quota: 0 });
    const refusedByQuota = await upload(base, DOCX_TO_PDF, poor.apiKey, { name: 'a.docx', content: docx });
    assert.equal(refusedByQuota.status, 429);
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });

    const key = { 'Idempotency-Key': `reads-${Date.now()}` };
    const first = await upload(base, DOCX_TO_PDF, apiKey, { name: 'a.docx', content: docx }, {}, key);
    assert.equal(first.status, 200);
    const replayed = await upload(base, DOCX_TO_PDF, apiKey, { name: 'a.docx', content: docx }, {}, key);
    assert.equal(replayed.status, 200);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(heldUploadTotals(), { uploads: 0, bytes: 0 });
  });
});
