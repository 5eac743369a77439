// A model reading a video takes minutes; MCP clients give up on a request after 60 s without
// news. invoke_tool reports progress while the call runs (MCP_PROGRESS_INTERVAL_MS), so the
// official client with resetTimeoutOnProgress keeps waiting for a call longer than its timeout.
// Margins are wide: heartbeats every 500 ms against a 10 s client timeout, for a 12 s answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listen } from '../support/http.ts';
import { answerOf } from '../support/mcp-answer.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startGeminiStandIn, type StandIn } from './support/provider-stand-in.ts';

const VIDEO = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const ANSWER_AFTER_MS = 12_000;
const CLIENT_TIMEOUT_MS = 10_000;

describe('a long invoke_tool keeps an MCP client waiting with progress', () => {
  let gemini: StandIn;
  let t: TestApp;
  let client: Client;
  before(async () => {
    gemini = await startGeminiStandIn();
    t = await startTestApp({ env: { AI_PROVIDER: 'gemini', GEMINI_API_KEY: 'gemini-progress-key-77aa', GEMINI_BASE_URL: gemini.baseUrl, MCP_PROGRESS_INTERVAL_MS: '500' } });
    const base = await listen(t);
    const account = await t.account({ plan: 'pro', quota: 1000 });
    client = new Client({ name: 'patient-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': account.apiKey } } }));
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await t?.close();
    await gemini?.close();
  });

  it('answers after longer than the client timeout, with progress that only grows and a last report at its total', async () => {
    gemini.queue({ delayMs: ANSWER_AFTER_MS });
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'invoke_tool', arguments: { operationId: 'ai_models_video_insight', input: { videoUrl: VIDEO, prompt: 'Summarise this video' } } },
      undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: CLIENT_TIMEOUT_MS },
    );
    const answer = answerOf(result);
    assert.equal(answer['status'], 'ok', JSON.stringify(answer).slice(0, 500));
    assert.equal(answer['result'].result ?? answer['result'].text, gemini.answer);
    assert.deepEqual(progress[0], { progress: 0, total: 1, message: 'Running ai_models_video_insight' });
    const beats = progress.slice(1, -1);
    assert.ok(beats.length >= 3, `heartbeats while it ran: ${JSON.stringify(progress)}`);
    for (const beat of beats) {
      assert.match(beat.message ?? '', /^Running ai_models_video_insight \(\d+ s\)$/);
      assert.equal(beat.total, undefined);
    }
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.progress > progress[i - 1]!.progress, `progress grows: ${JSON.stringify(progress)}`);
    const last = progress.at(-1)!;
    assert.deepEqual(last, { progress: last.progress, total: last.progress, message: 'ai_models_video_insight finished' });
  });
});
