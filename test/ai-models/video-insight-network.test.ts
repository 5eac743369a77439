// video-insight's two egress paths, in a network namespace with only loopback: the video download
// obeys the rules of every URL tool (private, local and metadata addresses refused, naming
// videoUrl, with no provider call and nothing charged), while the provider path reaches its one
// configured host, here a stand-in on loopback that EGRESS_ALLOW does not open. And MCP's
// invoke_tool reaches the tool through the official MCP client.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerOf } from '../support/mcp-answer.ts';
import { runInIsolatedNetwork } from '../support/isolated-network.ts';
import { connectMcp, insightSuite } from './support/insight-suite.ts';
import { makeVideo } from './support/provider-stand-in.ts';

await runInIsolatedNetwork(import.meta.filename);

const PATH = '/api/v1/ai-models/video-insight';

describe('video-insight egress: the download refused where every URL tool is, the provider reached', () => {
  // No EGRESS_ALLOW: loopback is refused to the download path.
  const ai = insightSuite({ provider: 'gemini', key: 'net-key', web: true });

  it('refuses private, loopback, local-name and metadata video URLs, naming videoUrl, with no provider call, uncharged', async () => {
    const local = ai.web.serve('/clip.mp4', 'video/mp4', makeVideo(1, 160, 120));
    const urls = [local, 'http://10.0.0.1/v.mp4', 'http://169.254.169.254/latest/meta-data', 'http://metadata.google.internal/v.mp4', 'http://localhost/v.mp4', 'http://[::1]/v.mp4', 'http://192.168.1.10/v.mp4'];
    for (const videoUrl of urls) {
      const res = await ai.t.call(PATH, { videoUrl, prompt: 'x' }, ai.apiKey);
      const body = res.json();
      assert.equal(res.statusCode, 400, `${videoUrl}: ${JSON.stringify(body)}`);
      assert.equal(body.error, 'url_not_allowed', videoUrl);
      assert.equal(body.field, 'videoUrl');
      assert.match(body.message, /^videoUrl: /);
      assert.equal(Number(res.headers['x-credits-remaining']), 1000);
    }
    assert.equal(ai.provider.requests.length, 0, 'no provider call');
  });

  it('reaches the configured provider host on loopback all the same', async () => {
    const res = await ai.t.call(PATH, { videoUrl: 'https://www.youtube.com/shorts/dQw4w9WgXcQ', prompt: 'What is it?' }, ai.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(ai.provider.requests.length, 1);
  });

  it('is reached through MCP invoke_tool', async () => {
    const client = await connectMcp(ai.t, ai.apiKey, 'video-insight-test');
    try {
      const answer = await client.callTool({ name: 'invoke_tool', arguments: { operationId: 'ai_models_video_insight', input: { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: 'Summarise it over MCP' } } });
      const body = answerOf(answer);
      assert.equal(answer.isError === true, false, JSON.stringify(body).slice(0, 500));
      assert.match(JSON.stringify(body), new RegExp(ai.provider.answer));
      assert.deepEqual(ai.provider.requests.at(-1)!.json().contents[0].parts[1], { text: 'Summarise it over MCP' });
    } finally {
      await client.close();
    }
  });
});
