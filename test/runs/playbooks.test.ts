// The playbook (skill) registry against the real catalog: the shipped playbooks load and price
// from the catalog, list_skills ranks them, load_skill answers whole playbooks or a not-found with
// suggestions, and broken playbook files (written here into temp folders) stop the load with the
// file's name and the problem.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadCatalog, type Catalog } from '../../src/core/catalog.ts';
import { inputSchemaOf } from '../../src/runs/playbooks/playbook-schema.ts';
import { loadPlaybookRegistry, PlaybookLoadError, SkillNotFoundError, type PlaybookRegistry } from '../../src/runs/playbooks/playbook-registry.ts';
import { resolveStep, stepApplies } from '../../src/runs/playbooks/playbook-steps.ts';

const ALL_IDS = ['competitor-comparison', 'document-conversion-check', 'page-speed-audit', 'security-baseline', 'seo-audit', 'ship-check', 'test-word-stats'];
let catalog: Catalog;
let registry: PlaybookRegistry;
const tempDirs: string[] = [];

before(async () => {
  catalog = await loadCatalog();
  registry = await loadPlaybookRegistry(catalog, undefined, { withTestPlaybooks: true });
});

after(async () => {
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

/** A small valid playbook; each broken case changes one thing in it. */
function validPlaybook(id = 'tiny-check'): Record<string, unknown> {
  return {
    id,
    title: 'Tiny check',
    description: 'Checks the meta tags of one page, for the registry tests.',
    version: '1.0.0',
    tags: ['seo'],
    inputs: { url: { type: 'url', description: 'The page', required: true } },
    steps: [{ id: 'meta', operationId: 'seo_apis_meta_tags_analyzer', purpose: 'Meta tags', input: { url: '{{input.url}}' } }],
    scores: ['seo'],
    gate: { policy: 'default' },
    acceptance: ['No high-severity finding'],
    guidance: 'Fix the rank-1 finding, then verify.',
  };
}

/** Writes the files into a fresh temp folder and answers the load error's problems (failing if it loads). */
async function loadProblems(files: Record<string, unknown>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'playbooks-'));
  tempDirs.push(dir);
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  const error = await loadPlaybookRegistry(catalog, dir).then(
    () => assert.fail('the broken playbooks loaded'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof PlaybookLoadError, String(error));
  for (const problem of error.problems) assert.ok(error.message.includes(problem));
  return [...error.problems];
}

async function loadFrom(files: Record<string, unknown>): Promise<PlaybookRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'playbooks-'));
  tempDirs.push(dir);
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), JSON.stringify(content));
  return loadPlaybookRegistry(catalog, dir);
}

function withStep(step: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...validPlaybook(), steps: [step], ...extra };
}

describe('shipped playbooks', () => {
  it('load against the real catalog: the site playbooks and the test one', () => {
    assert.deepEqual(registry.ids(), ALL_IDS);
    for (const id of registry.ids()) {
      const playbook = registry.get(id);
      assert.ok(playbook);
      for (const step of playbook.steps) assert.ok(catalog.get(step.operationId), `${id}: ${step.operationId}`);
    }
    assert.deepEqual(registry.get('test-word-stats')?.tags, ['test']);
  });

  it('seo-audit and security-baseline call the tools they are named for', () => {
    assert.deepEqual(registry.get('seo-audit')?.steps.map((s) => s.operationId), [
      'seo_apis_meta_tags_analyzer',
      'seo_apis_heading_structure_analyzer',
      'seo_apis_image_alt_audit',
      'seo_apis_structured_data_validator',
      'seo_apis_serp_snippet_preview',
      'seo_apis_robots_sitemap_checker',
    ]);
    assert.deepEqual(registry.get('security-baseline')?.steps.map((s) => s.operationId), [
      'security_apis_security_headers_grader',
      'security_apis_tls_certificate_checker',
      'security_apis_cookie_flags_checker',
      'security_apis_cors_checker',
      'seo_apis_mixed_content_checker',
    ]);
  });

  it('ship-check carries the ship gate: tls, security-headers, http-status, mixed-content good; page speed advisory', () => {
    const ship = registry.get('ship-check');
    assert.deepEqual(ship?.gate, { policy: 'ship', requireGood: ['tls', 'security-headers', 'http-status', 'mixed-content'], advisory: ['performance'] });
    assert.deepEqual(ship?.steps.map((s) => s.operationId), [
      'security_apis_tls_certificate_checker',
      'security_apis_security_headers_grader',
      'seo_apis_redirect_chain_checker',
      'seo_apis_mixed_content_checker',
      'seo_apis_page_speed_analyzer',
    ]);
  });
});

