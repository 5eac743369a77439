// The archive file kinds by content: tar by its header (checksum checked), .tar.gz told from
// other gzip by what the stream inflates to, 7z and RAR by signature; nothing else claimed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { archiveFiles } from '../../src/files/kinds/archives.ts';
import { build7z, buildTar, buildZip } from './support/archive-fixtures.ts';

async function detect(bytes: Buffer) {
  const head = bytes.subarray(0, 64 * 1024);
  // The detector only reads the head it is shown.
  return archiveFiles.detect({ path: '/nonexistent', handle: undefined as never, head, size: bytes.length });
}

test('tar, tar.gz, gzip, 7z and RAR are told apart by content', async () => {
  const tar = buildTar([{ name: 'a.txt', content: 'hello' }]);
  assert.deepEqual(await detect(tar), { kind: 'tar', mimeType: 'application/x-tar' });
  assert.deepEqual(await detect(gzipSync(tar)), { kind: 'tar.gz', mimeType: 'application/gzip' });
  assert.deepEqual(await detect(gzipSync('just some text, gzipped\n')), { kind: 'gzip', mimeType: 'application/gzip' });
  assert.deepEqual(await detect(await build7z({ 'a.txt': 'x' })), { kind: '7z', mimeType: 'application/x-7z-compressed' });
  assert.deepEqual(await detect(Buffer.concat([Buffer.from('Rar!\x1a\x07\x01\x00', 'latin1'), Buffer.alloc(32)])), { kind: 'rar', mimeType: 'application/vnd.rar' });
});

test('a tar.gz whose first entry is large is still seen as a tar inside', async () => {
  const tgz = gzipSync(buildTar([{ name: 'big.bin', content: Buffer.alloc(5 * 1024 * 1024, 7) }]));
  assert.equal((await detect(tgz))?.kind, 'tar.gz');
});

test('a tar header with a wrong checksum is flagged corrupt; a cut gzip header is corrupt gzip', async () => {
  const tar = buildTar([{ name: 'a.txt', content: 'hello' }]);
  tar[0] = 0x62; // rename a.txt to b.txt without fixing the checksum
  assert.deepEqual(await detect(tar), { kind: 'tar', mimeType: 'application/x-tar', corrupt: true });
  assert.deepEqual(await detect(gzipSync('x').subarray(0, 12)), { kind: 'gzip', mimeType: 'application/gzip', corrupt: true });
});

test('zip, text and PDF are not archive kinds here', async () => {
  assert.equal(await detect(buildZip([{ name: 'a.txt', content: 'x' }])), undefined);
  assert.equal(await detect(Buffer.from('plain text that mentions ustar somewhere')), undefined);
  assert.equal(await detect(Buffer.from('%PDF-1.7\n')), undefined);
});

test('accepted kinds: gzip takes any gzip stream, tar.gz only a tar inside one', () => {
  const { accepted } = archiveFiles;
  assert.equal(accepted.gzip.matches({ kind: 'tar.gz', mimeType: 'application/gzip' }), true);
  assert.equal(accepted['tar.gz'].matches({ kind: 'gzip', mimeType: 'application/gzip' }), false);
  assert.deepEqual(accepted['tar.gz'].extensions, ['tar.gz', 'tgz']);
});
