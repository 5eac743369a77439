// Issue 17 §4, the inputs the spec promises, through the real MCP server and the SDK's client:
// input.text reaches the text tools and input.code the jobs that read code (a job that reads
// neither answers a free suggest listing the jobs that do); vague goals are free suggestions that
// keep the caller's URL, and "shop" is not a typo of "ship"; the recovery a local_preview_required
// answer offers works when followed as written; the test playbook exists only with TEST_PLAYBOOKS.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listen } from '../support/http.ts';
import { answerOf, type Answer } from '../support/mcp-answer.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

// A realistic page a developer's dev server would serve: head, headings, images, a form.
const PAGE = [
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail running shoes for every terrain | Shop</title>',
  '<meta name="description" content="Trail running shoes with grip for mud, rock and snow, tested on real trails and shipped free within two days.">',
  '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>',
  '<h1>Trail running shoes</h1>',
  ...Array.from({ length: 12 }, (_, i) => `<section><h2>Model ${i + 1}</h2><p>Lightweight shoe number ${i + 1} with a rock plate and a 6 mm drop.</p><img src="/shoe-${i}.jpg" alt="Shoe model ${i + 1}"></section>`),
  '<form action="/subscribe" method="post"><label>E-mail <input type="email" name="email"></label><button>Subscribe</button></form>',
  '</body></html>',
].join('\n');

const TEXT = 'The quick brown fox jumps over the lazy dog. It was not amused. Neither was the cat, who watched from the fence.';
const CODE = ['export function total(items) {', '  let sum = 0;', '  for (const item of items) sum += item.price * item.qty;', '  return sum;', '}', ''].join('\n');

