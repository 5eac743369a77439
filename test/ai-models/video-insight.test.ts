// ai-models/video-insight through the whole app and the official provider clients, against
// loopback stand-ins of Gemini's and OpenAI's HTTP APIs reached through the base-URL settings.
// The stand-ins record what they received; the tests assert it, and what the caller was charged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCatalog } from '../../src/core/catalog.ts';
import { documentedResponses, type DocumentedResponses } from '../support/documented-responses.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { insightSuite } from './support/insight-suite.ts';
import { jpegSize, makeVideo } from './support/provider-stand-in.ts';

const PATH = '/api/v1/ai-models/video-insight';
const PLATFORM = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const GEMINI_KEY = 'gemini-test-key-5f1c';
const OPENAI_KEY = 'sk-test-openai-9a2b';

const credits = (res: { headers: Record<string, unknown> }) => Number(res.headers['x-credits-remaining']);

/** What /openapi.json says of this answer: the spec's envelope, on success and on every error. */
function assertDocumented(documented: DocumentedResponses, res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }): void {
  assert.deepEqual(documented.problems({ path: PATH, method: 'POST', status: res.statusCode, contentType: String(res.headers['content-type']), body: res.json() }), []);
}

describe('video-insight on Gemini (the @google/genai client against a stand-in)', () => {
  const ai = insightSuite({ provider: 'gemini', key: GEMINI_KEY, web: true, env: { EGRESS_ALLOW: '127.0.0.1' } });
  let video: Buffer;
  let documented: DocumentedResponses;
  before(async () => {
    video = makeVideo(6);
    documented = documentedResponses((await ai.t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  });

  let firstElapsedMs = 0;

  it('passes a platform URL as a file URI with the prompt and the key header, answers the spec envelope, charges by length', async () => {
    // The model takes its time: the cached answer to this question (next test) must not repeat it.
    ai.provider.queue({ delayMs: 400 });
    const first = await ai.t.call(PATH, { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: 'Summarise this video' }, ai.apiKey);
    const body = first.json();
    assert.equal(first.statusCode, 200, JSON.stringify(body));
    assertDocumented(documented, first);
    assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'meta', 'result', 'retryAfterSeconds', 'status']);
    assert.equal(body.status, true);
    assert.equal(body.result, ai.provider.answer);
    assert.equal(body.retryAfterSeconds, 0);
    assert.equal(body.meta.provider, 'gemini');
    assert.equal(body.meta.model, 'gemini-2.5-flash');
    assert.equal(body.meta.source, 'platform');
    assert.equal(body.meta.sentAs, 'file-uri');
    // Gemini read the video itself: its length is estimated from the prompt tokens (1800 / 300 per second).
    assert.equal(body.meta.durationSeconds, 6);
    assert.equal(body.meta.durationFrom, 'tokens');
    assert.deepEqual(body.meta.tokens, { input: 1800, output: 40, total: 1840 });
    assert.equal(body.meta.cached, false);
    assert.ok(Number.isInteger(body.meta.elapsedMs));
    assert.ok(body.meta.elapsedMs >= 400, String(body.meta.elapsedMs));
    firstElapsedMs = body.meta.elapsedMs;
    // 1800 prompt tokens ≈ 6 s of video: 2 credits, the rest of the 10 reserved given back.
    assert.equal(body.meta.credits, 2);
    assert.equal(credits(first), 998);
    const sent = ai.provider.requests.at(-1)!;
    assert.equal(sent.method, 'POST');
    assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(sent.headers['x-goog-api-key'], GEMINI_KEY);
    const parts = sent.json().contents[0].parts;
    assert.deepEqual(parts[0], { fileData: { fileUri: PLATFORM } });
    assert.deepEqual(parts[1], { text: 'Summarise this video' });
  });

  it('answers the same videoUrl and prompt from the cache: no provider call, not charged, meta says so', async () => {
    const before = ai.provider.requests.length;
    const sent = performance.now();
    const again = await ai.t.call(PATH, { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: 'Summarise this video' }, ai.apiKey);
    const wallMs = performance.now() - sent;
    const body = again.json();
    assert.equal(again.statusCode, 200, JSON.stringify(body));
    assert.equal(body.result, ai.provider.answer);
    assert.equal(body.meta.cached, true);
    assert.match(body.meta.cachedAt, /^\d{4}-\d\d-\d\dT/);
    assert.equal(ai.provider.requests.length, before);
    assert.equal(credits(again), 998);
    // meta.credits is what this call charged (nothing), not the 2 the first call was charged.
    assert.equal(body.meta.credits, 0);
    // meta.elapsedMs is this call's (its cache lookup, within the time the request took here), not
    // the 400 ms and more the first call's model took.
    assert.ok(Number.isInteger(body.meta.elapsedMs) && body.meta.elapsedMs >= 0, String(body.meta.elapsedMs));
    assert.ok(body.meta.elapsedMs <= Math.ceil(wallMs), `${body.meta.elapsedMs} ms reported, the request took ${wallMs} ms`);
    assert.notEqual(body.meta.elapsedMs, firstElapsedMs);
    assertDocumented(documented, again);
    // Another prompt is another question.
    const other = await ai.t.call(PATH, { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: 'List the people in it' }, ai.apiKey);
    assert.equal(other.json().meta.cached, false);
    assert.equal(ai.provider.requests.length, before + 1);
    assert.equal(credits(other), 996);
  });

  it('sends a direct video (made with ffmpeg, served on loopback) inline: the very bytes, typed by content', async () => {
    const url = ai.web.serve('/clip.bin', 'application/octet-stream', video);
    const res = await ai.t.call(PATH, { videoUrl: url, prompt: 'What happens?' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 200, JSON.stringify(body));
    assert.equal(body.meta.source, 'download');
    assert.equal(body.meta.sentAs, 'inline');
    assert.ok(Math.abs(body.meta.durationSeconds - 6) < 0.2, String(body.meta.durationSeconds));
    assert.equal(body.meta.durationFrom, 'file');
    assert.equal(body.meta.credits, 2);
    const parts = ai.provider.requests.at(-1)!.json().contents[0].parts;
    assert.equal(parts[0].inlineData.mimeType, 'video/mp4');
    assert.ok(Buffer.from(parts[0].inlineData.data, 'base64').equals(video), 'the downloaded bytes, whole');
    assert.deepEqual(parts[1], { text: 'What happens?' });
  });

  it("maps the provider's 429 with RetryInfo to our 503 with retryAfterSeconds, refunded", async () => {
    const start = credits(await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'warm the cache' }, ai.apiKey));
    ai.provider.queue({
      status: 429,
      body: { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }] } },
    });
    const res = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'busy?' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 503, JSON.stringify(body));
    assertDocumented(documented, res);
    assert.equal(body.error, 'ai_provider_busy');
    assert.equal(body.retryAfterSeconds, 7);
    assert.equal(res.headers['retry-after'], '7');
    assert.equal(body.status, false);
    assert.equal(body.result, '');
    assert.deepEqual(body.meta, {});
    assert.equal(credits(res), start);
    assert.ok(!JSON.stringify(body).includes(GEMINI_KEY));
    // A failure is not cached: the retry reaches the provider.
    const retry = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'busy?' }, ai.apiKey);
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.json().meta.cached, false);
    // Its 503 without a hint: our 503 with the documented 30 s.
    ai.provider.queue({ status: 503, body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } } });
    const unavailable = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'overloaded?' }, ai.apiKey);
    assert.equal(unavailable.statusCode, 503, JSON.stringify(unavailable.json()));
    assert.equal(unavailable.json().error, 'ai_provider_busy');
    assert.equal(unavailable.json().providerStatus, 503);
    assert.equal(unavailable.json().retryAfterSeconds, 30);
    assert.equal(credits(unavailable), credits(retry));
  });

  it("maps the provider's 400 and 500 to 502 naming its status, refunded, never quoting the key", async () => {
    for (const status of [400, 500]) {
      const start = credits(await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'warm the cache' }, ai.apiKey));
      ai.provider.queue({ status, body: { error: { code: status, message: `stand-in says no (key ${GEMINI_KEY})`, status: status === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL' } } });
      const res = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: `fails with ${status}` }, ai.apiKey);
      const body = res.json();
      assert.equal(res.statusCode, 502, JSON.stringify(body));
      assertDocumented(documented, res);
      assert.equal(body.error, 'ai_provider_error');
      assert.equal(body.providerStatus, status);
      assert.match(body.detail, /stand-in says no/);
      assert.ok(!JSON.stringify(body).includes(GEMINI_KEY), 'the key is scrubbed');
      assert.equal(credits(res), start);
    }
  });

  it('refuses bad input with a 4xx naming videoUrl or prompt, with no provider call and nothing charged', async () => {
    const start = credits(await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'warm the cache' }, ai.apiKey));
    const calls = ai.provider.requests.length;
    const notVideo = ai.web.serve('/notes.mp4', 'video/mp4', Buffer.from('just some text pretending to be a video file\n'.repeat(20)));
    // 20 min 1 s at one frame a second (small), and a second of lossless noise (about 9 MB, over FETCH_MAX_BYTES' 5 MB).
    const tooLong = ai.web.serve('/lecture.mp4', 'video/mp4', makeVideo(1201, 64, 48, { rate: 1 }));
    const tooLarge = ai.web.serve('/raw.mp4', 'video/mp4', makeVideo(1, 640, 360, { noise: true }));
    const cases: [unknown, number, string, string][] = [
      [{ prompt: 'x' }, 400, 'validation_error', 'videoUrl'],
      [{ videoUrl: 'ftp://example.com/v.mp4', prompt: 'x' }, 400, 'validation_error', 'videoUrl'],
      [{ videoUrl: 'not a url', prompt: 'x' }, 400, 'validation_error', 'videoUrl'],
      [{ videoUrl: PLATFORM }, 400, 'validation_error', 'prompt'],
      [{ videoUrl: PLATFORM, prompt: 'x'.repeat(4001) }, 400, 'validation_error', 'prompt'],
      [{ videoUrl: 'https://www.youtube.com/watch?v=short', prompt: 'x' }, 400, 'validation_error', 'videoUrl'],
      [{ videoUrl: notVideo, prompt: 'x' }, 422, 'not_a_video', 'videoUrl'],
      [{ videoUrl: `${ai.web.base}/missing.mp4`, prompt: 'x' }, 422, 'fetch_failed', 'videoUrl'],
      [{ videoUrl: tooLong, prompt: 'x' }, 422, 'video_too_long', 'videoUrl'],
      [{ videoUrl: tooLarge, prompt: 'x' }, 422, 'video_too_large', 'videoUrl'],
    ];
    for (const [input, status, error, field] of cases) {
      const res = await ai.t.call(PATH, input, ai.apiKey);
      const body = res.json();
      assert.equal(res.statusCode, status, `${JSON.stringify(input).slice(0, 80)}: ${JSON.stringify(body)}`);
      assertDocumented(documented, res);
      assert.equal(body.error, error);
      assert.match(JSON.stringify(body), new RegExp(field));
      assert.equal(typeof body.retryAfterSeconds, 'number');
    }
    assert.equal(ai.provider.requests.length, calls, 'no provider call');
    const after = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'warm the cache' }, ai.apiKey);
    assert.equal(credits(after), start, 'nothing charged');
  });

  it('is refused on the free plan (403), before anything is charged', async () => {
    const free = await ai.t.account({ plan: 'free' });
    const res = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'x' }, free.apiKey);
    assert.equal(res.statusCode, 403);
    assertDocumented(documented, res);
    assert.equal(res.json().error, 'plan_forbidden');
  });

  it("is listed in the catalog with its credits and the spec's envelope", async () => {
    const tool = (await loadCatalog()).get('ai_models_video_insight');
    assert.ok(tool);
    assert.equal(tool.path, PATH);
    assert.equal(tool.credits, 10);
    assert.equal(tool.errorBody, 'insight');
  });
});