describe('load_skill', () => {
  it('answers the whole playbook with a credit estimate equal to the sum of the catalog prices', () => {
    for (const id of registry.ids()) {
      const skill = registry.load(id);
      const sum = skill.playbook.steps.reduce((total, s) => total + (catalog.get(s.operationId)?.credits ?? NaN), 0);
      assert.equal(skill.estimatedCredits.total, sum, id);
      assert.match(skill.estimatedCredits.note, /^An estimate/);
      skill.steps.forEach((view, i) => {
        const tool = catalog.get(skill.playbook.steps[i]?.operationId ?? '');
        assert.equal(view.credits, tool?.credits);
        assert.equal(view.toolTitle, tool?.title);
        assert.equal(view.kind, tool?.kind);
        assert.ok(tool?.description.startsWith(view.toolSummary.replace(/\.\.\.$/, '')));
      });
    }
    // today's prices: five 2-credit tools and robots-sitemap at 3; four 2-credit tools and CORS at 3; two 1-credit tools
    assert.equal(registry.load('seo-audit').estimatedCredits.total, 13);
    assert.equal(registry.load('security-baseline').estimatedCredits.total, 11);
    assert.equal(registry.load('ship-check').estimatedCredits.total, 10);
    assert.equal(registry.load('test-word-stats').estimatedCredits.total, 2);
    assert.equal(registry.load('page-speed-audit').estimatedCredits.total, 6);
    assert.equal(registry.load('competitor-comparison').estimatedCredits.total, 4);
  });

  it("answers the input's JSON Schema: url required, nothing else accepted", () => {
    assert.deepEqual(registry.load('seo-audit').inputSchema, {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { url: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^https?:\\/\\/', description: 'The public http(s) URL of the page to audit' } },
      required: ['url'],
      additionalProperties: false,
    });
    const input = inputSchemaOf(registry.load('security-baseline').playbook);
    assert.equal(input.safeParse({ url: 'https://example.com/' }).success, true);
    assert.equal(input.safeParse({ url: 'https://example.com/', origin: 'https://rival.example.com' }).success, true);
    assert.deepEqual(input.safeParse({}).error?.issues.map((i) => i.path), [['url']]);
    assert.equal(input.safeParse({ url: 'ftp://example.com/' }).success, false);
    assert.equal(input.safeParse({ url: 'https://example.com/', depth: 2 }).error?.issues[0]?.code, 'unrecognized_keys');
    const speed = inputSchemaOf(registry.load('page-speed-audit').playbook);
    assert.equal(speed.safeParse({ url: 'https://example.com/', mode: 'lab' }).success, true);
    assert.equal(speed.safeParse({ url: 'https://example.com/', mode: 'turbo' }).error?.issues[0]?.path[0], 'mode');
    assert.deepEqual(registry.load('competitor-comparison').inputSchema.required, ['url', 'competitorUrl']);
  });

  it('names close ids for an unknown one, as a typed 404 skill_not_found', () => {
    const error = (() => {
      try {
        registry.load('ship-chek');
      } catch (e) {
        return e;
      }
      return assert.fail('loaded an unknown id');
    })();
    assert.ok(error instanceof SkillNotFoundError);
    assert.equal(error.status, 404);
    assert.equal(error.error, 'skill_not_found');
    assert.deepEqual(error.suggestions, ['ship-check']);
    assert.deepEqual(error.extra, { skillId: 'ship-chek', suggestions: ['ship-check'] });
    assert.equal(error.message, 'No playbook has the id "ship-chek". Did you mean "ship-check"?');
    assert.throws(() => registry.load('seo'), { name: 'SkillNotFoundError', suggestions: ['seo-audit'] });
    assert.throws(() => registry.load('security-basline'), { suggestions: ['security-baseline'] });
    assert.throws(() => registry.load('x'.repeat(100_000)), { suggestions: [] });
    assert.throws(() => registry.load('quarterly-tax-filing'), {
      suggestions: [],
      message: 'No playbook has the id "quarterly-tax-filing". Call list_skills to see the playbooks.',
    });
  });
});

describe('list_skills', () => {
  it('lists every playbook by id without a query, as small entries', () => {
    const all = registry.list();
    assert.deepEqual(all.map((e) => e.id), ALL_IDS);
    const ship = all.find((e) => e.id === 'ship-check');
    assert.deepEqual(Object.keys(ship ?? {}).sort(), ['estimatedCredits', 'gatePolicy', 'id', 'summary', 'tags', 'title']);
    assert.equal(ship?.summary, 'Decides whether a page is ready to ship, with the ship gate: TLS, security headers, HTTP status and mixed content must be good.');
    assert.equal(ship?.estimatedCredits, 10);
    assert.equal(ship?.gatePolicy, 'ship');
    for (const entry of all) assert.ok(entry.summary.length <= 200);
  });

  it('filters by tag', () => {
    assert.deepEqual(registry.list({ tag: 'test' }).map((e) => e.id), ['test-word-stats']);
    assert.deepEqual(registry.list({ tag: 'security' }).map((e) => e.id), ['security-baseline', 'ship-check']);
    assert.deepEqual(registry.list({ tag: 'no-such-tag' }), []);
    assert.deepEqual(registry.list({ tag: 'security', query: 'release' }).map((e) => e.id), ['ship-check']);
  });

  it('ranks for a query: names and aliases first, typos tolerated, nothing for unrelated words', () => {
    const first = (query: string) => registry.list({ query })[0]?.id;
    assert.equal(first('seo audit'), 'seo-audit');
    assert.equal(first('SEO-AUDIT'), 'seo-audit');
    assert.equal(first('is my site ready to ship'), 'ship-check');
    assert.equal(first('release check'), 'ship-check');
    assert.equal(first('security headers and tls'), 'security-baseline');
    assert.equal(first('secrity baseline'), 'security-baseline');
    assert.equal(first('cookie flags'), 'security-baseline');
    assert.equal(first('structured data and image alt'), 'seo-audit');
    assert.equal(first('word stats'), 'test-word-stats');
    assert.equal(first('why is my page slow'), 'page-speed-audit');
    assert.equal(first('compare with rival'), 'competitor-comparison');
    assert.deepEqual(registry.list({ query: 'core web vitals' }).map((e) => e.id), ['page-speed-audit']);
    assert.deepEqual(registry.list({ query: 'cookie flags' }).map((e) => e.id), ['security-baseline']);
    assert.deepEqual(registry.list({ query: 'quarterly tax filing' }), []);
    assert.deepEqual(registry.list({ query: 'the and of' }).map((e) => e.id), registry.ids(), 'only stop words: same as no query');
  });
});

describe('broken playbooks fail the load, naming the file and the problem', () => {
  it('an unknown operationId, with the close one', async () => {
    const step = { id: 'meta', operationId: 'seo_apis_meta_tag_analyzer', purpose: 'Meta tags', input: { url: '{{input.url}}' } };
    assert.deepEqual(await loadProblems({ 'tiny-check.json': withStep(step) }), [
      'tiny-check.json: step "meta": unknown operationId "seo_apis_meta_tag_analyzer" (close: seo_apis_meta_tags_analyzer)',
    ]);
  });

  it('a reference to an undeclared input, and to a step that is not earlier', async () => {
    const steps = [
      { id: 'meta', operationId: 'seo_apis_meta_tags_analyzer', purpose: 'Meta tags', input: { url: '{{input.page}}' } },
      { id: 'cors', operationId: 'security_apis_cors_checker', purpose: 'CORS', input: { url: '{{input.url}}', origin: '{{steps.later.result.origin}}' } },
    ];
    assert.deepEqual(await loadProblems({ 'tiny-check.json': { ...validPlaybook(), steps } }), [
      'tiny-check.json: steps.0: step "meta" input.url references input "page", which the playbook does not declare (declared: url)',
      'tiny-check.json: steps.1: step "cors" input.origin references step "later", which is not an earlier step',
    ]);
  });

  it('a bad id, and an id that is not the file name', async () => {
    assert.deepEqual(await loadProblems({ 'Bad_ID.json': validPlaybook('Bad_ID') }), ['Bad_ID.json: id: an id is kebab-case (a-z, 0-9, single hyphens)']);
    assert.deepEqual(await loadProblems({ 'other-name.json': validPlaybook('tiny-check') }), [
      'other-name.json: id "tiny-check" does not match the file name (expected tiny-check.json)',
    ]);
  });

  it('not JSON, a missing field, an unknown field and a bad version', async () => {
    const { guidance: _, ...noGuidance } = validPlaybook();
    const problems = await loadProblems({
      'a-broken.json': '{"id": "a-broken",',
      'b-missing.json': { ...noGuidance, id: 'b-missing' },
      'c-extra.json': { ...validPlaybook('c-extra'), credits: 4 },
      'd-version.json': { ...validPlaybook('d-version'), version: 'v1' },
    });
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.match(problems[0] ?? '', /^a-broken\.json: not JSON: /);
    assert.equal(problems[1], 'b-missing.json: guidance: Invalid input: expected string, received undefined');
    assert.equal(problems[2], 'c-extra.json: Unrecognized key: "credits"');
    assert.equal(problems[3], 'd-version.json: version: a version is semver, e.g. 1.0.0');
  });

  it("a field the tool does not have, a required field left out, a literal the tool refuses", async () => {
    const problems = await loadProblems({
      'tiny-check.json': {
        ...validPlaybook(),
        inputs: { url: { type: 'url', description: 'The page', required: true } },
        steps: [
          { id: 'meta', operationId: 'seo_apis_meta_tags_analyzer', purpose: 'Meta', input: { url: '{{input.url}}', depth: 2 } },
          { id: 'compare', operationId: 'seo_apis_competitor_page_compare', purpose: 'Compare', input: { yourUrl: '{{input.url}}' } },
          { id: 'speed', operationId: 'seo_apis_page_speed_analyzer', purpose: 'Speed', input: { url: '{{input.url}}', mode: 'turbo' } },
        ],
      },
    });
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.equal(problems[0], 'tiny-check.json: step "meta": seo_apis_meta_tags_analyzer has no input field "depth" (fields: url)');
    assert.equal(problems[1], 'tiny-check.json: step "compare": seo_apis_competitor_page_compare needs input field "competitorUrl", which the step does not map');
    assert.match(problems[2] ?? '', /^tiny-check\.json: step "speed": input field "mode" = "turbo" is refused by seo_apis_page_speed_analyzer: /);
  });

  it('a file tool without a file source, and a file source on a tool that takes none', async () => {
    const problems = await loadProblems({
      'tiny-check.json': {
        ...validPlaybook(),
        inputs: { url: { type: 'url', description: 'The page', required: true }, document: { type: 'file', description: 'A .docx', required: true } },
        steps: [
          { id: 'convert', operationId: 'documents_docx_to_pdf', purpose: 'Convert', input: {} },
          { id: 'meta', operationId: 'seo_apis_meta_tags_analyzer', purpose: 'Meta', input: { url: '{{input.url}}' }, file: '{{input.document}}' },
        ],
      },
    });
    assert.deepEqual(problems, [
      'tiny-check.json: step "convert": documents_docx_to_pdf is a file tool; say how the file is given with "file": "{{input.<file input>}}"',
      'tiny-check.json: step "meta": seo_apis_meta_tags_analyzer takes no file, but the step gives one',
    ]);
  });

  it('a ship gate without its four categories, an unused input, a malformed reference', async () => {
    const problems = await loadProblems({
      'tiny-check.json': {
        ...validPlaybook(),
        inputs: { url: { type: 'url', description: 'The page', required: true }, note: { type: 'string', description: 'Unused' } },
        steps: [{ id: 'meta', operationId: 'seo_apis_meta_tags_analyzer', purpose: 'Meta', input: { url: '{{input.url}}{{ url }}' } }],
        scores: ['tls', 'security-headers'],
        gate: { policy: 'ship', requireGood: ['tls', 'security-headers'] },
      },
    });
    assert.deepEqual(problems, [
      'tiny-check.json: steps.0: step "meta" input.url: "{{url}}" is not {{input.<name>}} or {{steps.<id>.result.<path>}}',
      'tiny-check.json: gate.requireGood: a ship gate requires tls, security-headers, http-status, mixed-content to be good; missing: http-status, mixed-content',
    ]);
    const unused = await loadProblems({
      'tiny-check.json': { ...validPlaybook(), inputs: { url: { type: 'url', description: 'The page', required: true }, note: { type: 'string', description: 'Unused' } } },
    });
    assert.deepEqual(unused, ['tiny-check.json: input "note" is declared but no step uses it']);
  });

  it('a file from an input that is not a file, a step id used twice, a when on an undeclared or required input', async () => {
    const problems = await loadProblems({
      'tiny-check.json': {
        ...validPlaybook(),
        steps: [
          { id: 'convert', operationId: 'documents_docx_to_pdf', purpose: 'Convert', input: {}, file: '{{input.url}}' },
          { id: 'convert', operationId: 'seo_apis_meta_tags_analyzer', purpose: 'Meta', input: { url: '{{input.url}}' }, when: 'url' },
          { id: 'cors', operationId: 'security_apis_cors_checker', purpose: 'CORS', input: { url: '{{input.url}}' }, when: 'origin' },
        ],
      },
    });
    assert.deepEqual(problems, [
      'tiny-check.json: steps.0.file: step "convert" file references input "url", which is not of type file',
      'tiny-check.json: steps.1.id: step id "convert" is used twice',
      'tiny-check.json: steps.1.when: step "convert" when names required input "url": the step would always run',
      'tiny-check.json: steps.2.when: step "cors" when references input "origin", which the playbook does not declare',
    ]);
  });

  it('reports every broken file at once, and refuses an empty folder', async () => {
    const problems = await loadProblems({
      'good-one.json': validPlaybook('good-one'),
      'bad-one.json': withStep({ id: 'x', operationId: 'nope_tool', purpose: 'X', input: {} }, { id: 'bad-one' }),
      'bad-two.json': { ...validPlaybook('bad-two'), gate: { policy: 'default', requireGood: ['tls'] } },
    });
    assert.deepEqual(problems, [
      'bad-one.json: step "x": unknown operationId "nope_tool"',
      'bad-one.json: input "url" is declared but no step uses it',
      'bad-two.json: gate: the gate reads "tls", which is not in scores',
      'bad-two.json: gate.requireGood: requireGood belongs to a ship gate; the default gate fails only on high-severity findings and poor scores',
    ]);
    const empty = await loadProblems({});
    assert.equal(empty.length, 1);
    assert.match(empty[0] ?? '', /^no playbook files \(\*\.json\) in /);
  });
});

describe('file workflows and step inputs', () => {
  it('loads a file workflow whose second step reads the first step result, and resolves its inputs', async () => {
    const workflow = {
      ...validPlaybook('docx-to-pdf-verified'),
      tags: ['documents'],
      inputs: { document: { type: 'file', description: 'The .docx to convert', required: true } },
      steps: [
        { id: 'convert', operationId: 'documents_docx_to_pdf', purpose: 'Convert to PDF', input: {}, file: '{{input.document}}' },
        { id: 'extract', operationId: 'documents_pdf_to_txt', purpose: 'Read the PDF text back', input: {}, file: '{{steps.convert.result.downloadUrl}}' },
      ],
      scores: [],
    };
    const own = await loadFrom({ 'docx-to-pdf-verified.json': workflow });
    const skill = own.load('docx-to-pdf-verified');
    assert.deepEqual(skill.steps.map((s) => [s.kind, s.file]), [
      ['file', '{{input.document}}'],
      ['file', '{{steps.convert.result.downloadUrl}}'],
    ]);
    assert.equal(skill.estimatedCredits.total, (catalog.get('documents_docx_to_pdf')?.credits ?? 0) + (catalog.get('documents_pdf_to_txt')?.credits ?? 0));
    const input = inputSchemaOf(skill.playbook);
    assert.equal(input.safeParse({ document: { base64: 'UEsDBA==', fileName: 'a.docx' } }).success, true);
    assert.equal(input.safeParse({ document: { url: 'https://cdn.example.com/a.docx' } }).success, true);
    assert.equal(input.safeParse({ document: { url: 'http://cdn.example.com/a.docx' } }).success, false);
    const second = skill.playbook.steps[1];
    assert.ok(second);
    const scope = { input: {}, results: { convert: { downloadUrl: 'https://files.example.com/x.pdf', fileId: 'f' } } };
    assert.deepEqual(resolveStep(second, scope), { input: {}, file: 'https://files.example.com/x.pdf' });
  });

  it('keeps the type of a whole reference, splices one inside text, and leaves an optional input out', () => {
    const share = registry.get('test-word-stats')?.steps[1];
    assert.ok(share);
    assert.deepEqual(resolveStep(share, { input: { text: 'a b' }, results: { count: { words: 8, sentences: 2 } } }), {
      input: { mode: 'what-percent', x: 2, y: 8 },
    });
    const cors = registry.get('security-baseline')?.steps.find((s) => s.id === 'cors');
    assert.ok(cors);
    assert.deepEqual(resolveStep(cors, { input: { url: 'https://example.com/' }, results: {} }), { input: { url: 'https://example.com/' } });
    assert.deepEqual(resolveStep(cors, { input: { url: 'https://example.com/', origin: 'https://rival.example.com' }, results: {} }), {
      input: { url: 'https://example.com/', origin: 'https://rival.example.com' },
    });
    const spliced = { id: 's', operationId: 'x', purpose: 'p', input: { text: 'page {{input.url}} has {{steps.count.result.words}} words' } };
    assert.deepEqual(resolveStep(spliced, { input: { url: 'https://example.com/' }, results: { count: { words: 3 } } }).input, {
      text: 'page https://example.com/ has 3 words',
    });
    assert.equal(stepApplies({ ...spliced, when: 'origin' }, { input: {}, results: {} }), false);
    assert.equal(stepApplies({ ...spliced, when: 'origin' }, { input: { origin: 'https://rival.example.com' }, results: {} }), true);
  });
});