async function connect(base: string, key: string, clients: Client[]): Promise<Client> {
  const client = new Client({ name: 'planner-inputs', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  clients.push(client);
  return client;
}

/** Every string anywhere in an answer's value, for "no example URL left" checks. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

describe('planner inputs (issue 17 §4)', () => {
  let t: TestApp;
  let base: string;
  const clients: Client[] = [];
  let mine: Client;
  let accountId: string;
  before(async () => {
    t = await startTestApp();
    base = await listen(t);
    const a = await t.account({ quota: 1000 });
    accountId = a.accountId;
    mine = await connect(base, a.apiKey, clients);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await (t as TestApp | undefined)?.close();
  });

  const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => answerOf(await mine.callTool({ name, arguments: args }));
  const used = async (): Promise<number> => {
    await t.services.usage.flush();
    return t.services.ledger.used(accountId);
  };

  describe('input.text and input.code', () => {
    it('input.text reaches a text tool: the words of the text are counted, in plan and solve alike', async () => {
      const goal = 'count the words in this text';
      const plan = await call('plan_task', { goal, input: { text: TEXT } });
      assert.equal(plan['status'], 'planned', JSON.stringify(plan).slice(0, 400));
      assert.equal(plan['job'].id, 'text_utilities_word_counter');
      assert.deepEqual(plan['input'], { text: TEXT });
      const solved = await call('solve_task', { goal, input: { text: TEXT }, responseMode: 'full' });
      assert.equal(solved['status'], 'ok', JSON.stringify(solved).slice(0, 600));
      assert.equal(solved['job'].id, 'text_utilities_word_counter');
      const step = solved['jobReport'].steps.find((s: Answer) => s.operationId === 'text_utilities_word_counter');
      assert.equal(step?.status, 'ok', JSON.stringify(solved['jobReport']).slice(0, 600));
      assert.equal(solved['credits'].charged, t.services.catalog.get('text_utilities_word_counter')?.credits);
      assert.match(JSON.stringify(solved['jobReport']), /"words":22\b/, 'the text sent was the text counted');
    });

    it('input.code reaches a tool that reads code as text', async () => {
      const solved = await call('solve_task', { goal: 'count the lines and words of my code', input: { code: CODE }, responseMode: 'full' });
      assert.equal(solved['status'], 'ok', JSON.stringify(solved).slice(0, 600));
      assert.equal(solved['job'].id, 'text_utilities_word_counter');
      assert.match(JSON.stringify(solved['jobReport']), /"lines":5\b/);
    });

    it('input.code sent to a job that reads no code: a free suggest listing the jobs that do, whose first action runs as written', async () => {
      const before = await used();
      const answer = await call('solve_task', { goal: 'audit the seo of my page', input: { code: CODE } });
      assert.equal(answer['status'], 'suggest', JSON.stringify(answer).slice(0, 600));
      assert.equal(answer['code'], 'input_not_taken');
      assert.match(answer['hint'], /seo-audit does not read input\.code/);
      assert.ok(answer['candidates'].length >= 3);
      for (const c of answer['candidates']) {
        const tool = t.services.catalog.get(c.id);
        assert.ok(tool !== undefined && tool.kind === 'json', `${c.id} is a tool that takes content`);
      }
      assert.equal(await used(), before, 'nothing charged');
      const first = answer['nextActions'][0];
      assert.equal(first.tool, 'invoke_tool');
      assert.ok(stringsIn(first.arguments).includes(CODE), 'the code sent is in the suggested call');
      const ran = await mine.callTool({ name: first.tool, arguments: first.arguments });
      assert.notEqual(ran.isError, true, JSON.stringify(ran).slice(0, 400));
    });

    it('plan_task for a goal no job matches, with input.code: the candidates are the jobs that read code', async () => {
      const plan = await call('plan_task', { goal: 'minify this javascript', input: { code: CODE } });
      assert.equal(plan['status'], 'suggest', JSON.stringify(plan).slice(0, 400));
      for (const c of plan['candidates']) assert.equal(t.services.catalog.get(c.id)?.family, 'text-utilities', c.id);
      assert.ok(stringsIn(plan['nextActions'][0].arguments).includes(CODE));
    });

    it('a page sent as input.code is a page: the SEO audit reads it, free', async () => {
      const before = await used();
      const solved = await call('solve_task', { goal: 'audit the seo of my page', input: { code: PAGE } });
      assert.equal(solved['status'], 'ok', JSON.stringify(solved).slice(0, 600));
      assert.equal(solved['mode'], 'local');
      assert.equal(solved['credits'].charged, 0);
      assert.equal(await used(), before);
    });
  });

  describe('vague goals and words of the language', () => {
    const URL_GIVEN = 'https://shop.example/trail';
    for (const goal of [`make my site better ${URL_GIVEN}`, 'make it better', 'convert my file']) {
      it(`"${goal}" is a free suggest${goal.includes('https') ? ' that keeps the URL in every argument that takes one' : ''}`, async () => {
        const before = await used();
        const answer = await call('solve_task', { goal });
        assert.equal(answer['status'], 'suggest', JSON.stringify(answer).slice(0, 600));
        assert.equal(answer['code'], 'vague');
        assert.ok(answer['candidates'].length > 0 && answer['nextActions'].length > 0);
        assert.equal(await used(), before, 'nothing run, nothing charged');
        if (!goal.includes('https')) return;
        assert.equal(answer['exampleInput'].url, URL_GIVEN);
        assert.deepEqual(answer['urls'], [URL_GIVEN]);
        const strings = stringsIn(answer['nextActions']);
        assert.ok(!strings.some((s) => s.includes('https://example.com/')), `no example URL in ${JSON.stringify(answer['nextActions']).slice(0, 800)}`);
        for (const action of answer['nextActions'] as Answer[]) {
          const input = (action.arguments.input ?? {}) as Answer;
          const named = [input.url, input.yourUrl, ...(typeof action.arguments.goal === 'string' && /https?:\/\//.test(action.arguments.goal) ? [action.arguments.goal] : [])].filter((v) => v !== undefined);
          if (action.tool === 'solve_task' || named.length > 0) assert.ok(named.some((v) => String(v).includes(URL_GIVEN)), `${JSON.stringify(action)} keeps ${URL_GIVEN}`);
        }
      });
    }

    it('"Audit the SEO of my shop page" plans the SEO audit alone: shop is a word, not a typo of ship', async () => {
      const plan = await call('plan_task', { goal: `Audit the SEO of my shop page ${URL_GIVEN}` });
      assert.equal(plan['status'], 'planned', JSON.stringify(plan).slice(0, 600));
      assert.equal(plan['job'].id, 'seo-audit');
      assert.ok(!plan['job'].matchedOn.some((w: string) => w.includes('->')), 'no word was corrected');
      assert.deepEqual(plan['input'], { url: URL_GIVEN });
    });
  });

  describe('the localhost recovery, followed as written', () => {
    /** The suggested action that sends the page's HTML, with its placeholder filled by the real page. */
    function htmlAction(answer: Answer): { tool: string; arguments: Answer } {
      const action = (answer['nextActions'] as Answer[]).find((a) => a.arguments?.input?.html !== undefined);
      assert.ok(action !== undefined, JSON.stringify(answer['nextActions']));
      assert.equal(action.arguments.input.html, '<the page HTML>');
      assert.match(action.why, /Replace <the page HTML> with the full HTML source of the page/);
      assert.equal(answer['nextActions'][0], action, 'the recovery that needs nothing deployed comes first');
      return { tool: action.tool, arguments: { ...action.arguments, input: { ...action.arguments.input, html: PAGE } } };
    }

    for (const [label, args] of [
      ['a localhost URL in the goal', { goal: 'audit the seo of http://localhost:3000/' }],
      ['a localhost URL in input.url', { goal: 'seo audit', input: { url: 'http://127.0.0.1:5173/shoes' } }],
      ['a private address for one tool', { goal: 'check the meta tags of http://192.168.1.20:8080/', input: {} }],
    ] as const) {
      it(`${label}: local_preview_required, then its HTML action gives an ok local run, free`, async () => {
        const refused = await call('solve_task', args);
        assert.equal(refused['status'], 'need_input', JSON.stringify(refused).slice(0, 600));
        assert.equal(refused['code'], 'local_preview_required');
        const next = htmlAction(refused);
        assert.equal(next.arguments.input.url, undefined, 'the local URL is not in the suggested input');
        const before = await used();
        const ran = answerOf(await mine.callTool({ name: next.tool, arguments: next.arguments }));
        assert.equal(ran['status'], 'ok', JSON.stringify(ran).slice(0, 600));
        assert.equal(ran['mode'], 'local');
        assert.equal(ran['credits'].charged, 0);
        assert.equal(await used(), before);
      });
    }
  });

  describe('the test playbook', () => {
    it('is neither listed nor loadable nor routable by default (production)', async () => {
      const listed = await call('list_skills', {});
      const ids = stringsIn(listed);
      assert.ok(ids.includes('seo-audit'));
      assert.ok(!ids.includes('test-word-stats'), 'not in list_skills');
      assert.ok(!stringsIn(await call('list_skills', { query: 'word stats' })).includes('test-word-stats'));
      const load = await mine.callTool({ name: 'load_skill', arguments: { skillId: 'test-word-stats' } });
      assert.equal(load.isError, true);
      const run = await call('run_playbook', { skillId: 'test-word-stats', input: { text: TEXT } });
      assert.equal(run['status'], 'error');
      assert.equal(run['error'], 'unknown_skill');
      for (const goal of ['test skill', 'word stats', 'run the test playbook word statistics']) {
        const plan = await call('plan_task', { goal, input: { text: TEXT } });
        assert.ok(!stringsIn(plan).includes('test-word-stats'), `${goal}: ${JSON.stringify(plan).slice(0, 300)}`);
      }
    });

    it('with TEST_PLAYBOOKS=true it is listed and runs', async () => {
      const withTest = await startTestApp({ env: { TEST_PLAYBOOKS: 'true' } });
      try {
        const client = await connect(await listen(withTest), (await withTest.account({ quota: 100 })).apiKey, clients);
        const listed = answerOf(await client.callTool({ name: 'list_skills', arguments: { tag: 'test' } }));
        assert.ok(stringsIn(listed).includes('test-word-stats'));
        const run = answerOf(await client.callTool({ name: 'run_playbook', arguments: { skillId: 'test-word-stats', input: { text: TEXT } } }));
        assert.equal(run['status'], 'ok', JSON.stringify(run).slice(0, 400));
        await client.close();
      } finally {
        await withTest.close();
      }
    });
  });
});
