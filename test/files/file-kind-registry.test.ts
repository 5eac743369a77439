// The file-kind registry: one list of container detectors gives the kinds, what tools may accept,
// MIME types and extensions, and which safety check a kind meets.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '../../src/core/errors.ts';
import { FILE_CONTAINERS, acceptedKind, containerOf, detectedKind, isAcceptedKind, isFileKind, kindMatches } from '../../src/files/kinds/file-kind-registry.ts';
import { pdfFiles } from '../../src/files/kinds/pdf.ts';
import { zipFiles } from '../../src/files/kinds/zip-based.ts';
import { FORMATS } from '../../src/catalog/conversions/formats.ts';
import { FilePipeline } from '../../src/files/file-pipeline.ts';
import { LocalFileStore } from '../../src/files/file-store.ts';
import { LinkSigner } from '../../src/files/signed-links.ts';
import { encryptedPdf, png } from '../support/fixtures.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-kind-registry-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the file-kind registry', () => {
  it('lists the core container detectors in the order they are tried, text-like last', () => {
    const names = FILE_CONTAINERS.map((c) => c.name);
    assert.deepEqual(names.slice(0, 3), ['pdf', 'ole2', 'zip']);
    assert.equal(names.at(-1), 'text');
    assert.ok(names.includes('image'));
  });

  it('knows each accepted kind\'s MIME type and extensions, and nothing else', () => {
    assert.deepEqual({ ...acceptedKind('docx'), matches: undefined }, { mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extensions: ['docx'], matches: undefined });
    assert.deepEqual(acceptedKind('jpeg').extensions, ['jpg', 'jpeg']);
    assert.equal(acceptedKind('csv').mimeType, 'text/csv; charset=utf-8');
    assert.equal(isAcceptedKind('yaml'), true);
    assert.equal(isAcceptedKind('exe'), false);
    assert.equal(isFileKind('ole2'), true);
    assert.equal(isFileKind('doc'), false, 'doc is accepted, detection answers ole2');
  });

  it('gives the conversion formats their MIME type and extension from the registry', () => {
    for (const format of Object.values(FORMATS)) {
      assert.equal(format.mimeType, acceptedKind(format.id as never).mimeType, format.id);
      assert.equal(format.extension, format.id);
    }
  });

  it('names detected kinds for messages and maps each to its container', () => {
    assert.equal(detectedKind('unknown').describedAs, 'an unrecognised binary format');
    assert.equal(detectedKind('pptx').noun, 'PowerPoint presentation');
    assert.equal(containerOf('xlsx'), zipFiles);
    assert.equal(containerOf('pdf'), pdfFiles);
    assert.equal(containerOf('empty'), undefined);
  });

  it('matches accepted kinds through their container', () => {
    assert.equal(kindMatches('docx', { kind: 'ole2', mimeType: 'application/x-ole-storage', oleType: 'encrypted-ooxml' }), true);
    assert.equal(kindMatches('json', 'text'), true);
    assert.equal(kindMatches('png', 'jpeg'), false);
  });

  it('runs the safety check of the detected kind\'s container', async () => {
    const path = join(dir, 'locked.pdf');
    await writeFile(path, encryptedPdf());
    await assert.rejects(pdfFiles.assertSafe!(path, 'pdf', { maxEntries: 1, maxUncompressedBytes: 1, maxRatio: 2, maxPartBytes: 1, ratioFloorBytes: 1, maxDepth: 1 }), (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.error, 'encrypted_document');
      return true;
    });
  });

  it('refuses, in the pipeline, an accept list naming no registered kind', async () => {
    const files = new FilePipeline({ workRoot: join(dir, 'work'), store: new LocalFileStore(join(dir, 'store')), signer: new LinkSigner('x'.repeat(32)), publicBaseUrl: 'http://localhost', urlTtlSeconds: 60, retentionMs: 60_000, outputLimitBytes: 1024 });
    const path = join(dir, 'image.png');
    await writeFile(path, png());
    const received = { path, sizeBytes: png().length, originalName: 'image.png' };
    const typed = await files.inspect({ operationId: 'test_png', upload: { field: 'file', accept: ['png'] } }, received);
    assert.equal(typed.kind, 'png');
    await assert.rejects(files.inspect({ operationId: 'test_bogus', upload: { field: 'file', accept: ['bogus'] } }, received), (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.status, 415);
      assert.equal(error.error, 'unsupported_file_type');
      return true;
    });
  });
});
