// The goal matcher on goals written the way people write them (typos, synonyms, other word
// orders, mixed case, extra words, URLs inside), against the real catalog and the shipped
// playbooks: each row names the job the goal must reach, or `suggest` when the goal is unclear.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadCatalog } from '../../../src/core/catalog.ts';
import { loadPlaybookRegistry } from '../../../src/runs/playbooks/playbook-registry.ts';
import { matchGoal, MATCH_MARGIN, MATCH_THRESHOLD, type Registries } from '../../../src/runs/planner/goal-matcher.ts';
import { extractUrls, typoDistance } from '../../../src/runs/planner/goal-text.ts';

let registries: Registries;

before(async () => {
  const catalog = await loadCatalog();
  registries = { catalog, playbooks: await loadPlaybookRegistry(catalog) };
});

const SUGGEST = 'suggest';

// [goal, the playbook id or operationId it must reach, or SUGGEST]
const TABLE: readonly (readonly [string, string])[] = [
  // SEO
  ["chek my sito's seo", 'seo-audit'],
  ["check my site's SEO https://example.com", 'seo-audit'],
  ['seo', 'seo-audit'],
  ['SEO AUDIT OF HTTPS://SHOP.EXAMPLE.COM/SHOES PLEASE', 'seo-audit'],
  ['how do I rank higher on google?', 'seo-audit'],
  ['could you review the on-page seo of example.com for me', 'seo-audit'],
  ['serch engine optimisation audit', 'seo-audit'],
  // security and TLS
  ['audit the security headers and TLS of example.com', 'security-baseline'],
  ['secuirty baseline for https://example.com', 'security-baseline'],
  ['check https and cookies on my site', 'security-baseline'],
  ['is my CORS config safe?', 'security-baseline'],
  ['TLS and headers audit, https://example.com', 'security-baseline'],
  ['check my headers', 'security_apis_security_headers_grader'],
  ['when does my ssl certificate expire', 'security_apis_tls_certificate_checker'],
  ['evaluate my content security policy', 'security_apis_csp_evaluator'],
  // ship readiness and previews
  ['is my site ready to ship?', 'ship-check'],
  ['ready to go live? https://example.com', 'ship-check'],
  ['launch readiness check for my landing page', 'ship-check'],
  ['deploy a preview and check it before promoting', 'ship-check'],
  ['Production readiness of https://app.example.com before release', 'ship-check'],
  ['relase chek', 'ship-check'],
  // speed
  ['my website is slow', 'page-speed-audit'],
  ['why is my page so slow https://example.com', 'page-speed-audit'],
  ['Core Web Vitals', 'page-speed-audit'],
  ['test the perfomance of https://example.com', 'page-speed-audit'],
  ['how fast does example.com load', 'page-speed-audit'],
  // competitor
  ['compare my page with my competitor https://a.example https://b.example', 'competitor-comparison'],
  ['me vs my competitor', 'competitor-comparison'],
  ['why does my competitor rank higher than me', 'competitor-comparison'],
  ['benchmark against rival https://rival.example', 'competitor-comparison'],
  // single tools
  ['work out my loan EMI', 'calculators_emi_calculator'],
  ['calculate emi for a home loan', 'calculators_emi_calculator'],
  ['how much can I borrow', 'calculators_loan_affordability_calculator'],
  ['BMI', 'calculators_bmi_calculator'],
  ['celsius to fahrenheit', 'unit_conversions_temperature_converter'],
  ['convert speed from mph to km/h', 'unit_conversions_speed_converter'],
  ['xlsx to csv', 'office_xlsx_to_csv'],
  ['find broken links on my site', 'seo_apis_broken_links_checker'],
  ['mixed content check', 'seo_apis_mixed_content_checker'],
  ['decode this jwt token', 'security_apis_jwt_decoder'],
  ['validate my json-ld schema markup', 'seo_apis_structured_data_validator'],
  // conversions: word order decides the direction
  ['convert pdf to word', 'documents_pdf_to_docx'],
  ['convert docx to pdf', 'documents_docx_to_pdf'],
  ['make a pdf from my word file', 'documents_docx_to_pdf'],
  ['turn my word doc into a pdf', 'documents_doc_to_pdf'],
  ['markdown to html', 'documents_md_to_html'],
  ['Convert an Excel spreadsheet to CSV', 'office_xlsx_to_csv'],
  // unclear, absurd or several jobs
  ['convert my pdf', SUGGEST],
  // issue 17 §4: "word count by word" (word frequency's alias) no longer reads as "word count"
  ['count the words in this text', 'text_utilities_word_counter'],
  // issue 17 §4: vague goals (only words that fit many jobs) are suggestions, never runs
  ['make my site better https://shop.example/', SUGGEST],
  ['make it better', SUGGEST],
  ['convert my file', SUGGEST],
  ['improve my website', SUGGEST],
  ['check my site', SUGGEST],
  // ... while a specific word beside them still routes
  ['help my site rank better on google', 'seo-audit'],
  // issue 17 §4: "shop" is an English word, never a typo of "ship"
  ['Audit the SEO of my shop page https://shop.example/', 'seo-audit'],
  ['check my store page for seo problems', 'seo-audit'],
  ['audit my seo and page speed and security headers', SUGGEST],
  ['check seo before launch', SUGGEST],
  ['https://example.com', SUGGEST],
  ['asdkjfh qwpoeiru zxcmvn', SUGGEST],
  ['banana', SUGGEST],
  ['help', SUGGEST],
  ['the and of it please', SUGGEST],
  ['   ', SUGGEST],
  ['', SUGGEST],
  ['seo '.repeat(600), SUGGEST],
  ['x'.repeat(1999), SUGGEST],
];

