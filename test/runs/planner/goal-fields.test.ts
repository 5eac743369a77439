// What a goal fills in a JSON tool's input (input-resolution.ts): its URLs the tool's URL fields
// (`url`, `…Url`), in order; its words, less those URLs, a field that takes a request in words
// (`prompt`). What the caller sent wins; a goal of nothing but a URL leaves the request missing.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadCatalog } from '../../../src/core/catalog.ts';
import { loadPlaybookRegistry } from '../../../src/runs/playbooks/playbook-registry.ts';
import type { Registries } from '../../../src/runs/planner/goal-matcher.ts';
import { goalRequest, toolFields } from '../../../src/runs/planner/input-content.ts';
import { resolveJobInput } from '../../../src/runs/planner/input-resolution.ts';

let registries: Registries;
before(async () => {
  const catalog = await loadCatalog();
  registries = { catalog, playbooks: await loadPlaybookRegistry(catalog) };
});

const insight = { kind: 'tool', id: 'ai_models_video_insight' } as const;

describe('goal fields of JSON tools', () => {
  it("reads a tool's URL fields and request field from its schema", () => {
    const tool = registries.catalog.get('ai_models_video_insight')!;
    assert.deepEqual(toolFields(tool).urlFields, ['videoUrl']);
    assert.equal(toolFields(tool).goalTextField, 'prompt');
    assert.deepEqual(toolFields(registries.catalog.get('video_tools_video_id_parser')!).urlFields, ['url']);
    assert.equal(toolFields(registries.catalog.get('video_tools_video_id_parser')!).goalTextField, undefined);
  });

  it('takes the words of the goal, less its URLs, as the request', () => {
    assert.equal(goalRequest('Summarise this video:    '), 'Summarise this video');
    assert.equal(goalRequest('what happens   in this video?  '), 'what happens in this video?');
    assert.equal(goalRequest('   —  '), undefined);
  });

  it('fills videoUrl and prompt from the goal; the caller\'s own values win', () => {
    const goal = 'List the people in https://youtu.be/dQw4w9WgXcQ';
    const filled = resolveJobInput(insight, { goal, goalUrls: ['https://youtu.be/dQw4w9WgXcQ'] }, registries);
    assert.equal(filled.status, 'ready');
    if (filled.status === 'ready') {
      assert.deepEqual(filled.input, { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: 'List the people in' });
      assert.deepEqual(filled.fromGoal, ['videoUrl', 'prompt']);
    }
    const given = resolveJobInput(insight, { goal, goalUrls: ['https://youtu.be/dQw4w9WgXcQ'], input: { prompt: 'Name everyone on screen' } }, registries);
    assert.equal(given.status, 'ready');
    if (given.status === 'ready') assert.deepEqual(given.input, { videoUrl: 'https://youtu.be/dQw4w9WgXcQ', prompt: 'Name everyone on screen' });
  });

  it('a goal that is only a URL leaves the prompt missing; a local URL is local_preview_required', () => {
    const bare = resolveJobInput(insight, { goal: 'https://youtu.be/dQw4w9WgXcQ', goalUrls: ['https://youtu.be/dQw4w9WgXcQ'] }, registries);
    assert.equal(bare.status, 'need_input');
    if (bare.status === 'need_input') assert.deepEqual([bare.code, bare.missing], ['missing_input', ['prompt']]);
    const local = resolveJobInput(insight, { goal: 'describe http://192.168.1.20/cam.mp4', goalUrls: ['http://192.168.1.20/cam.mp4'] }, registries);
    assert.equal(local.status, 'need_input');
    if (local.status === 'need_input') assert.deepEqual([local.code, local.field], ['local_preview_required', 'videoUrl']);
  });

  it("fills another JSON tool's url field from the goal too (the video id parser)", () => {
    const r = resolveJobInput({ kind: 'tool', id: 'video_tools_video_id_parser' }, { goal: 'parse https://youtu.be/dQw4w9WgXcQ', goalUrls: ['https://youtu.be/dQw4w9WgXcQ'] }, registries);
    assert.equal(r.status, 'ready');
    if (r.status === 'ready') assert.deepEqual(r.input, { url: 'https://youtu.be/dQw4w9WgXcQ' });
  });
});
