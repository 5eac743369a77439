// The SEO score per Lighthouse audit (src/analysis/seo-audits.ts): audits weigh as Lighthouse
// weighs them, a rule standing for an audit fails the audit, our other rules only lower the score
// (by a fifth at most), and an error status or an unindexable page dominates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Check } from '../../src/analysis/findings.ts';
import { EXTRA_SHARE, seoScore, type SeoAudit } from '../../src/analysis/seo-audits.ts';
import { analyze as analyzeMeta } from '../../src/analysis/analyzers/meta-tags.ts';
import { analyzeFetched } from '../../src/analysis/page-analysis.ts';
import { metaTagsAnalyzer } from '../../src/analysis/analyzers/meta-tags.ts';
import { imageAltAnalyzer } from '../../src/analysis/analyzers/image-alt.ts';
import type { PageFacts } from '../../src/analysis/page-facts.ts';

const audit = (a: SeoAudit, pass: boolean, rule: string = a): Check => ({ rule, category: 'seo', weight: 1, result: pass ? 'pass' : 'fail', score: pass ? 1 : 0, audit: a });
const extra = (rule: string, pass: boolean, weight = 1): Check => ({ rule, category: 'seo', weight, result: pass ? 'pass' : 'fail', score: pass ? 1 : 0 });
const NINE: SeoAudit[] = ['document-title', 'meta-description', 'http-status-code', 'link-text', 'crawlable-anchors', 'robots-txt', 'image-alt', 'hreflang', 'canonical'];

test('audits weigh as in Lighthouse: one of ten failing costs 1/(9 + 93/23)', () => {
  const checks = [audit('is-crawlable', true), ...NINE.map((a) => audit(a, a !== 'link-text'))];
  assert.equal(seoScore(checks), Math.round((100 * (8 + 93 / 23)) / (9 + 93 / 23)));
  // Four failing: Lighthouse's score falls below 70, and ours with it.
  const four = [audit('is-crawlable', true), ...NINE.map((a, i) => audit(a, i >= 5 || a === 'http-status-code'))];
  assert.ok((seoScore(four) ?? 100) < 70);
});

test('an audit fails when any rule standing for it fails, whichever analyzer judged it', () => {
  const checks = [audit('canonical', true, 'canonical-relative'), audit('canonical', false, 'meta-canonical-multiple'), audit('document-title', true)];
  assert.equal(seoScore(checks), 50);
});

test('rules Lighthouse does not have only lower the score, by a fifth at most', () => {
  const audits = [audit('document-title', true), audit('meta-description', true)];
  assert.equal(seoScore([...audits, extra('heading-skipped-level', false, 2), extra('serp-title-truncated', true, 2)]), 90);
  assert.equal(seoScore([...audits, extra('heading-skipped-level', false, 5)]), Math.round(100 * (1 - EXTRA_SHARE)));
  assert.equal(seoScore([...audits, extra('heading-skipped-level', true, 5)]), 100);
  // Alone (a tool with no Lighthouse audit) they are the score, as a weighted mean.
  assert.equal(seoScore([extra('a', false, 1), extra('b', true, 3)]), 75);
  assert.equal(seoScore([]), undefined);
});

test('an unindexable page or an error status outweighs everything else judged', () => {
  const rest = NINE.filter((a) => a !== 'http-status-code').map((a) => audit(a, true));
  assert.equal(seoScore([audit('is-crawlable', false), audit('http-status-code', true), ...rest]), 50);
  assert.equal(seoScore([audit('is-crawlable', true), audit('http-status-code', false), ...rest]), 50);
  assert.ok((seoScore([audit('is-crawlable', false), audit('http-status-code', false), ...rest]) ?? 100) < 50);
});

test('image-alt counts in SEO though it is an accessibility rule', () => {
  const img: Check = { rule: 'image-alt-missing', category: 'accessibility', weight: 10, result: 'fail', score: 0, audit: 'image-alt' };
  assert.equal(seoScore([audit('document-title', true), img]), 50);
});

const facts = (status: number, headers: Record<string, string> = {}): PageFacts => ({
  url: 'https://shop.example/p/1', finalUrl: 'https://shop.example/p/1', status, headers, mediaType: 'text/html', text: '', bytes: 0, timings: { ttfbMs: 50, totalMs: 60 }, redirects: [],
} as unknown as PageFacts);

test('the analyzers tag their checks: a page with a title, a description and one image without alt', () => {
  const html = '<!doctype html><html lang="en"><head><title>Trail shoes for every season</title><meta name="description" content="Light trail running shoes with grippy soles, tested on rock, mud and snow for a whole year."></head><body><h1>Trail shoes</h1><img src="/a.jpg"></body></html>';
  const meta = analyzeMeta(html, null, 'https://shop.example/p/1');
  assert.equal(meta.checks.find((c) => c.rule === 'meta-title-missing')?.audit, 'document-title');
  assert.equal(meta.checks.find((c) => c.rule === 'meta-description-missing')?.audit, 'meta-description');
  const both = analyzeFetched([metaTagsAnalyzer, imageAltAnalyzer], html, { ...facts(200), text: html }, 'https://shop.example/p/1');
  assert.equal(both.checks.find((c) => c.rule === 'image-alt-missing')?.audit, 'image-alt');
  assert.equal(both.checks.find((c) => c.rule === 'http-status-code')?.audit, 'http-status-code');
  // title, description, status, canonical, hreflang and is-crawlable (no robots directive) pass;
  // image-alt fails: 5 + 93/23 of 6 + 93/23 (90), lowered a little by the missing canonical link,
  // which Lighthouse does not score.
  assert.equal(both.scores.seo, 88);
});
