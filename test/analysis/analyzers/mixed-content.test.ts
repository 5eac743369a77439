import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, type MixedResource } from '../../../src/analysis/analyzers/mixed-content.ts';
import { assertValid, checkResult, factsFor, findingIds, firedRules, instancesOf, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/';
const CLEAN = `<!doctype html><html><head>
<link rel="stylesheet" href="/site.css"><script src="https://cdn.test/app.js"></script>
<style>body { background: url("/bg.png") } @font-face { src: url(https://fonts.test/a.woff2) }</style>
</head><body>
<img src="//img.test/logo.png" srcset="/a.png 1x, https://img.test/a@2x.png 2x">
<form action="/search"><input name="q"></form>
<a href="http://elsewhere.test/">links may point anywhere</a>
</body></html>`;

const BROKEN = `<!doctype html><html><head>
<link rel="stylesheet" href="http://cdn.test/site.css">
<script src="http://cdn.test/app.js"></script>
<style>@import url("http://cdn.test/more.css"); .hero { background: url(http://img.test/hero.jpg) }
@font-face { font-family: X; src: url('http://fonts.test/x.woff2') }</style>
</head><body>
<iframe src="http://video.test/embed/1"></iframe>
<img src="http://img.test/a.png" srcset="http://img.test/a.png 1x, http://img.test/a@2x.png 2x">
<picture><source srcset="http://img.test/b.webp"><img src="/b.png"></picture>
<video src="http://media.test/v.mp4" poster="http://media.test/p.jpg"></video>
<div style="background-image: url('http://img.test/tile.png')"></div>
<form action="http://shop.test/login"><input name="user"></form>
</body></html>`;

const vias = (resources: MixedResource[], kind: string) =>
  resources.filter((r) => r.kind === kind).map((r) => `${r.via} ${r.url}`).sort();

describe('mixed-content analyzer', () => {
  it('an https page with only https and relative references fires nothing and scores 100', () => {
    const report = analyze(CLEAN, null, URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.scores, { 'mixed-content': 100, overall: 100 });
    assert.deepEqual(report.statuses, { 'mixed-content': 'good', overall: 'good' });
    assert.equal(checkResult(report, 'mixed-content-insecure-page'), 'pass');
  });

  it('sorts every http reference into blockable and upgradeable, and scores poor', () => {
    const report = analyze(BROKEN, null, URL);
    assertValid(report);
    const resources = report.details.resources as MixedResource[];
    assert.deepEqual(vias(resources, 'blockable'), [
      'css-import http://cdn.test/more.css',
      'font http://fonts.test/x.woff2',
      'form-action http://shop.test/login',
      'iframe http://video.test/embed/1',
      'script http://cdn.test/app.js',
      'stylesheet http://cdn.test/site.css',
    ]);
    assert.deepEqual(vias(resources, 'upgradeable'), [
      'css-url http://img.test/hero.jpg',
      'css-url http://img.test/tile.png',
      'img http://img.test/a.png',
      'poster http://media.test/p.jpg',
      'srcset http://img.test/a.png',
      'srcset http://img.test/a@2x.png',
      'srcset http://img.test/b.webp',
      'video http://media.test/v.mp4',
    ]);
    // one finding per rule, counting and listing every reference
    assert.deepEqual(firedRules(report), ['mixed-content-blockable', 'mixed-content-upgradeable']);
    const blockable = onlyFinding(report, 'mixed-content-blockable');
    const upgradeable = onlyFinding(report, 'mixed-content-upgradeable');
    assert.deepEqual([blockable.count, blockable.severity, upgradeable.count, upgradeable.severity], [6, 'high', 8, 'medium']);
    assert.equal(blockable.title, '6 scripts, styles, frames or forms are loaded over http');
    assert.deepEqual(
      instancesOf(report, 'mixed-content-blockable').find((e) => e.url === 'http://cdn.test/app.js'),
      { selector: 'script[src="http://cdn.test/app.js"]', line: 3, url: 'http://cdn.test/app.js' },
    );
    assert.equal(instancesOf(report, 'mixed-content-upgradeable').length, 8);
    assert.equal(blockable.fix.patchType, 'html');
    assert.match(blockable.fix.change, /Reference https:\/\/cdn\.test\/site\.css instead of http:\/\/cdn\.test\/site\.css/);
    assert.equal(blockable.fix.acceptance, 'The page loads no script, stylesheet, font, frame or form target over http.');
    // weights: insecure page 10 passes; blockable 10 and upgradeable 3 fail
    assert.deepEqual(report.scores, { 'mixed-content': 43, overall: 43 });
    assert.equal(report.statuses['mixed-content'], 'poor');
  });

  it('upgradeable content alone is needs_improvement', () => {
    const report = analyze('<html><body><img src="http://img.test/a.png"></body></html>', null, URL);
    assert.deepEqual(firedRules(report), ['mixed-content-upgradeable']);
    assert.deepEqual(report.scores, { 'mixed-content': 87, overall: 87 });
    assert.equal(report.statuses['mixed-content'], 'needs_improvement');
  });

  it('the suggested https URL drops an explicit :80 and never keeps a non-default http port', () => {
    const page = (src: string) => `<html><head><script src="${src}"></script></head></html>`;
    const explicitDefault = onlyFinding(analyze(page('http://cdn.test:80/app.js?v=2'), null, URL), 'mixed-content-blockable');
    assert.match(explicitDefault.fix.change, /^Reference https:\/\/cdn\.test\/app\.js\?v=2 instead of http:\/\/cdn\.test\/app\.js\?v=2 /);
    assert.doesNotMatch(explicitDefault.fix.change, /:80/);
    const otherPort = onlyFinding(analyze(page('http://cdn.test:8080/app.js'), null, URL), 'mixed-content-blockable');
    assert.equal(otherPort.evidence.url, 'http://cdn.test:8080/app.js');
    assert.match(otherPort.fix.change, /https origin, such as https:\/\/cdn\.test\/app\.js, instead of http:\/\/cdn\.test:8080\/app\.js: port 8080 serves http/);
    assert.doesNotMatch(otherPort.fix.change, /https:\/\/cdn\.test:8080/);
  });

  it('a <base href> on http makes relative references insecure', () => {
    const report = analyze('<html><head><base href="http://cdn.test/"><script src="app.js"></script></head></html>', null, URL);
    assert.deepEqual(firedRules(report), ['mixed-content-blockable']);
    assert.equal(report.findings[0]?.evidence.url, 'http://cdn.test/app.js');
  });

  it('a page served over http is one high finding, judged by the final URL when facts are given', () => {
    const report = analyze(CLEAN, factsFor('http://shop.test/'), URL);
    assert.deepEqual(firedRules(report), ['mixed-content-insecure-page']);
    assert.equal(report.findings[0]?.severity, 'high');
    assert.equal(checkResult(report, 'mixed-content-blockable'), 'not_applicable');
    assert.deepEqual(report.scores, { 'mixed-content': 0, overall: 0 });
    assert.equal(report.statuses['mixed-content'], 'poor');
  });

  it('findingIds are stable across runs and unrelated edits, and a rule resolves when its last reference is fixed', () => {
    const first = findingIds(analyze(BROKEN, null, URL));
    assert.deepEqual(findingIds(analyze(BROKEN, null, URL)), first);
    const edited = BROKEN.replace('<body>', '<body><header><h1>Shop</h1><p>Sale</p></header>\n\n');
    assert.deepEqual(findingIds(analyze(edited, null, URL)), first);
    const fixed = analyze(BROKEN.replace('http://cdn.test/app.js', 'https://cdn.test/app.js'), null, URL);
    assert.deepEqual(findingIds(fixed), first);
    assert.equal(onlyFinding(fixed, 'mixed-content-blockable').count, 5);
    const allFixed = analyze(BROKEN.replace(/src="http:\/\/(img|media)\.test/g, 'src="https://$1.test').replace(/srcset="[^"]*"/g, '').replace(/poster="[^"]*"/, '').replace(/url\(http:\/\/img\.test\/hero\.jpg\)/, 'url(/hero.jpg)').replace("url('http://img.test/tile.png')", "url('/tile.png')"), null, URL);
    assert.deepEqual(firedRules(allFixed), ['mixed-content-blockable']);
    assert.deepEqual(findingIds(allFixed), [onlyFinding(fixed, 'mixed-content-blockable').findingId]);
  });
});
