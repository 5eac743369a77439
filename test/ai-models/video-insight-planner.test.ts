// The planner routes a video goal to ai-models/video-insight as an agent meets it: through the
// official MCP client against the real MCP server, with a Gemini stand-in as the provider. The
// goal's URL becomes videoUrl and its words the prompt, in plan_task and solve_task alike, and the
// provider receives exactly those; a video on the caller's own machine is need_input, uncharged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerOf, type Answer } from '../support/mcp-answer.ts';
import { insightSuite } from './support/insight-suite.ts';

const KEY = 'gemini-planner-key-31e8';
const VIDEO = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const OPERATION = 'ai_models_video_insight';

describe('the planner routes "summarise this video <url>" to video-insight (MCP, official client)', () => {
  const ai = insightSuite({ provider: 'gemini', key: KEY, mcpClient: 'video-agent' });

  const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => answerOf(await ai.mcp.callTool({ name, arguments: args }));
  const used = async (): Promise<number> => {
    await ai.t.services.usage.flush();
    return ai.t.services.ledger.used(ai.accountId);
  };

  it('plan_task plans video-insight with the URL as videoUrl and the goal\'s words as the prompt, free', async () => {
    const cases: [string, Record<string, string>][] = [
      [`summarise this video ${VIDEO}`, { videoUrl: VIDEO, prompt: 'summarise this video' }],
      ['Summarize this video: https://media.example.com/talks/keynote.mp4', { videoUrl: 'https://media.example.com/talks/keynote.mp4', prompt: 'Summarize this video' }],
      ['what happens in this video? https://youtu.be/dQw4w9WgXcQ', { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: 'what happens in this video?' }],
    ];
    for (const [goal, input] of cases) {
      const plan = await call('plan_task', { goal });
      assert.equal(plan['status'], 'planned', `${goal}: ${JSON.stringify(plan).slice(0, 600)}`);
      assert.equal(plan['job'].id, OPERATION, goal);
      assert.deepEqual(plan['input'], input, goal);
    }
    assert.equal(ai.provider.requests.length, 0, 'planning calls no provider');
    assert.equal(await used(), 0);
  });

  it('solve_task runs it: the provider gets the URL as a file URI and the prompt, the answer is the model\'s, charged by length', async () => {
    const goal = `summarise this video ${VIDEO}`;
    const solved = await call('solve_task', { goal, responseMode: 'full' });
    assert.equal(solved['status'], 'ok', JSON.stringify(solved).slice(0, 800));
    assert.equal(solved['job'].id, OPERATION);
    assert.equal(solved['credits'].charged, 2);
    const step = solved['jobReport'].steps.find((s: Answer) => s.operationId === OPERATION);
    assert.equal(step?.status, 'ok', JSON.stringify(solved['jobReport']).slice(0, 800));
    assert.equal(solved['result'].text, ai.provider.answer);
    assert.equal(solved['result'].meta.source, 'platform');
    assert.equal(solved['result'].meta.credits, 2);
    // The provider received what the goal said, through the client the service ships.
    assert.equal(ai.provider.requests.length, 1);
    const sent = ai.provider.requests[0]!;
    assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(sent.headers['x-goog-api-key'], KEY);
    assert.deepEqual(sent.json().contents[0].parts, [{ fileData: { fileUri: VIDEO } }, { text: 'summarise this video' }]);
    // 10 reserved, 8 given back: the video's length (1800 tokens ≈ 6 s) costs 2.
    assert.equal(await used(), 2);
  });

  it('a video on the caller\'s own machine is need_input local_preview_required naming videoUrl: nothing run, nothing charged', async () => {
    const before = await used();
    const calls = ai.provider.requests.length;
    const answer = await call('solve_task', { goal: 'summarise this video http://localhost:3000/demo.mp4' });
    assert.equal(answer['status'], 'need_input', JSON.stringify(answer).slice(0, 600));
    assert.equal(answer['code'], 'local_preview_required');
    assert.equal(answer['field'], 'videoUrl');
    assert.match(answer['hint'], /public https URL/);
    assert.equal(ai.provider.requests.length, calls);
    assert.equal(await used(), before);
  });
});
