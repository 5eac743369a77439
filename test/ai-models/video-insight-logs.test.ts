// The provider key never reaches a log: real server processes at LOG_LEVEL=debug, one per
// provider, whose stand-ins fail in every way the tool maps (a 400 and a 500 quoting the key back,
// a 429 with its retry hint, an answer that is not the API's JSON, no answer at all until the time
// limit, a 401) and then succeed, for a platform URL and a downloaded video. Everything each
// process wrote is then searched for its key.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type Server } from '../support/server-process.ts';
import { providerEnv } from './support/insight-suite.ts';
import { makeVideo, startGeminiStandIn, startOpenAiStandIn, startVideoWeb, type StandIn, type VideoWeb } from './support/provider-stand-in.ts';

const PATH = '/api/v1/ai-models/video-insight';
const GEMINI_KEY = 'AIzaSy-log-test-gemini-key-0c9f4e';
const OPENAI_KEY = 'sk-log-test-openai-key-71b2d5';
const API_KEY = /uts_live_[A-Za-z0-9_-]{32}/;

async function post(server: Server, apiKey: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('video-insight: the provider key is in no log line, failing calls included', () => {
  const dirs: string[] = [];
  const servers: Server[] = [];
  let gemini: StandIn;
  let openai: StandIn;
  let web: VideoWeb;
  before(async () => {
    gemini = await startGeminiStandIn();
    openai = await startOpenAiStandIn();
    web = await startVideoWeb();
  });
  after(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    await gemini?.close();
    await openai?.close();
    await web?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const serve = async (env: Record<string, string>): Promise<{ server: Server; apiKey: string }> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ai-logs-'));
    dirs.push(dataDir);
    const server = await startServer(dataDir, { LOG_LEVEL: 'debug', BOOTSTRAP_ACCOUNT: 'true', EGRESS_ALLOW: '127.0.0.1', ...env });
    servers.push(server);
    const apiKey = API_KEY.exec(server.output())?.[0];
    assert.ok(apiKey, 'the bootstrap key is in the banner');
    return { server, apiKey };
  };

  it('Gemini: 400 and 500 quoting the key, 429, a non-JSON answer, a hang, then success', { timeout: 120_000 }, async () => {
    // Platform URLs only (no download, no ffmpeg): the short AI_TIMEOUT_MS is met by the hang alone.
    const { server, apiKey } = await serve({ ...providerEnv('gemini', GEMINI_KEY, gemini), AI_TIMEOUT_MS: '2000' });
    gemini.queue(
      { status: 400, body: { error: { code: 400, message: `API key not valid: ${GEMINI_KEY}`, status: 'INVALID_ARGUMENT' } } },
      { status: 500, body: { error: { code: 500, message: `internal error for key=${GEMINI_KEY}`, status: 'INTERNAL' } } },
      { status: 429, body: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }] } } },
      { status: 200, headers: { 'content-type': 'text/plain' }, body: `not json ${GEMINI_KEY}` },
      'hang',
    );
    const expected = [502, 502, 503, 502, 504];
    for (const [i, status] of expected.entries()) {
      const res = await post(server, apiKey, { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: `attempt ${i}` });
      assert.equal(res.status, status, `attempt ${i}: ${JSON.stringify(res.body)}`);
      assert.ok(!JSON.stringify(res.body).includes(GEMINI_KEY), `attempt ${i}: the answer quotes no key`);
    }
    const ok = await post(server, apiKey, { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: 'now answer' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    // The stand-in did receive the key (so it was there to leak), the process wrote none of it.
    assert.ok(gemini.requests.every((r) => r.headers['x-goog-api-key'] === GEMINI_KEY));
    const output = server.output();
    assert.match(output, /ai_provider_error/, 'the failures were logged');
    assert.match(output, /API key not valid: \[key\]/, 'with the provider\'s message, the key scrubbed out of it');
    assert.ok(!output.includes(GEMINI_KEY), 'the Gemini key is in no log line');
  });

  it('OpenAI-compatible (a downloaded video, frames): a 401 quoting the key, then success', { timeout: 120_000 }, async () => {
    const { server, apiKey } = await serve(providerEnv('openai-compatible', OPENAI_KEY, openai));
    const video = web.serve('/frames.mp4', 'video/mp4', makeVideo(2, 320, 240));
    openai.queue({ status: 401, body: { error: { message: `Incorrect API key provided: ${OPENAI_KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const refused = await post(server, apiKey, { videoUrl: video, prompt: 'first' });
    assert.equal(refused.status, 502, JSON.stringify(refused.body));
    assert.ok(!JSON.stringify(refused.body).includes(OPENAI_KEY));
    const ok = await post(server, apiKey, { videoUrl: video, prompt: 'second' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok(openai.requests.every((r) => r.headers['authorization'] === `Bearer ${OPENAI_KEY}`));
    const output = server.output();
    assert.match(output, /ai_provider_error/);
    assert.ok(!output.includes(OPENAI_KEY), 'the OpenAI key is in no log line');
  });
});
