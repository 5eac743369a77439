// plan_task's answer and the input resolution solve_task shares, on the real catalog and the
// shipped playbooks: need_input for missing fields and for local or private URLs (never fetched),
// the plan's skills, tools and exact credit estimate, free local analysis of input.html, feature
// memory's record keeping on every answer, the golden path only for preview goals, and absurd goals.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadCatalog } from '../../../src/core/catalog.ts';
import { loadPlaybookRegistry } from '../../../src/runs/playbooks/playbook-registry.ts';
import { matchGoal, type Registries } from '../../../src/runs/planner/goal-matcher.ts';
import { contentFieldOf, isHtmlMarkup } from '../../../src/runs/planner/input-content.ts';
import { playbookStepNeeds, resolveJobInput } from '../../../src/runs/planner/input-resolution.ts';
import { judgeUrl } from '../../../src/runs/planner/local-url.ts';
import { planTask, routeGoal, type PlanAnswer } from '../../../src/runs/planner/plan.ts';
import { curatedExampleGoals } from '../../../src/runs/planner/planner-answers.ts';

let registries: Registries;
const PAGE_HTML = '<!doctype html><html lang="en"><head><title>Trail shoes | Shop</title></head><body><h1>Trail shoes</h1><img src="/a.jpg"></body></html>';

before(async () => {
  const catalog = await loadCatalog();
  registries = { catalog, playbooks: await loadPlaybookRegistry(catalog) };
});

function expectStatus<S extends PlanAnswer['status']>(answer: PlanAnswer, status: S): Extract<PlanAnswer, { status: S }> {
  assert.equal(answer.status, status, JSON.stringify(answer).slice(0, 600));
  return answer as Extract<PlanAnswer, { status: S }>;
}

