// A model reading a video takes minutes; MCP clients give up on a request after 60 s without
// news. invoke_tool reports progress while the call runs (MCP_PROGRESS_INTERVAL_MS), so the
// official client with resetTimeoutOnProgress keeps waiting for a call longer than its timeout.
// Margins are wide: heartbeats every 500 ms against a 10 s client timeout, for a 12 s answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerOf } from '../support/mcp-answer.ts';
import { insightSuite } from './support/insight-suite.ts';

const VIDEO = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const ANSWER_AFTER_MS = 12_000;
const CLIENT_TIMEOUT_MS = 10_000;

describe('a long invoke_tool keeps an MCP client waiting with progress', () => {
  const ai = insightSuite({ provider: 'gemini', key: 'gemini-progress-key-77aa', env: { MCP_PROGRESS_INTERVAL_MS: '500' }, mcpClient: 'patient-agent' });

  it('answers after longer than the client timeout, with progress that only grows and a last report at its total', async () => {
    ai.provider.queue({ delayMs: ANSWER_AFTER_MS });
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const result = await ai.mcp.callTool(
      { name: 'invoke_tool', arguments: { operationId: 'ai_models_video_insight', input: { videoUrl: VIDEO, prompt: 'Summarise this video' } } },
      undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: CLIENT_TIMEOUT_MS },
    );
    const answer = answerOf(result);
    assert.equal(answer['status'], 'ok', JSON.stringify(answer).slice(0, 500));
    assert.equal(answer['result'].result ?? answer['result'].text, ai.provider.answer);
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