describe('matchGoal: goals as people write them', () => {
  it('the table has at least 40 rows', () => {
    assert.ok(TABLE.length >= 40, `${TABLE.length} rows`);
  });

  for (const [goal, expected] of TABLE) {
    const label = goal.length > 60 ? `${goal.slice(0, 57)}... (${goal.length} chars)` : JSON.stringify(goal);
    it(`${label} -> ${expected}`, () => {
      const m = matchGoal(goal, registries);
      const got = m.decision === 'match' ? m.best?.id : SUGGEST;
      const ranked = m.candidates.slice(0, 3).map((c) => `${c.id}=${c.confidence}`).join(', ');
      assert.equal(got, expected, `goal ${label}: reason ${m.reason}; candidates ${ranked}`);
      if (m.decision === 'match') {
        assert.ok((m.best?.confidence ?? 0) >= MATCH_THRESHOLD, `goal ${label}: a match is at least the threshold`);
        assert.equal(m.best, m.candidates[0], `goal ${label}: the match is the first candidate`);
      } else {
        assert.equal(m.best, null, `goal ${label}: no best job on suggest`);
      }
    });
  }
});

describe('matchGoal: answers', () => {
  it('never answers an id outside the registries', () => {
    const ids = new Set([...registries.playbooks.ids(), ...registries.catalog.tools.map((t) => t.operationId)]);
    for (const [goal] of TABLE) {
      for (const c of matchGoal(goal, registries).candidates) assert.ok(ids.has(c.id), `goal ${JSON.stringify(goal)} answered unknown id ${c.id}`);
    }
  });

  it('an empty, blank or non-string goal is empty_goal; over 2,000 characters is goal_too_long, with no candidates', () => {
    for (const goal of ['', '   \n\t', undefined, null, 42]) {
      const m = matchGoal(goal, registries);
      assert.deepEqual({ decision: m.decision, reason: m.reason, candidates: m.candidates }, { decision: 'suggest', reason: 'empty_goal', candidates: [] });
    }
    const long = matchGoal(`audit the seo of https://example.com ${'x'.repeat(2000)}`, registries);
    assert.deepEqual({ decision: long.decision, reason: long.reason, candidates: long.candidates }, { decision: 'suggest', reason: 'goal_too_long', candidates: [] });
    assert.equal(matchGoal('a'.repeat(2000), registries).reason, 'no_words', 'exactly 2,000 characters is still read');
  });

  it('a goal that is only a URL is no_words, with the URL extracted', () => {
    const m = matchGoal('  https://example.com/shop?x=1. ', registries);
    assert.deepEqual({ reason: m.reason, urls: m.urls }, { reason: 'no_words', urls: ['https://example.com/shop?x=1'] });
  });

  it('URLs are extracted in order and never sway the match', () => {
    const m = matchGoal('compare https://speed.example/seo with my competitor competitor.example/page', registries);
    assert.deepEqual(m.urls, ['https://speed.example/seo', 'https://competitor.example/page']);
    assert.equal(m.best?.id, 'competitor-comparison');
  });

  it('names the words it matched on and the corrections it made', () => {
    const m = matchGoal("chek my sito's seo", registries);
    assert.deepEqual(m.corrections, [{ from: 'chek', to: 'check' }, { from: 'sito', to: 'site' }]);
    assert.deepEqual(m.best?.matchedOn, ['chek->check', 'sito->site', 'seo']);
    assert.equal(m.best?.kind, 'playbook');
    assert.equal(m.best?.title, 'SEO audit of one page');
  });

  it('ambiguous goals list the close candidates, within the margin', () => {
    const m = matchGoal('convert my pdf', registries);
    assert.equal(m.reason, 'ambiguous');
    const [first, second] = m.candidates;
    assert.ok(first !== undefined && second !== undefined);
    assert.ok(first.confidence - second.confidence < MATCH_MARGIN);
    assert.ok(m.candidates.every((c) => c.id.startsWith('documents_') && c.id.includes('pdf')), m.candidates.map((c) => c.id).join(', '));
  });

  it('a goal whose best job matches only vague words is vague: the candidates are listed, none is run', () => {
    for (const goal of ['make my site better https://shop.example/', 'make it better', 'convert my file']) {
      const m = matchGoal(goal, registries);
      assert.deepEqual({ decision: m.decision, reason: m.reason, best: m.best }, { decision: 'suggest', reason: 'vague', best: null }, goal);
      assert.ok(m.candidates.length > 0, goal);
    }
    assert.deepEqual(matchGoal('make my site better https://shop.example/', registries).urls, ['https://shop.example/']);
  });

  it('an English word is read as written, never as a typo of a job word; a non-word still is', () => {
    const shop = matchGoal('Audit the SEO of my shop page https://shop.example/', registries);
    assert.deepEqual(shop.corrections, []);
    assert.equal(shop.best?.id, 'seo-audit');
    assert.ok(!shop.candidates.some((c) => c.id === 'ship-check'), shop.candidates.map((c) => c.id).join(', '));
    const typo = matchGoal('secuirty baseline for my shop', registries);
    assert.deepEqual(typo.corrections, [{ from: 'secuirty', to: 'security' }]);
    assert.equal(typo.best?.id, 'security-baseline');
  });

  it('only: ranks just the jobs a filter keeps', () => {
    const m = matchGoal('count the words', registries, { only: (job) => job.id !== 'text_utilities_word_counter' });
    assert.ok(m.candidates.length > 0 && m.candidates.every((c) => c.id !== 'text_utilities_word_counter'));
  });

  it('a goal naming two unrelated jobs in full is several_jobs', () => {
    assert.equal(matchGoal('audit my seo and page speed and security headers', registries).reason, 'several_jobs');
  });

  it('the same goal in another case, word order or with extra filler reaches the same job', () => {
    const forms = ['page speed audit', 'AUDIT PAGE SPEED', 'speed audit of the page', 'hey, could you please do a quick page speed audit for me, thanks'];
    for (const goal of forms) assert.equal(matchGoal(goal, registries).best?.id, 'page-speed-audit', goal);
  });

  it('reading a goal of 2,000 characters of random words stays fast', () => {
    const words = Array.from({ length: 300 }, (_, i) => `qz${(i * 7919).toString(36)}x`).join(' ').slice(0, 2000);
    const started = performance.now();
    const m = matchGoal(words, registries);
    assert.equal(m.decision, 'suggest');
    assert.ok(performance.now() - started < 500, 'bounded work');
  });
});

describe('goal text helpers', () => {
  it('typoDistance counts an adjacent swap as one edit and caps at max + 1', () => {
    assert.equal(typoDistance('secuirty', 'security', 2), 1);
    assert.equal(typoDistance('chek', 'check', 1), 1);
    assert.equal(typoDistance('abcdef', 'uvwxyz', 2), 3);
  });

  it('extractUrls takes scheme URLs and bare hosts but not file names', () => {
    const { urls, rest } = extractUrls('convert report.docx, check example.com/a and http://localhost:3000/x, also 10.0.0.5:8080 (index.html)');
    assert.deepEqual(urls, ['https://example.com/a', 'http://localhost:3000/x', 'http://10.0.0.5:8080']);
    assert.ok(rest.includes('report.docx') && rest.includes('index.html') && !rest.includes('example.com'));
  });
});