describe('video-insight on an OpenAI-compatible endpoint (the openai client against a stand-in)', () => {
  const ai = insightSuite({ provider: 'openai-compatible', key: OPENAI_KEY, web: true, env: { AI_MODEL: 'llava-test', EGRESS_ALLOW: '127.0.0.1' } });

  it('sends frames sampled with ffmpeg (count and size bounded), the facts and the prompt, with the bearer key', async () => {
    const url = ai.web.serve('/wide.mp4', 'video/mp4', makeVideo(7, 1280, 720));
    const res = await ai.t.call(PATH, { videoUrl: url, prompt: 'Describe the scene' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 200, JSON.stringify(body));
    assert.equal(body.result, ai.provider.answer);
    assert.equal(body.meta.provider, 'openai-compatible');
    assert.equal(body.meta.model, 'llava-test');
    assert.equal(body.meta.sentAs, 'frames');
    // 7 s at one frame per 3 s: 3 frames, the longer side scaled to 768.
    assert.equal(body.meta.frames, 3);
    assert.deepEqual(body.meta.frameSize, { width: 768, height: 432 });
    assert.deepEqual(body.meta.tokens, { input: 1200, output: 40, total: 1240 });
    assert.equal(credits(res), 998);
    const sent = ai.provider.requests.at(-1)!;
    assert.equal(sent.path, '/v1/chat/completions');
    assert.equal(sent.headers['authorization'], `Bearer ${OPENAI_KEY}`);
    const request = sent.json();
    assert.equal(request.model, 'llava-test');
    const content = request.messages[0].content as { type: string; text?: string; image_url?: { url: string } }[];
    assert.equal(content[0]!.type, 'text');
    assert.match(content[0]!.text!, /Describe the scene$/);
    assert.match(content[0]!.text!, /3 frames .* 7 s, is 1280x720 \(h264\)/);
    const images = content.filter((c) => c.type === 'image_url');
    assert.equal(images.length, 3);
    for (const image of images) {
      const [, data] = image.image_url!.url.split('data:image/jpeg;base64,');
      const jpeg = Buffer.from(data!, 'base64');
      assert.equal(jpeg.readUInt16BE(0), 0xffd8, 'a JPEG');
      assert.deepEqual(jpegSize(jpeg), { width: 768, height: 432 });
    }
  });

  it('answers 422 naming why for a platform URL it cannot download, with no provider call, not charged', async () => {
    const calls = ai.provider.requests.length;
    const res = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'x' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 422, JSON.stringify(body));
    assert.equal(body.error, 'video_not_downloadable');
    assert.match(body.message, /videoUrl/);
    assert.equal(ai.provider.requests.length, calls);
    assert.equal(credits(res), 998);
  });

  it("maps the provider's 429 with retry-after to our 503 with retryAfterSeconds, refunded", async () => {
    const url = ai.web.serve('/short.mp4', 'video/mp4', makeVideo(2, 320, 240));
    ai.provider.queue({ status: 429, headers: { 'retry-after': '12' }, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } });
    const res = await ai.t.call(PATH, { videoUrl: url, prompt: 'x' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 503, JSON.stringify(body));
    assert.equal(body.retryAfterSeconds, 12);
    assert.equal(credits(res), 998);
    assert.equal(ai.provider.requests.length >= 1, true);
  });
});