describe('need_input', () => {
  it('a playbook goal without a URL names the missing url, with a hint and an example input', () => {
    const a = expectStatus(planTask('run a security baseline', undefined, registries), 'need_input');
    assert.equal(a.code, 'missing_input');
    assert.deepEqual(a.missing, ['url']);
    assert.deepEqual(a.job, { kind: 'playbook', id: 'security-baseline', title: 'Security baseline: headers, TLS, cookies, CORS, mixed content', confidence: 1 });
    assert.deepEqual(a.exampleInput, { url: 'https://example.com/' });
    assert.match(a.hint, /input\.url/);
    assert.match(a.hint, /security-headers, tls, cookies, cors, mixed-content read the live page/);
    assert.deepEqual(a.nextActions[0], { tool: 'solve_task', arguments: { goal: 'run a security baseline', input: { url: 'https://example.com/' } }, why: 'The same goal with input.url filled in (replace the example values)' });
    assert.ok(a.exampleGoals.length >= 1 && a.exampleGoals[0]?.leadsTo === 'security-baseline');
  });

  it('an SEO audit without a URL offers input.html instead, since every step can read HTML', () => {
    const a = expectStatus(planTask('seo audit', {}, registries), 'need_input');
    assert.deepEqual(a.missing, ['url']);
    assert.match(a.hint, /pass the page's HTML as input\.html/);
  });

  it('a competitor comparison with one URL in the goal misses only competitorUrl', () => {
    const a = expectStatus(planTask('compare my page https://mine.example/ with my competitor', undefined, registries), 'need_input');
    assert.deepEqual(a.missing, ['competitorUrl']);
    assert.deepEqual(a.exampleInput, { url: 'https://example.com/', competitorUrl: 'https://competitor.example/' });
    assert.deepEqual(a.nextActions[0]?.arguments, { goal: 'compare my page https://mine.example/ with my competitor', input: { url: 'https://example.com/', competitorUrl: 'https://competitor.example/' } });
  });

  it('a tool goal without its fields names them with the tool\'s example input', () => {
    const a = expectStatus(planTask('work out my loan EMI', undefined, registries), 'need_input');
    assert.deepEqual({ code: a.code, job: a.job.id, missing: a.missing }, { code: 'missing_input', job: 'calculators_emi_calculator', missing: ['principal', 'rate', 'tenure'] });
    assert.deepEqual(a.exampleInput, { principal: 10000, rate: 12, tenure: 2 });
    assert.deepEqual(a.nextActions[1], { tool: 'invoke_tool', arguments: { operationId: 'calculators_emi_calculator', input: { principal: 10000, rate: 12, tenure: 2 } }, why: 'Runs the tool "EMI calculator" directly' });
  });

  it('a file tool without a file names input.file', () => {
    const a = expectStatus(planTask('convert docx to pdf', undefined, registries), 'need_input');
    assert.deepEqual(a.missing, ['file']);
    assert.deepEqual((a.exampleInput as { file?: unknown }).file, { base64: '<the file, base64-encoded>', fileName: 'document.docx' });
    const invoke = a.nextActions.find((n) => n.tool === 'invoke_tool');
    assert.deepEqual(invoke?.arguments.file, { base64: '<the file, base64-encoded>', fileName: 'document.docx' }, 'the file goes beside invoke_tool\'s input');
    assert.equal((invoke?.arguments.input as Record<string, unknown>).file, undefined);
  });

  const LOCAL = [
    ['http://localhost:3000/', 'localhost'],
    ['http://127.0.0.1:3000', 'loopback'],
    ['http://[::1]:8080/page', 'loopback'],
    ['http://10.1.2.3/', 'private'],
    ['https://shop.localhost/', 'local name'],
    ['http://printer.local/', 'local name'],
    ['http://192.168.0.10:5173/', 'private'],
    ['http://devbox:3000/', 'single-label'],
  ] as const;
  for (const [url, why] of LOCAL) {
    it(`${url} (${why}) -> need_input local_preview_required, from input.url or from the goal`, () => {
      for (const [goal, input] of [['is my site ready to ship', { url }], [`is ${url} ready to ship`, undefined]] as const) {
        const a = expectStatus(planTask(goal, input, registries), 'need_input');
        assert.equal(a.code, 'local_preview_required', goal);
        assert.deepEqual(a.missing, ['url']);
        assert.equal(a.field, 'url');
        assert.equal(a.url, new URL(url).href);
        assert.ok(typeof a.reason === 'string' && a.reason.length > 0);
        assert.match(a.hint, /Deploy a preview at a public https URL/);
      }
    });
  }

  it('a local URL for an HTML-answerable job offers input.html as the free alternative', () => {
    const a = expectStatus(planTask('seo audit of http://localhost:3000/', undefined, registries), 'need_input');
    assert.equal(a.code, 'local_preview_required');
    assert.match(a.hint, /input\.html for a free local analysis/);
    // issue 17 §4: the HTML recovery comes first, and works as written (the local URL in the goal only names the page)
    assert.deepEqual(a.nextActions[0], {
      tool: 'solve_task',
      arguments: { goal: 'seo audit of http://localhost:3000/', input: { html: '<the page HTML>' } },
      why: 'Replace <the page HTML> with the full HTML source of the page (what http://localhost:3000/ serves): it is analysed free, with no fetch',
    });
    const followed = routeGoal('seo audit of http://localhost:3000/', { html: PAGE_HTML }, registries);
    assert.equal(followed.status, 'ready');
    if (followed.status === 'ready') assert.deepEqual([followed.resolved.mode, followed.resolved.input, followed.resolved.fromGoal], ['local', {}, []]);
  });

  it('a local input.url beside input.html is left out (ignored), never fetched and never refused', () => {
    for (const [goal, input] of [
      ['seo audit', { url: 'http://localhost:3000/', html: PAGE_HTML }],
      ['check the meta tags', { url: 'http://10.0.0.7/', html: PAGE_HTML }],
    ] as const) {
      const r = routeGoal(goal, input, registries);
      assert.equal(r.status, 'ready', `${goal}: ${JSON.stringify(r).slice(0, 300)}`);
      if (r.status === 'ready') {
        assert.equal(r.resolved.mode, 'local', goal);
        assert.equal(r.resolved.input.url, undefined, goal);
        assert.deepEqual(r.resolved.ignored, ['url'], goal);
      }
    }
    // A job that needs the live page still refuses the local URL: HTML cannot answer it.
    const live = routeGoal('security baseline', { url: 'http://localhost:3000/', html: PAGE_HTML }, registries);
    assert.deepEqual(live.status === 'need_input' ? live.code : live.status, 'local_preview_required');
  });

  it('a URL that is not http(s) is invalid_input naming the field', () => {
    const a = expectStatus(planTask('seo audit', { url: 'ftp://example.com/' }, registries), 'need_input');
    assert.deepEqual({ code: a.code, field: a.field, missing: a.missing }, { code: 'invalid_input', field: 'url', missing: ['url'] });
  });

  it('judgeUrl: public, local and invalid', () => {
    assert.deepEqual(judgeUrl('https://Example.com'), { kind: 'public', url: 'https://example.com/' });
    assert.equal(judgeUrl('http://0x7f.1/').kind, 'local', 'a hex loopback address is still loopback');
    assert.equal(judgeUrl('http://169.254.169.254/latest').kind, 'local');
    assert.equal(judgeUrl('javascript:alert(1)').kind, 'invalid');
    assert.equal(judgeUrl(42).kind, 'invalid');
  });
});

describe('planned', () => {
  it('an SEO audit of a public URL: the skill, its six tools and an estimate of exactly 13 credits', () => {
    const a = expectStatus(planTask("chek my sito's seo https://example.com", undefined, registries), 'planned');
    assert.equal(a.job.id, 'seo-audit');
    assert.equal(a.confidence, 1);
    assert.deepEqual(a.skills, ['seo-audit']);
    assert.deepEqual(a.tools.map((t) => [t.stepId, t.operationId, t.credits, t.access, t.billed]), [
      ['meta-tags', 'seo_apis_meta_tags_analyzer', 2, 'html', true],
      ['headings', 'seo_apis_heading_structure_analyzer', 2, 'html', true],
      ['image-alt', 'seo_apis_image_alt_audit', 2, 'html', true],
      ['structured-data', 'seo_apis_structured_data_validator', 2, 'html', true],
      ['serp-snippet', 'seo_apis_serp_snippet_preview', 2, 'html', true],
      // on HTML passed in no robots.txt applies (robots-sitemap-local.ts), so it too runs free locally
      ['crawlability', 'seo_apis_robots_sitemap_checker', 3, 'html', true],
    ]);
    assert.equal(a.estimatedCredits.total, 13);
    assert.equal(a.estimatedCredits.estimate, true);
    assert.match(a.estimatedCredits.note, /^An estimate, not a charge/);
    assert.deepEqual(a.input, { url: 'https://example.com/' });
    assert.equal(a.mode, 'live');
    assert.deepEqual(a.nextActions[0], { tool: 'run_playbook', arguments: { skillId: 'seo-audit', input: { url: 'https://example.com/' } }, why: 'Runs "SEO audit of one page" and attaches verification.evidence; then follow loop.nextActions' });
  });

  it('estimates are the catalog sums: security baseline 11, ship check 10, page speed 6', () => {
    const total = (goal: string) => expectStatus(planTask(goal, { url: 'https://example.com/' }, registries), 'planned').estimatedCredits.total;
    assert.equal(total('security baseline'), 11);
    assert.equal(total('is it ready to ship'), 10);
    assert.equal(total('page speed audit'), 6);
  });

  it('input.html for an HTML-answerable playbook is local and free unless enhance', () => {
    const html = '<!doctype html><html><head><title>x</title></head><body></body></html>';
    const free = expectStatus(planTask('seo audit', { html }, registries), 'planned');
    assert.equal(free.mode, 'local');
    assert.equal(free.estimatedCredits.total, 0);
    assert.ok(free.tools.every((t) => !t.billed));
    assert.deepEqual(free.nextActions[0]?.arguments, { skillId: 'seo-audit', input: { html } });
    const enhanced = expectStatus(planTask('seo audit', { html }, registries, { enhance: true }), 'planned');
    assert.equal(enhanced.estimatedCredits.total, 13);
  });

  it('input.html for a playbook that reads the live page still needs a URL', () => {
    const a = expectStatus(planTask('security baseline', { html: '<html></html>' }, registries), 'need_input');
    assert.deepEqual(a.missing, ['url']);
  });

  it('a single tool: no skills, the tool with its price, solve_task then invoke_tool', () => {
    const a = expectStatus(planTask('work out my loan EMI', { principal: 500000, rate: 9, tenure: 20 }, registries), 'planned');
    assert.deepEqual(a.skills, []);
    assert.deepEqual(a.tools, [{ operationId: 'calculators_emi_calculator', title: 'EMI calculator', credits: 1, access: 'json', runs: true, billed: true }]);
    assert.equal(a.estimatedCredits.total, 1);
    assert.deepEqual(a.nextActions.map((n) => n.tool), ['solve_task', 'invoke_tool']);
    assert.deepEqual(a.nextActions[1]?.arguments, { operationId: 'calculators_emi_calculator', input: { principal: 500000, rate: 9, tenure: 20 } });
  });

  it('a competitor comparison takes the goal\'s two URLs in order', () => {
    const a = expectStatus(planTask('compare https://mine.example/ vs my competitor https://theirs.example/', undefined, registries), 'planned');
    assert.deepEqual(a.input, { url: 'https://mine.example/', competitorUrl: 'https://theirs.example/' });
    assert.equal(a.estimatedCredits.total, 4);
  });

  it('playbookStepNeeds: ship-check needs a live fetch for every step', () => {
    const ship = registries.playbooks.get('ship-check');
    assert.ok(ship);
    assert.deepEqual(playbookStepNeeds(ship, registries.catalog).map((n) => [n.stepId, n.needsLiveFetch]), [
      ['tls', true], ['security-headers', true], ['http-status', true], ['mixed-content', true], ['page-speed', true],
    ]);
  });

  it('resolveJobInput keeps caller fields over goal URLs and reports which came from the goal', () => {
    const r = resolveJobInput({ kind: 'playbook', id: 'security-baseline' }, { input: { origin: 'https://o.example' }, goalUrls: ['https://site.example/'] }, registries);
    assert.equal(r.status, 'ready');
    if (r.status !== 'ready') return;
    assert.deepEqual(r.input, { url: 'https://site.example/', origin: 'https://o.example' });
    assert.deepEqual(r.fromGoal, ['url']);
  });
});

describe('feature memory and the golden path', () => {
  const GOALS = ['seo audit https://example.com', 'work out my loan EMI', 'convert my pdf', '', 'is http://localhost:3000 ready to ship'];

  it('every answer carries featureMemory.recordKeeping, automatic unless input.featureMemory.capture=false', () => {
    for (const goal of GOALS) {
      const on = planTask(goal, undefined, registries).featureMemory.recordKeeping;
      assert.equal(on.automatic, true, goal);
      assert.deepEqual(on.recall, { tool: 'recall_context', arguments: {}, why: 'What is stored for this project: features that passed, their requirements and acceptance' });
      assert.match(on.note, /recorded automatically.*input\.featureMemory\.capture=false/);
      const off = planTask(goal, { featureMemory: { capture: false } }, registries).featureMemory.recordKeeping;
      assert.equal(off.automatic, false, goal);
    }
  });

  it('goldenPath only for preview and deploy goals: plan_task, run_playbook ship-check on the preview, the rank-1 fix, verify_task, promote', () => {
    const goal = 'check my PR preview https://pr-42.preview.example/ before we promote it';
    const a = planTask(goal, undefined, registries);
    assert.equal(a.status, 'planned');
    assert.deepEqual(a.goldenPath?.map((s) => s.tool), ['plan_task', 'run_playbook', null, 'verify_task', null, 'fetch_payload']);
    assert.deepEqual(a.goldenPath?.[1]?.arguments, { skillId: 'ship-check', input: { url: 'https://pr-42.preview.example/' } });
    assert.match(a.goldenPath?.[2]?.what ?? '', /rank-1 fix, loop\.nextActions\[0\]/);
    assert.match(a.goldenPath?.[4]?.what ?? '', /only when loop\.gate is pass/);
    for (const g of ['deploy to staging and verify', 'is the vercel deployment ok', 'pull request preview check']) assert.ok(planTask(g, undefined, registries).goldenPath, g);
    for (const g of GOALS.slice(0, 4)) assert.equal(planTask(g, undefined, registries).goldenPath, undefined, g);
  });

  it('a preview goal on localhost keeps the golden path with a placeholder URL, and asks for a public preview', () => {
    const a = expectStatus(planTask('deploy a preview at http://127.0.0.1:3000 and check it', undefined, registries), 'need_input');
    assert.equal(a.code, 'local_preview_required');
    assert.deepEqual(a.goldenPath?.[1]?.arguments, { skillId: 'ship-check', input: { url: '<the public https URL of the preview>' } });
  });
});

describe('suggest', () => {
  it('an ambiguous goal: hint, candidates, 3-5 example goals that each match, an example input, next actions', () => {
    const a = expectStatus(planTask('convert my pdf', undefined, registries), 'suggest');
    assert.equal(a.code, 'ambiguous');
    assert.match(a.hint, /^The goal fits several jobs about equally: documents_/);
    assert.ok(a.exampleGoals.length >= 3 && a.exampleGoals.length <= 5);
    for (const example of a.exampleGoals) {
      const m = matchGoal(example.goal, registries);
      assert.equal(m.best?.id, example.leadsTo, `example goal "${example.goal}" leads where it says`);
    }
    assert.equal(a.exampleGoals[0]?.leadsTo, a.candidates[0]?.id);
    assert.ok(Object.keys(a.exampleInput).includes('file'));
    assert.deepEqual(a.nextActions.slice(-2).map((n) => n.tool), ['list_skills', 'discover_tools']);
    assert.deepEqual(a.nextActions.at(-1)?.arguments, { query: 'convert my pdf' });
  });

  const ABSURD: readonly (readonly [unknown, string])[] = [
    ['', 'empty_goal'],
    ['   \t\n ', 'empty_goal'],
    [undefined, 'empty_goal'],
    ['seo '.repeat(501), 'goal_too_long'],
    ['https://example.com/', 'no_words'],
    ['%%%% $$$ ### !!!', 'no_words'],
    ['qwxz vbnmq jjjkl zzzxq', 'no_words'],
    ['🙂🙂🙂', 'no_words'],
  ];
  for (const [goal, code] of ABSURD) {
    it(`absurd goal ${JSON.stringify(goal)?.slice(0, 40)} -> suggest ${code}, with curated example goals`, () => {
      const a = expectStatus(planTask(goal, undefined, registries), 'suggest');
      assert.equal(a.code, code);
      assert.ok(a.hint.length > 20);
      assert.ok(a.exampleGoals.length >= 3 && a.exampleGoals.length <= 5);
      assert.ok(a.nextActions.length >= 3);
      assert.equal(a.goldenPath, undefined);
      assert.ok(a.featureMemory.recordKeeping.automatic);
    });
  }

  it('a bare URL goal says what to add, with that URL in the example input', () => {
    const a = expectStatus(planTask('https://shop.example/', undefined, registries), 'suggest');
    assert.match(a.hint, /Audit the SEO of https:\/\/shop\.example\//);
    assert.deepEqual(a.exampleInput, { url: 'https://shop.example/' });
    assert.deepEqual(a.urls, ['https://shop.example/']);
  });

  it('every curated example goal matches its job with the shipped registries', () => {
    assert.deepEqual(curatedExampleGoals(registries).map((g) => g.leadsTo), [
      'seo-audit', 'security-baseline', 'ship-check', 'page-speed-audit', 'competitor-comparison', 'calculators_emi_calculator', 'documents_docx_to_pdf',
    ]);
  });
});

describe('input.text and input.code (issue 17 §4)', () => {
  it('input.text fills a text tool\'s text field; input.code a text field when the tool has no code field', () => {
    const text = routeGoal('count the words in this text', { text: 'one two three' }, registries);
    assert.equal(text.status, 'ready');
    if (text.status === 'ready') assert.deepEqual([text.job.id, text.resolved.input, text.resolved.mode], ['text_utilities_word_counter', { text: 'one two three' }, 'plain']);
    const code = routeGoal('reverse this text', { code: 'let x = 1;' }, registries);
    assert.equal(code.status, 'ready');
    if (code.status === 'ready') assert.deepEqual(code.resolved.input, { text: 'let x = 1;' });
    // the caller's own text field wins over code
    const both = routeGoal('reverse this text', { text: 'abc', code: 'let x = 1;' }, registries);
    if (both.status === 'ready') assert.deepEqual(both.resolved.input, { text: 'abc' });
    else assert.fail(both.status);
  });

  it('a need_input for a text tool no longer repeats the caller\'s input: the text given is used', () => {
    const a = planTask('reverse this text', { text: 'stressed' }, registries);
    assert.equal(a.status, 'planned');
  });

  it('content a job cannot read is a free suggest (input_not_taken) listing the jobs that read it, each run on that content', () => {
    const code = 'SELECT 1;';
    for (const [goal, input] of [
      ['work out my loan EMI', { code }],
      ['security baseline of https://example.com/', { code }],
      ['audit the seo of my page', { text: 'Some words about shoes.' }],
    ] as const) {
      const a = planTask(goal, input, registries);
      assert.equal(a.status, 'suggest', goal);
      if (a.status !== 'suggest') continue;
      assert.equal(a.code, 'input_not_taken', goal);
      assert.ok(a.candidates.length >= 3, goal);
      for (const c of a.candidates) {
        const tool = registries.catalog.get(c.id);
        assert.ok(tool !== undefined && contentFieldOf(tool, 'code' in input ? 'code' : 'text') !== undefined, `${goal}: ${c.id} reads it`);
      }
      const first = a.nextActions[0];
      assert.equal(first?.tool, 'invoke_tool', goal);
      assert.ok(Object.values((first?.arguments.input ?? {}) as Record<string, unknown>).includes('code' in input ? code : input.text), goal);
    }
  });

  it('a file conversion asked with input.text answers its own need_input: the content goes in input.file', () => {
    const a = expectStatus(planTask('convert markdown to pdf', { text: '# Notes' }, registries), 'need_input');
    assert.deepEqual([a.code, a.job.id, a.missing], ['missing_input', 'documents_md_to_pdf', ['file']]);
    assert.match(a.hint, /input\.text is not read by a file conversion: send it as a file/);
  });

  it('a goal no job matches, with input.code: the suggest lists only jobs that read the code', () => {
    const a = planTask('minify this javascript', { code: 'function a() { return 1; }' }, registries);
    assert.equal(a.status, 'suggest');
    if (a.status !== 'suggest') return;
    assert.equal(a.code, 'low_confidence');
    assert.match(a.hint, /what to do with the input\.code you sent/);
    assert.ok(a.candidates.length >= 3);
    for (const c of a.candidates) assert.ok(registries.catalog.get(c.id) !== undefined && contentFieldOf(registries.catalog.get(c.id)!, 'code') !== undefined, c.id);
    assert.equal(expectStatus(planTask('', { code: 'x' }, registries), 'suggest').code, 'empty_goal', 'an invalid goal stays what it is');
  });

  it('a page sent as input.code is read as input.html by the jobs that analyse HTML; JSX with a <div> is not a page', () => {
    const page = routeGoal('seo audit', { code: PAGE_HTML }, registries);
    assert.deepEqual(page.status === 'ready' ? [page.resolved.mode, page.resolved.local?.html === PAGE_HTML] : page.status, ['local', true]);
    assert.equal(isHtmlMarkup('export const A = () => <div className="x">hi</div>;'), false);
    assert.equal(isHtmlMarkup('  <!DOCTYPE html><html><body></body></html>'), true);
  });
});

describe('suggest keeps the caller\'s URL (issue 17 §4)', () => {
  it('a vague goal with a URL: every example input and run action names that URL, never the example one', () => {
    const a = expectStatus(planTask('make my site better https://shop.example/trail', undefined, registries), 'suggest');
    assert.equal(a.code, 'vague');
    assert.match(a.hint, /does not say what to do/);
    assert.deepEqual(a.exampleInput, { url: 'https://shop.example/trail' });
    const text = JSON.stringify(a.nextActions);
    assert.ok(!text.includes('https://example.com/'), text);
    for (const n of a.nextActions.filter((n) => n.tool === 'run_playbook' || n.tool === 'invoke_tool')) {
      const input = n.arguments.input as Record<string, unknown>;
      if ('url' in input || 'yourUrl' in input) assert.equal(input.url ?? input.yourUrl, 'https://shop.example/trail');
    }
    for (const g of a.exampleGoals) assert.ok(!g.goal.includes('https://example.com/'), g.goal);
  });
});

describe('routeGoal (solve_task\'s routing)', () => {
  it('ready with the resolved input for a clear goal; the free answers otherwise', () => {
    const ready = routeGoal('page speed audit of https://example.com/', { mode: 'lab' }, registries);
    assert.equal(ready.status, 'ready');
    if (ready.status === 'ready') {
      assert.equal(ready.job.id, 'page-speed-audit');
      assert.deepEqual(ready.resolved.input, { url: 'https://example.com/', mode: 'lab' });
      assert.equal(ready.resolved.mode, 'live');
    }
    const need = routeGoal('page speed audit of http://localhost:5173', undefined, registries);
    assert.deepEqual(need.status === 'need_input' ? [need.code, need.missing] : need.status, ['local_preview_required', ['url']]);
    const bad = routeGoal('page speed audit of https://example.com/', { mode: 'turbo' }, registries);
    assert.deepEqual(bad.status === 'need_input' ? [bad.code, bad.field] : bad.status, ['invalid_input', 'mode']);
    const suggest = routeGoal('banana', undefined, registries);
    assert.deepEqual(suggest.status === 'suggest' ? suggest.code : suggest.status, 'no_words');
  });
});
