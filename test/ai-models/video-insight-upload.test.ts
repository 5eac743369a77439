// video-insight's Gemini file-upload path: a direct video above the inline limit (14 MB) goes
// through Gemini's resumable upload as the official @google/genai client sends it (a start, then
// 8 MB chunks at their offsets, the last one finalizing), is waited for while PROCESSING, and
// the generateContent call names the uploaded file's URI. The stand-in checks the protocol as
// Google's upload server does (offsets, the announced size) and records what it received.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { GEMINI_INLINE_MAX_BYTES } from '../../src/ai/providers.ts';
import { insightSuite } from './support/insight-suite.ts';
import { makeVideo } from './support/provider-stand-in.ts';

const PATH = '/api/v1/ai-models/video-insight';
const KEY = 'gemini-upload-key-77d0';
const CHUNK = 8 * 1024 * 1024;

describe('video-insight: a direct video over the inline limit goes through Gemini\'s file upload', () => {
  // FETCH_MAX_BYTES (5 MB by default) is raised so the download may hold a video this size.
  const ai = insightSuite({ provider: 'gemini', key: KEY, web: true, env: { EGRESS_ALLOW: '127.0.0.1', FETCH_MAX_BYTES: String(40 * 1024 * 1024) } });
  let video: Buffer;
  before(() => {
    // Two seconds of full-frame sensor noise, lossless: an honest H.264 MP4 of about 18 MB, which
    // the tool types by content (ftyp box), probes and measures like any other video.
    video = makeVideo(2, 640, 360, { noise: true });
  });

  it('uploads the very bytes (resumable, chunked), waits for PROCESSING to become ACTIVE, then asks about the file URI', async () => {
    assert.ok(video.byteLength > GEMINI_INLINE_MAX_BYTES && video.byteLength > 2 * CHUNK, `the video is ${video.byteLength} bytes: over the inline limit, three chunks`);
    ai.provider.processingLooks = 2;
    const url = ai.web.serve('/camera.mp4', 'video/mp4', video);
    const res = await ai.t.call(PATH, { videoUrl: url, prompt: 'Is anything moving in this footage?' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 200, JSON.stringify(body));
    assert.equal(body.result, ai.provider.answer);
    assert.equal(body.meta.source, 'download');
    assert.equal(body.meta.sentAs, 'upload');
    assert.equal(body.meta.durationFrom, 'file');
    assert.ok(Math.abs(body.meta.durationSeconds - 2) < 0.2, String(body.meta.durationSeconds));
    assert.equal(body.meta.credits, 2);
    assert.equal(Number(res.headers['x-credits-remaining']), 998);

    const requests = ai.provider.requests.map((r) => ({ ...r, command: r.headers['x-goog-upload-command'] }));
    // The start: the resumable protocol announcing the size and type, with the key, and the file's metadata.
    const start = requests.findIndex((r) => r.command === 'start');
    assert.ok(start >= 0, 'an upload was started');
    const started = requests[start]!;
    assert.equal(started.method, 'POST');
    assert.equal(started.path, '/upload/v1beta/files');
    assert.equal(started.headers['x-goog-upload-protocol'], 'resumable');
    assert.equal(started.headers['x-goog-upload-header-content-length'], String(video.byteLength));
    assert.equal(started.headers['x-goog-upload-header-content-type'], 'video/mp4');
    assert.equal(started.headers['x-goog-api-key'], KEY);
    assert.equal(started.json().file.mimeType, 'video/mp4');
    // The chunks: 8 MB each at their offsets, the last one finalizing.
    const chunks = requests.filter((r) => typeof r.command === 'string' && r.command.startsWith('upload'));
    assert.deepEqual(
      chunks.map((c) => [c.command, c.headers['x-goog-upload-offset'], c.body.byteLength]),
      [
        ['upload', '0', CHUNK],
        ['upload', String(CHUNK), CHUNK],
        ['upload, finalize', String(2 * CHUNK), video.byteLength - 2 * CHUNK],
      ],
    );
    for (const c of chunks) assert.match(c.path, /^\/upload\/v1beta\/files\?upload_id=f1$/);
    const uploaded = ai.provider.uploads.get('files/f1');
    assert.ok(uploaded, 'the stand-in finalized the upload');
    assert.ok(uploaded.bytes.equals(video), 'the bytes received are the video, whole');
    // The wait: files.get until ACTIVE, and nothing asked of the model before.
    assert.deepEqual(uploaded.looks, ['PROCESSING', 'PROCESSING', 'ACTIVE']);
    const looks = requests.flatMap((r, i) => (r.method === 'GET' && r.path === '/v1beta/files/f1' ? [i] : []));
    assert.equal(looks.length, 3);
    const generate = requests.findIndex((r) => r.path === '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.ok(generate > Math.max(...looks), 'generateContent came after the file was ACTIVE');
    assert.equal(requests.filter((r) => r.path.endsWith(':generateContent')).length, 1);
    // The question names the uploaded file, not its bytes.
    const sent = requests[generate]!;
    assert.ok(sent.body.byteLength < 4096, `the request is small (${sent.body.byteLength} bytes): no inline video`);
    const parts = sent.json().contents[0].parts;
    assert.deepEqual(parts[0], { fileData: { fileUri: uploaded.uri, mimeType: 'video/mp4' } });
    assert.deepEqual(parts[1], { text: 'Is anything moving in this footage?' });
  });

  it('an upload the provider could not process (FAILED) is a 502 naming that state, never asked about, refunded', async () => {
    ai.provider.processingLooks = 1;
    ai.provider.processedAs = 'FAILED';
    const url = ai.web.serve('/unreadable.mp4', 'video/mp4', video);
    const before = ai.provider.requests.length;
    const res = await ai.t.call(PATH, { videoUrl: url, prompt: 'And this one?' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 502, JSON.stringify(body));
    assert.equal(body.error, 'ai_provider_error');
    assert.match(body.detail, /FAILED/);
    assert.equal(body.retryAfterSeconds, 0);
    const asked = ai.provider.requests.slice(before);
    assert.deepEqual(ai.provider.uploads.get('files/f2')?.looks, ['PROCESSING', 'FAILED']);
    assert.equal(asked.filter((r) => r.path.endsWith(':generateContent')).length, 0, 'no question about a file that failed');
    assert.equal(Number(res.headers['x-credits-remaining']), 998, 'refunded');
  });
});