describe('video-insight time limits and configuration', () => {
  // TOOL_TIMEOUT_MS, every other tool's bound, is short here: video-insight carries its own (AI_TIMEOUT_MS).
  const ai = insightSuite({ provider: 'gemini', key: GEMINI_KEY, env: { TOOL_TIMEOUT_MS: '1000', AI_TIMEOUT_MS: '8000' } });
  // An app with no AI_PROVIDER at all.
  let unset: TestApp;
  before(async () => {
    unset = await startTestApp();
  });
  after(async () => {
    await unset?.close();
  });

  it('is not bound by TOOL_TIMEOUT_MS: a provider answering after 2.5 s (TOOL_TIMEOUT_MS 1 s) is answered', async () => {
    ai.provider.queue({ delayMs: 2500 });
    const res = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'take your time' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 200, JSON.stringify(body));
    assert.equal(body.result, ai.provider.answer);
    assert.ok(body.meta.elapsedMs >= 2500, String(body.meta.elapsedMs));
    assert.equal(credits(res), 998);
  });

  it('a stand-in that never answers ends at AI_TIMEOUT_MS: 504 tool_timeout naming the bound, refunded', async () => {
    const start = credits(await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'take your time' }, ai.apiKey));
    ai.provider.queue('hang');
    const res = await ai.t.call(PATH, { videoUrl: PLATFORM, prompt: 'x' }, ai.apiKey);
    const body = res.json();
    assert.equal(res.statusCode, 504, JSON.stringify(body));
    assert.equal(body.error, 'tool_timeout');
    assert.match(body.message, /within 8000 ms/);
    assert.match(body.detail, /AI_TIMEOUT_MS is 8000 ms/);
    assert.equal(body.retryAfterSeconds, 0);
    assert.equal(credits(res), start);
  });

  it('without AI_PROVIDER answers 503 ai_not_configured, not charged', async () => {
    const { apiKey: key } = await unset.account({ plan: 'pro', quota: 1000 });
    const res = await unset.call(PATH, { videoUrl: PLATFORM, prompt: 'x' }, key);
    const body = res.json();
    assert.equal(res.statusCode, 503, JSON.stringify(body));
    assert.equal(body.error, 'ai_not_configured');
    assert.equal(credits(res), 1000);
  });
});
