// The audio family through the real app over HTTP: every tool's examples converted from a tone
// made by the ffmpeg CLI, the result downloaded by its link and decoded independently (duration,
// channels, sample rate, bitrate, codec); the supported-conversions map; option validation; and
// hostile uploads (issue 12 §8), each a 4xx JSON answer that leaves the service working and no
// work file behind.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestApp } from '../support/test-app.ts';
import { startFileApp, workFolders } from '../support/file-app.ts';
import { json, upload } from '../support/http.ts';
import { documentedResponsesAt, downloadDocumented } from '../support/documented-responses.ts';
import { AUDIO_FORMAT_IDS, isAudioFormat } from '../../src/engines/ffmpeg-formats.ts';
import { aviWithHls, concatList, decode, hlsPlaylist, tone } from './support/audio-fixtures.ts';
import { runInIsolatedNetwork } from '../support/isolated-network.ts';

// It tries refused addresses: in a network namespace with only loopback, a regression could reach nothing.
await runInIsolatedNetwork(import.meta.filename);

describe('audio tools over HTTP', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;
  let dir: string;
  const tones = new Map<string, Buffer>();

  async function sourceOf(format: string, seconds = 3, channels: 1 | 2 = 2): Promise<Buffer> {
    const key = `${format}-${seconds}-${channels}`;
    if (!tones.has(key)) {
      if (!isAudioFormat(format)) throw new Error(format);
      tones.set(key, await readFile(await tone(path.join(dir, `${key}.${format}`), format, { seconds, channels })));
    }
    return tones.get(key)!;
  }

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'audio-tools-test-'));
    ({ t, base, apiKey } = await startFileApp());
  });
  after(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('offers 30 conversions and lists them at /api/v1/audio/supported-conversions', async () => {
    const tools = t.services.catalog.tools.filter((tool) => tool.family === 'audio' && tool.kind === 'file');
    assert.equal(tools.length, 30);
    const res = await fetch(`${base}/api/v1/audio/supported-conversions`);
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.deepEqual(Object.keys(body.supported_conversions), ['flac', 'm4a', 'mp3', 'ogg', 'opus', 'wav']);
    assert.deepEqual(body.supported_conversions.mp3, ['flac', 'm4a', 'ogg', 'opus', 'wav']);
    assert.deepEqual(body.supported_conversions.wav, ['flac', 'm4a', 'mp3', 'ogg', 'opus']);
    assert.equal(Object.values(body.supported_conversions as Record<string, string[]>).flat().length, 30);
    assert.equal(typeof body.message, 'string');
    assert.equal(body.limits.maxOutputBytes, 100 * 1024 * 1024);
  });

  for (const from of AUDIO_FORMAT_IDS) {
    it(`converts every example from ${from}, and the decoded result has the duration and channels asked for; the answer and download are as /openapi.json documents them`, async () => {
      const documented = await documentedResponsesAt(base);
      const tools = t.services.catalog.tools.filter((tool) => tool.family === 'audio' && tool.conversion?.from === from);
      assert.equal(tools.length, 5);
      for (const tool of tools) {
        for (const example of tool.fileExamples ?? []) {
          const src = example.source as { seconds: number; channels: 1 | 2 };
          const content = await sourceOf(from, src.seconds, src.channels);
          const fields = Object.fromEntries(Object.entries(example.input as Record<string, number>).map(([k, v]) => [k, String(v)]));
          const res = await upload(base, tool.path, apiKey, { name: `tone.${from}`, content }, fields);
          const body = await json(res);
          assert.equal(res.status, 200, `${tool.operationId} ${example.title}: ${JSON.stringify(body)}`);
          assert.deepEqual(documented.problems({ path: tool.path, method: 'POST', status: res.status, contentType: res.headers.get('content-type') ?? undefined, body }), [], `${tool.operationId} ${example.title}`);
          assert.equal(body.result.mimeType, example.expect.mimeType);
          assert.equal(body.result.fileName, `tone.${example.expect.extension}`);
          const result = path.join(dir, `result-${tool.slug}.${example.expect.extension}`);
          const { writeFile } = await import('node:fs/promises');
          await writeFile(result, await downloadDocumented(documented, base, body, `${tool.operationId} ${example.title}`));
          const decoded = await decode(result);
          const facts = example.expect.facts as { durationSeconds: number; channels: number; sampleRate?: number; bitrateKbps?: number; codec?: string };
          const label = `${tool.operationId} ${example.title}`;
          assert.ok(Math.abs(decoded.decodedSeconds - facts.durationSeconds) < 0.1, `${label}: decoded ${decoded.decodedSeconds} s`);
          assert.equal(decoded.channels, facts.channels, label);
          if (facts.sampleRate !== undefined) assert.equal(decoded.sampleRate, facts.sampleRate, label);
          if (facts.codec !== undefined) assert.equal(decoded.codec, facts.codec, label);
          // Encoders aim at the bitrate: CBR MP3 hits it; VBR/ABR encoders land near it.
          if (facts.bitrateKbps !== undefined && decoded.bitRate !== null) {
            assert.ok(Math.abs(decoded.bitRate / 1000 - facts.bitrateKbps) / facts.bitrateKbps < 0.35, `${label}: ${decoded.bitRate} bit/s for ${facts.bitrateKbps} kbit/s`);
          }
        }
      }
    });
  }

  it('answers 400 naming the field for a bitrate, sample rate or channel count out of range', async () => {
    const content = await sourceOf('wav');
    const cases: [string, Record<string, string>, string][] = [
      ['/api/v1/audio/wav-to-mp3', { bitrate: '0' }, 'bitrate'],
      ['/api/v1/audio/wav-to-mp3', { bitrate: '500' }, 'bitrate'],
      ['/api/v1/audio/wav-to-mp3', { bitrate: 'loud' }, 'bitrate'],
      ['/api/v1/audio/wav-to-opus', { sample_rate: '44100' }, 'sample_rate'],
      ['/api/v1/audio/wav-to-mp3', { sample_rate: '96000' }, 'sample_rate'],
      ['/api/v1/audio/wav-to-ogg', { channels: '3' }, 'channels'],
      ['/api/v1/audio/wav-to-ogg', { channels: '0' }, 'channels'],
      // A lossless target takes no bitrate: an unknown field is named, not ignored.
      ['/api/v1/audio/wav-to-flac', { bitrate: '128' }, 'bitrate'],
    ];
    for (const [route, fields, field] of cases) {
      const res = await upload(base, route, apiKey, { name: 'tone.wav', content }, fields);
      const body = await json(res);
      assert.equal(res.status, 400, `${route} ${JSON.stringify(fields)}: ${JSON.stringify(body)}`);
      assert.equal(body.status, false);
      assert.ok(JSON.stringify(body).includes(field), `${route}: names ${field}: ${JSON.stringify(body)}`);
    }
  });

  describe('hostile files (issue 12 §8)', () => {
    async function refused(name: string, content: Buffer | string, route: string, status: number, error: string): Promise<void> {
      const res = await upload(base, route, apiKey, { name, content });
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      const body = await json(res);
      assert.equal(res.status, status, `${name}: ${JSON.stringify(body)}`);
      assert.equal(body.status, false);
      assert.equal(body.error, error, `${name}: ${JSON.stringify(body)}`);
      const text = JSON.stringify(body);
      assert.ok(!text.includes('root:x:0:0') && !text.includes(t.dataDir) && !text.includes(os.tmpdir() + '/'), `${name}: nothing leaks: ${text}`);
    }

    it('an HLS playlist or a concat list named .mp3 is not audio: 415, nothing read', async () => {
      await refused('playlist.mp3', hlsPlaylist('file:///etc/passwd'), '/api/v1/audio/mp3-to-wav', 415, 'unsupported_file_type');
      await refused('concat.mp3', concatList('/etc/passwd'), '/api/v1/audio/mp3-to-wav', 415, 'unsupported_file_type');
      await refused('remote.m4a', hlsPlaylist('http://169.254.169.254/latest/meta-data/'), '/api/v1/audio/m4a-to-mp3', 415, 'unsupported_file_type');
    });

    it('an AVI with an embedded HLS playlist is not audio, whatever it is named: 415', async () => {
      for (const from of AUDIO_FORMAT_IDS) await refused(`movie.${from}`, aviWithHls('file:///etc/passwd'), `/api/v1/audio/${from}-to-${from === 'mp3' ? 'wav' : 'mp3'}`, 415, 'unsupported_file_type');
    });

    it('a truncated file of each type: 422', async () => {
      for (const from of AUDIO_FORMAT_IDS) {
        const whole = await sourceOf(from, 10, 2);
        const res = await upload(base, `/api/v1/audio/${from}-to-${from === 'wav' ? 'flac' : 'wav'}`, apiKey, { name: `cut.${from}`, content: whole.subarray(0, Math.floor(whole.length / 2)) });
        const body = await json(res);
        assert.equal(res.status, 422, `${from}: ${JSON.stringify(body)}`);
        assert.ok(['corrupt_document', 'unprocessable_input'].includes(body.error), `${from}: ${body.error}`);
      }
    });

    it('a 0-byte file: 400 empty_file', async () => {
      await refused('empty.mp3', Buffer.alloc(0), '/api/v1/audio/mp3-to-wav', 400, 'empty_file');
    });

    it('leaves the service working and no work folder behind', async () => {
      const res = await upload(base, '/api/v1/audio/flac-to-mp3', apiKey, { name: 'after.flac', content: await sourceOf('flac') });
      assert.equal(res.status, 200);
      assert.deepEqual(await workFolders(t), []);
    });
  });
});
