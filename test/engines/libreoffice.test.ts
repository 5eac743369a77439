// The warm LibreOffice pool against the real program: content, page options, parallelism,
// crashes, timeouts, a full queue, linked content never fetched, encrypted files, cleanup.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../src/core/errors.ts';
import { LibreOfficeEngine } from '../../src/engines/libreoffice.ts';
import { bubblewrap, findProgram } from '../../src/engines/process.ts';
import { silentLogger } from '../../src/engines/supervisor.ts';
import { loremParagraphs, minimalDocx, png, zip } from '../support/fixtures.ts';
import { childrenOf, commandOf, descendantsOf, ENGINE_JOB_LIMIT_MS, pdfImageCount, pdfPageSize, pdfText, processesMatching, reaped, recordingServer, waitUntil, zipEntryText, type RecordingServer } from './support/tools.ts';

const available = (await findProgram('soffice')) !== null && (await findProgram('pdftotext')) !== null;
const haveBwrap = (await bubblewrap()) !== null;

function isServiceError(status: number, code: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
    assert.equal(error.status, status, `${error.error}: ${error.message} (${error.detail})`);
    assert.equal(error.error, code);
    return true;
  };
}

describe('LibreOffice engine', { skip: !available && 'LibreOffice or poppler-utils not installed' }, () => {
  let dir: string;
  let engine: LibreOfficeEngine;
  let onePage: string;
  let heavy: string;
  let n = 0;
  const out = (ext: string): string => path.join(dir, `out-${++n}.${ext}`);

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'engines-lo-test-'));
    engine = new LibreOfficeEngine({ instances: 2, maxQueued: 2, jobTimeoutMs: ENGINE_JOB_LIMIT_MS, workDir: path.join(dir, 'pool'), logger: silentLogger });
    onePage = path.join(dir, 'one.docx');
    await writeFile(onePage, minimalDocx(['Warm pool conversion works', 'Zweiter Absatz: äöü ß']));
    heavy = path.join(dir, 'heavy.docx');
    await writeFile(heavy, minimalDocx(loremParagraphs(800, 2)));
    await engine.warm();
  });

  after(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports its version and state for /readyz', async () => {
    const status = await engine.status();
    assert.equal(status.name, 'libreoffice');
    assert.match(status.version ?? '', /^\d+\.\d+/);
    assert.equal(status.state, 'ready');
    assert.equal(status.workers, 2);
    assert.equal(status.concurrency, 2);
  });

  it('primes every instance before its first job: Writer, its docx import and the PDF export are loaded', () => {
    // Without priming, a fresh soffice loads these on the first caller's conversion (several times
    // a warm conversion's time, charged to that caller's job and its time limit).
    const offices = processesMatching('soffice.bin').filter((pid) => commandOf(pid).includes(dir));
    assert.equal(offices.length, 2, 'one soffice.bin per instance');
    for (const pid of offices) {
      const maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
      for (const library of ['libswlo.so', 'libwriterfilterlo.so', 'libpdffilterlo.so']) {
        assert.ok(maps.includes(`/${library}\n`), `soffice ${pid} has ${library} loaded before any job`);
      }
    }
  });

  it('converts a docx to a PDF holding its text', async () => {
    const output = out('pdf');
    const result = await engine.convert({ inputPath: onePage, outputPath: output, format: 'pdf' });
    assert.equal(result.kind, 'writer');
    assert.equal(result.filter, 'writer_pdf_Export');
    const text = await pdfText(output);
    assert.match(text, /Warm pool conversion works/);
    assert.match(text, /Zweiter Absatz: äöü ß/);
  });

  it('converts plain text to a docx whose document.xml holds the text', async () => {
    const input = path.join(dir, 'note.txt');
    await writeFile(input, 'First line of the note\nSecond line\n');
    const output = out('docx');
    await engine.convert({ inputPath: input, outputPath: output, format: 'docx', inputFilter: 'Text (encoded)', inputFilterOptions: 'UTF8' });
    const xml = await zipEntryText(output, 'word/document.xml');
    assert.match(xml, /First line of the note/);
    assert.match(xml, /Second line/);
  });

  it('honours page size, orientation and margins', async () => {
    const a5 = out('pdf');
    await engine.convert({ inputPath: onePage, outputPath: a5, format: 'pdf', page: { pageSize: 'A5', orientation: 'landscape', margin: '1cm' } });
    const [w, h] = await pdfPageSize(a5);
    assert.ok(Math.abs(w - 595.3) < 2 && Math.abs(h - 419.5) < 2, `A5 landscape, got ${w} x ${h}`);
    const letter = out('pdf');
    await engine.convert({ inputPath: onePage, outputPath: letter, format: 'pdf', page: { pageSize: 'letter' } });
    const [lw, lh] = await pdfPageSize(letter);
    assert.ok(Math.abs(lw - 612) < 2 && Math.abs(lh - 792) < 2, `Letter, got ${lw} x ${lh}`);
    assert.match(await pdfText(letter), /Warm pool conversion works/);
  });

  it('runs two conversions at once on the two instances', async () => {
    const started = Date.now();
    const finished: number[] = [];
    const results = await Promise.all(
      [0, 1].map(async () => {
        const result = await engine.convert({ inputPath: heavy, outputPath: out('pdf'), format: 'pdf' });
        finished.push(Date.now() - started);
        return result;
      }),
    );
    assert.deepEqual(results.map((r) => r.instance).sort(), [0, 1]);
    // Each job's interval inside LibreOffice ends when it was answered; they overlap.
    const [a, b] = results.map((r, i) => ({ end: finished[i]!, start: finished[i]! - r.ms }));
    assert.ok(a!.start < b!.end && b!.start < a!.end, `the jobs did not overlap: ${JSON.stringify([a, b])}`);
  });

  it('answers 429 with Retry-After when the queue is full', async () => {
    // 2 running + 2 queued fit; the rest are refused at once.
    const jobs = Array.from({ length: 6 }, () => engine.convert({ inputPath: heavy, outputPath: out('pdf'), format: 'pdf' }));
    const settled = await Promise.allSettled(jobs);
    const refused = settled.filter((s) => s.status === 'rejected');
    assert.equal(refused.length, 2);
    for (const r of refused) {
      const error = (r as PromiseRejectedResult).reason as unknown;
      assert.ok(isServiceError(429, 'engine_busy')(error));
      assert.match((error as ServiceError).headers['Retry-After'] ?? '', /^[1-9]\d*$/);
    }
    assert.equal(settled.filter((s) => s.status === 'fulfilled').length, 4);
  });

  it('restarts a soffice killed while idle; the next job succeeds', async () => {
    const bridges = childrenOf(process.pid).filter((pid) => commandOf(pid).includes('libreoffice-bridge.py'));
    assert.equal(bridges.length, 2);
    const offices = bridges.flatMap((pid) => descendantsOf(pid)).filter((pid) => commandOf(pid).includes('soffice.bin'));
    assert.equal(offices.length, 2, 'each bridge runs one soffice.bin');
    for (const pid of offices) process.kill(pid, 'SIGKILL');
    // Each bridge exits when its soffice dies; once the engine has seen that, the job must restart it.
    await waitUntil(() => bridges.every(reaped), 'both bridges exited');
    const output = out('pdf');
    await engine.convert({ inputPath: onePage, outputPath: output, format: 'pdf' });
    assert.match(await pdfText(output), /Warm pool conversion works/);
    const after = processesMatching('soffice.bin').filter((pid) => commandOf(pid).includes(dir));
    assert.ok(after.every((pid) => !offices.includes(pid)), 'new soffice processes');
  });

  it('answers 503 engine_crashed when soffice dies mid-job, then recovers', async () => {
    await engine.warm();
    const big = path.join(dir, 'big.docx');
    await writeFile(big, minimalDocx(loremParagraphs(6000, 2)));
    const running = new Promise<void>((resolve) => {
      const off = engine.supervisor.onJobStart(() => {
        off();
        resolve();
      });
    });
    const bridges = childrenOf(process.pid).filter((pid) => commandOf(pid).includes('libreoffice-bridge.py'));
    const job = engine.convert({ inputPath: big, outputPath: out('pdf'), format: 'pdf' });
    // Kill once the job is known to be on an instance, not after a guessed delay.
    await running;
    const offices = processesMatching('soffice.bin').filter((pid) => commandOf(pid).includes(dir));
    for (const pid of offices) process.kill(pid, 'SIGKILL');
    await assert.rejects(job, isServiceError(503, 'engine_crashed'));
    // The other (idle) instance was killed too: wait until its bridge has exited as well.
    await waitUntil(() => bridges.every(reaped), 'both bridges exited');
    const output = out('pdf');
    await engine.convert({ inputPath: onePage, outputPath: output, format: 'pdf' });
    assert.match(await pdfText(output), /Warm pool conversion works/);
  });

  it('stops a job over its time limit with 422 document_too_complex (a document bomb), then recovers', async () => {
    const bomb = path.join(dir, 'bomb.docx');
    await writeFile(bomb, minimalDocx(loremParagraphs(100_000)));
    const started = Date.now();
    await assert.rejects(
      engine.convert({ inputPath: bomb, outputPath: out('pdf'), format: 'pdf', timeoutMs: 1500 }),
      isServiceError(422, 'document_too_complex'),
    );
    // The job's own 1.5 s limit answered, not the engine's: asserted on which limit, not on a busy machine's clock.
    assert.ok(Date.now() - started < ENGINE_JOB_LIMIT_MS, `the job's limit answered, after ${Date.now() - started} ms`);
    for (let i = 0; i < 2; i++) {
      const output = out('pdf');
      await engine.convert({ inputPath: onePage, outputPath: output, format: 'pdf' });
      assert.match(await pdfText(output), /Warm pool conversion works/);
    }
  });

  it('fails fast with 422 on an encrypted document instead of waiting for a password', async () => {
    const encrypted = path.join(dir, 'secret.odt');
    await engine.convert({ inputPath: onePage, outputPath: encrypted, format: 'odt', outputPassword: 'hunter2' });
    const started = Date.now();
    await assert.rejects(engine.convert({ inputPath: encrypted, outputPath: out('pdf'), format: 'pdf' }), isServiceError(422, 'unprocessable_input'));
    // Waiting for a password would end at the job limit (and as document_too_complex, not unprocessable_input).
    assert.ok(Date.now() - started < ENGINE_JOB_LIMIT_MS, `refused after ${Date.now() - started} ms`);
    const opened = out('pdf');
    await engine.convert({ inputPath: encrypted, outputPath: opened, format: 'pdf', password: 'hunter2' });
    assert.match(await pdfText(opened), /Warm pool conversion works/);
  });

  it('refuses a zip bomb with 422 before LibreOffice opens it', async () => {
    const bomb = path.join(dir, 'zipbomb.docx');
    await writeFile(bomb, zip([{ name: 'word/document.xml', data: '<w:document/>', declaredSize: 4_000_000_000 }]));
    await assert.rejects(engine.convert({ inputPath: bomb, outputPath: out('pdf'), format: 'pdf' }), isServiceError(422, 'unprocessable_input'));
  });

  it('runs soffice under the address-space limit', async () => {
    const offices = processesMatching('soffice.bin').filter((pid) => commandOf(pid).includes(dir));
    assert.ok(offices.length > 0);
    const limits = await readFile(`/proc/${offices[0]}/limits`, 'utf8');
    assert.match(limits, new RegExp(`Max address space\\s+${4 * 1024 ** 3}\\s`));
  });

  it('runs soffice in a filesystem sandbox when bubblewrap works here', { skip: !haveBwrap && 'bubblewrap not usable' }, async () => {
    const offices = processesMatching('soffice.bin').filter((pid) => commandOf(pid).includes(dir));
    assert.ok(offices.length > 0);
    const root = `/proc/${offices[0]}/root`;
    // What soffice sees: a stand-in /etc/passwd, no /root, /home or project tree, no other job.
    assert.doesNotMatch(await readFile(`${root}/etc/passwd`, 'utf8'), /daemon:/);
    for (const hidden of ['/etc/shadow', '/root', '/home', '/work', path.join(dir, 'one.docx')]) {
      await assert.rejects(readFile(path.join(root, hidden)), /ENOENT|EISDIR/, `${hidden} is visible`);
    }
    assert.ok(existsSync(`${root}/usr/lib/libreoffice/program`));
  });

  it('answers 422 for an empty file', async () => {
    const empty = path.join(dir, 'empty.docx');
    await writeFile(empty, '');
    await assert.rejects(engine.convert({ inputPath: empty, outputPath: out('pdf'), format: 'pdf' }), isServiceError(422, 'unprocessable_input'));
  });

  it('does not resolve XML external entities', async () => {
    const input = path.join(dir, 'xxe.docx');
    await writeFile(input, minimalDocx(['XXE probe'], { xxeUrl: 'file:///etc/passwd' }));
    const output = out('pdf');
    try {
      await engine.convert({ inputPath: input, outputPath: output, format: 'pdf' });
    } catch (error) {
      assert.ok(isServiceError(422, 'unprocessable_input')(error));
      return;
    }
    assert.doesNotMatch(await pdfText(output), /root:/);
  });

  describe('linked content is never fetched', () => {
    let server: RecordingServer;
    let hits: string[];
    let base: string;
    let localImage: string;

    before(async () => {
      server = await recordingServer(png(16), 'image/png');
      ({ hits, base } = server);
      localImage = path.join(dir, 'local.png');
      await writeFile(localImage, png(16));
    });

    after(async () => {
      await server.close();
    });

    const check = async (lo: LibreOfficeEngine): Promise<void> => {
      const remote = path.join(dir, `remote-${++n}.docx`);
      await writeFile(remote, minimalDocx(['Remote links'], { linkedImageUrl: `${base}/image.png`, hyperlinkUrl: `${base}/link`, includeTextUrl: `${base}/include.txt` }));
      const remotePdf = out('pdf');
      await lo.convert({ inputPath: remote, outputPath: remotePdf, format: 'pdf' });
      assert.match(await pdfText(remotePdf), /Remote links/);
      assert.equal(await pdfImageCount(remotePdf), 0, 'the linked image is not in the PDF');

      const local = path.join(dir, `local-${++n}.docx`);
      await writeFile(local, minimalDocx(['Local links'], { linkedImageUrl: `file://${localImage}`, includeTextUrl: 'file:///etc/passwd' }));
      const localPdf = out('pdf');
      await lo.convert({ inputPath: local, outputPath: localPdf, format: 'pdf' });
      const text = await pdfText(localPdf);
      assert.match(text, /Local links/);
      assert.doesNotMatch(text, /root:/);
      assert.equal(await pdfImageCount(localPdf), 0, 'the linked local image is not read');
      assert.deepEqual(hits, [], 'the local HTTP server received no request');
    };

    it('in the pool as configured (network namespace when available)', async () => {
      await check(engine);
    });

    it('through the profile settings alone, without network namespace or filesystem sandbox', async () => {
      const open = new LibreOfficeEngine({ instances: 1, isolateNetwork: false, sandbox: 'none', jobTimeoutMs: ENGINE_JOB_LIMIT_MS, workDir: path.join(dir, 'pool-open'), logger: silentLogger });
      try {
        await check(open);
      } finally {
        await open.close();
      }
    });
  });

  it('restarts an instance whose soffice holds more than its memory bound after a job; that job keeps its PDF', async () => {
    const pool = path.join(dir, 'pool-rss');
    const reasons: string[] = [];
    let restarted: () => void = () => {};
    const back = new Promise<void>((resolve) => {
      restarted = resolve;
    });
    const logger = {
      ...silentLogger,
      info(data: object, message: string) {
        const reason = (data as { reason?: unknown }).reason;
        if (message === 'restarting worker' && typeof reason === 'string') reasons.push(reason);
        if (message === 'worker started' && reasons.length > 0) restarted();
      },
    };
    // 1 MiB: below what any soffice holds, so the bound is crossed by the first job.
    const lo = new LibreOfficeEngine({ instances: 1, maxRssPerInstanceBytes: 2 ** 20, jobTimeoutMs: ENGINE_JOB_LIMIT_MS, workDir: pool, logger });
    const offices = (): number[] => processesMatching('soffice.bin').filter((pid) => commandOf(pid).includes(pool));
    try {
      await lo.warm();
      const before = offices();
      assert.equal(before.length, 1);
      assert.deepEqual(reasons, [], 'a fresh instance is not restarted before its first job');
      const output = out('pdf');
      await lo.convert({ inputPath: onePage, outputPath: output, format: 'pdf' });
      assert.match(await pdfText(output), /Warm pool conversion works/);
      await back;
      assert.equal(reasons.length, 1);
      // The reason carries soffice.bin's own VmRSS (a fresh one holds over 100 MB), not a guess.
      const held = Number(/^soffice holds (\d+) MB, over its 1 MB bound$/.exec(reasons[0]!)?.[1]);
      assert.ok(held > 50, reasons[0]);
      const after = offices();
      assert.equal(after.length, 1);
      assert.notEqual(after[0], before[0], 'a new soffice.bin');
      const second = out('pdf');
      await lo.convert({ inputPath: onePage, outputPath: second, format: 'pdf' });
      assert.match(await pdfText(second), /Warm pool conversion works/);
    } finally {
      await lo.close();
    }
    assert.deepEqual(offices(), []);
  });

  it('leaves no process behind after close', async () => {
    const lo = new LibreOfficeEngine({ instances: 1, jobTimeoutMs: ENGINE_JOB_LIMIT_MS, workDir: path.join(dir, 'pool-close'), logger: silentLogger });
    await lo.convert({ inputPath: onePage, outputPath: out('pdf'), format: 'pdf' });
    assert.ok(processesMatching(path.join(dir, 'pool-close')).length > 0);
    await lo.close();
    assert.deepEqual(processesMatching(path.join(dir, 'pool-close')), []);
    await assert.rejects(lo.convert({ inputPath: onePage, outputPath: out('pdf'), format: 'pdf' }), isServiceError(503, 'engine_unavailable'));
  });

  it('answers 503 naming the program when soffice is missing', async () => {
    const missing = new LibreOfficeEngine({ soffice: '/nonexistent/soffice', logger: silentLogger });
    await assert.rejects(missing.convert({ inputPath: onePage, outputPath: out('pdf'), format: 'pdf' }), (error) => {
      assert.ok(isServiceError(503, 'engine_unavailable')(error));
      assert.match((error as ServiceError).message, /soffice/);
      return true;
    });
    assert.equal((await missing.status()).state, 'missing');
    await missing.close();
  });
});
