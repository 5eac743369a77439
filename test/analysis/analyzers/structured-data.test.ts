import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, type StructuredDataItem } from '../../../src/analysis/analyzers/structured-data.ts';
import { jsonSyntaxError } from '../../../src/analysis/analyzers/json-syntax.ts';
import { assertValid, checkResult, findingIds, firedRules, instancesOf, onlyFinding } from './report-helpers.ts';

const URL = 'https://shop.test/p/trail';
const ld = (value: unknown) => `<script type="application/ld+json">${typeof value === 'string' ? value : JSON.stringify(value, null, 1)}</script>`;
const page = (head: string, body = '<h1>Trail</h1>') => `<!doctype html>\n<html lang="en">\n<head><title>Trail</title>\n${head}\n</head>\n<body>${body}</body></html>`;

const PRODUCT = {
  '@context': 'https://schema.org',
  '@type': 'Product',
  name: 'Trail runner',
  image: ['https://shop.test/a.jpg'],
  description: 'Light.',
  brand: { '@type': 'Brand', name: 'Acme' },
  sku: 'TR-1',
  offers: { '@type': 'Offer', price: 89.9, priceCurrency: 'EUR', availability: 'https://schema.org/InStock', url: 'https://shop.test/p/trail', priceValidUntil: '2030-01-31' },
  aggregateRating: { '@type': 'AggregateRating', ratingValue: '4.5', reviewCount: 12, bestRating: 5, worstRating: 1 },
};
const ARTICLE = { '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'News', image: 'https://shop.test/n.jpg', datePublished: '2024-05-01T09:30:00+02:00', dateModified: '2024-05-02', author: { '@type': 'Person', name: 'Ann', url: 'https://shop.test/ann' } };
const ALL_RULES = [
  'structured-data-invalid-json',
  'structured-data-missing-context',
  'structured-data-non-schema-context',
  'structured-data-missing-type',
  'structured-data-missing-required',
  'structured-data-missing-recommended',
  'structured-data-invalid-value',
];

describe('structured-data analyzer', () => {
  it('complete Product and NewsArticle blocks pass every rule; items, microdata and RDFa are listed', () => {
    const html = page(ld(PRODUCT) + ld(ARTICLE), '<div itemscope itemtype="https://schema.org/Person"><span itemprop="name">A</span></div><div vocab="https://schema.org/" typeof="Event"></div>');
    const report = analyze(html, null, URL);
    assertValid(report);
    assert.deepEqual(report.findings, []);
    for (const rule of ALL_RULES) assert.equal(checkResult(report, rule), 'pass', rule);
    assert.deepEqual(report.scores, { seo: 100, overall: 100 });
    const items = report.details.items as StructuredDataItem[];
    assert.deepEqual(items.map((i) => `${i.block}:${i.path}:${i.types.join('+')}`), ['1:$:Product', '1:$.brand:Brand', '1:$.offers:Offer', '1:$.aggregateRating:AggregateRating', '2:$:NewsArticle', '2:$.author:Person']);
    assert.deepEqual(items[0]?.properties, ['name', 'image', 'description', 'brand', 'sku', 'offers', 'aggregateRating']);
    assert.deepEqual(report.details.jsonLd, { blocks: 2, items: 6, types: ['AggregateRating', 'Brand', 'NewsArticle', 'Offer', 'Person', 'Product'] });
    assert.deepEqual(report.details.microdata, { items: 1, types: ['https://schema.org/Person'] });
    assert.deepEqual(report.details.rdfa, { items: 1, types: ['Event'] });
  });

  it('a page without JSON-LD judges nothing: every rule not applicable, status unknown', () => {
    const report = analyze(page(''), null, URL);
    assertValid(report);
    for (const rule of ALL_RULES) assert.equal(checkResult(report, rule), 'not_applicable', rule);
    assert.equal(report.statuses.seo, 'unknown');
  });

  it('invalid JSON names the error, its line and column, and the page line', () => {
    const report = analyze(page(ld('{\n  "@context": "https://schema.org",\n  "@type": "Organization",\n  "name": "Acme",\n}')), null, URL);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['structured-data-invalid-json']);
    const f = onlyFinding(report, 'structured-data-invalid-json');
    assert.equal(f.severity, 'high');
    assert.equal(f.detail, 'JSON-LD block 1 does not parse: a double-quoted property name was expected (no trailing comma) at line 5, column 1 of the block (character 83). Search engines ignore the whole block.');
    // the <script> starts on page line 4; the error is on the block's line 5
    assert.equal(f.evidence.line, 8);
    assert.equal(f.evidence.snippet, '}');
    assert.equal(f.fix.patchType, 'html');
  });

  it('missing @context, foreign @context and missing @type fire at their items', () => {
    const html = page(
      ld({ '@type': 'Organization', name: 'Acme', url: 'https://shop.test/', logo: 'https://shop.test/l.png', sameAs: ['https://x.test/acme'] }) +
        ld({ '@context': 'https://example.org/vocab', '@type': 'Thing', name: 'x' }) +
        ld({ '@context': 'https://schema.org', name: 'untyped' }),
    );
    const report = analyze(html, null, URL);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['structured-data-missing-context', 'structured-data-missing-type', 'structured-data-non-schema-context']);
    assert.equal(onlyFinding(report, 'structured-data-missing-context').severity, 'high');
    assert.match(onlyFinding(report, 'structured-data-non-schema-context').detail, /"https:\/\/example\.org\/vocab"/);
    const untyped = onlyFinding(report, 'structured-data-missing-type');
    assert.equal(untyped.detail, 'The item at $ in JSON-LD block 3 has no @type, so no rich result can be built from it.');
  });

  it('required properties missing are high at the top level and medium nested; recommended are low', () => {
    const html = page(ld({ '@context': 'https://schema.org', '@type': 'Product', image: 'https://shop.test/a.jpg', description: 'd', brand: 'Acme', sku: '1', offers: { price: '10.00' } }));
    const report = analyze(html, null, URL);
    assertValid(report);
    // one finding per rule, as severe as its worst instance, each instance's problem said
    const required = onlyFinding(report, 'structured-data-missing-required');
    assert.deepEqual([required.severity, required.count], ['high', 2]);
    assert.match(required.detail, /The Product at \$ in JSON-LD block 1 has no "name", which Google requires for the rich result\. The Offer at \$\.offers in JSON-LD block 1 has no "priceCurrency"/);
    const recommended = onlyFinding(report, 'structured-data-missing-recommended');
    assert.deepEqual([recommended.severity, recommended.count], ['low', 3]);
    assert.deepEqual([...recommended.detail.matchAll(/no "(\w+)"/g)].map((m) => m[1]).sort(), ['availability', 'priceValidUntil', 'url']);
  });

  it('a price on the Product itself is moved into offers, never reformatted where it is', () => {
    const base = { '@context': 'https://schema.org', '@type': 'Product', name: 'P', image: 'https://shop.test/a.jpg', description: 'd', brand: 'b', sku: 's' };
    const report = analyze(page(ld({ ...base, price: '$19.99', priceCurrency: 'EUR' })), null, URL);
    assertValid(report);
    const misplaced = onlyFinding(report, 'structured-data-invalid-value');
    assert.equal(misplaced.count, 1, 'the $ price is not also a format finding at $.price');
    assert.match(misplaced.detail, /has "price", "priceCurrency" on itself; Google reads them only inside the Product's offers/);
    assert.equal(misplaced.fix.change, 'Move "price", "priceCurrency" from the Product at $ in JSON-LD block 1 into a new "offers": { "@type": "Offer", "price": …, "priceCurrency": … }.');
    // no fix anywhere on the page says to write price outside offers
    for (const f of report.findings) assert.doesNotMatch(f.fix.change, /(?:Write|Add) \$\.price\b|"price"[^.]*to the Product/);
    const required = onlyFinding(report, 'structured-data-missing-required');
    assert.match(required.fix.change, /one of "offers", "review", "aggregateRating"/);
    // with offers present, the stray price is still pointed into them; a well-placed price is quiet
    const both = analyze(page(ld({ ...base, price: 5, offers: { '@type': 'Offer', price: 5, priceCurrency: 'EUR', availability: 'https://schema.org/InStock', url: 'https://shop.test/p', priceValidUntil: '2030-01-01' } })), null, URL);
    assert.equal(onlyFinding(both, 'structured-data-invalid-value').fix.change, 'Move "price" from the Product at $ in JSON-LD block 1 into its "offers" (each Offer).');
    assert.deepEqual(analyze(page(ld(PRODUCT)), null, URL).findings, []);
    // an AggregateOffer (a price range) needs lowPrice, not price
    const range = analyze(page(ld({ ...base, offers: { '@type': 'AggregateOffer', lowPrice: 10, highPrice: 20, offerCount: 3, priceCurrency: 'EUR' } })), null, URL);
    assert.deepEqual(range.findings, []);
  });

  it("an Article's author, Person or Organization, needs only a name (url recommended), not an organization's logo or sameAs", () => {
    const article = (author: unknown) => analyze(page(ld({ ...ARTICLE, author })), null, URL);
    assert.deepEqual(article({ '@type': 'Organization', name: 'Acme News', url: 'https://shop.test/about' }).findings, []);
    assert.deepEqual(article([{ '@type': 'Person', name: 'Ann', url: 'https://shop.test/ann' }, { '@type': 'Organization', name: 'Acme' }]).findings.map((f) => f.rule), ['structured-data-missing-recommended']);
    const bare = article({ '@type': 'Organization', name: 'Acme News' });
    const recommended = onlyFinding(bare, 'structured-data-missing-recommended');
    assert.deepEqual([recommended.count, recommended.severity], [1, 'low']);
    assert.match(recommended.detail, /The author \(Organization\) at \$\.author in JSON-LD block 1 has no "url"/);
    assert.doesNotMatch(JSON.stringify(bare.findings), /logo|sameAs/);
    const nameless = onlyFinding(article({ '@type': 'Organization', url: 'https://shop.test/about' }), 'structured-data-missing-required');
    assert.deepEqual([nameless.severity, nameless.evidence.snippet], ['medium', '$.author (author (Organization))']);
    // the site's own Organization at the top level is still judged by the organization guide
    const org = analyze(page(ld({ '@context': 'https://schema.org', '@type': 'Organization', name: 'Acme', url: 'https://shop.test/' })), null, URL);
    assert.deepEqual([...onlyFinding(org, 'structured-data-missing-recommended').detail.matchAll(/no "(\w+)"/g)].map((m) => m[1]).sort(), ['logo', 'sameAs']);
  });

  it('a Product needs one of offers, review or aggregateRating; standalone ratings need itemReviewed', () => {
    const report = analyze(page(ld({ '@context': 'https://schema.org', '@graph': [{ '@type': 'Product', name: 'P', image: 'https://shop.test/a.jpg', description: 'd', brand: 'b', sku: 's' }, { '@type': 'AggregateRating', ratingValue: 4, ratingCount: 3, bestRating: 5, worstRating: 1 }] })), null, URL);
    assertValid(report);
    const required = onlyFinding(report, 'structured-data-missing-required');
    assert.equal(required.count, 2);
    assert.ok(required.detail.includes('The AggregateRating at $.@graph[1] in JSON-LD block 1 has no "itemReviewed", which Google requires for the rich result.'));
    assert.ok(required.detail.includes('The Product at $.@graph[0] in JSON-LD block 1 has no one of "offers", "review", "aggregateRating", which Google requires for the rich result.'));
    assert.equal(checkResult(report, 'structured-data-missing-context'), 'pass', '@graph members inherit the wrapper @context');
  });

  it('breadcrumbs, FAQ, events, recipes, videos, local businesses and search actions are checked', () => {
    const graph = [
      { '@type': 'BreadcrumbList', itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Home' }, { '@type': 'ListItem', position: 2, name: 'Shoes' }] },
      { '@type': 'FAQPage', mainEntity: [{ '@type': 'Question', name: 'Why?', acceptedAnswer: { '@type': 'Answer' } }] },
      { '@type': 'Event', name: 'Race', startDate: '2024-13-01', location: 'Park', description: 'd', endDate: '2024-06-02', eventStatus: 'x', image: 'https://shop.test/e.jpg', offers: { '@type': 'Offer', price: 5, priceCurrency: 'EUR', availability: 'a', url: 'https://shop.test/e', priceValidUntil: '2024-06-01' }, organizer: 'o', performer: 'p' },
      { '@type': 'Recipe', name: 'Soup' },
      { '@type': 'VideoObject', name: 'V', thumbnailUrl: 'https://shop.test/t.jpg', uploadDate: '2024-01-01', description: 'd', contentUrl: 'https://shop.test/v.mp4', embedUrl: 'https://shop.test/e', duration: 'PT1M' },
      { '@type': 'Restaurant', name: 'Bistro' },
      { '@type': 'WebSite', url: 'https://shop.test/', name: 'Shop', potentialAction: { '@type': 'SearchAction', target: '/search?q={q}' } },
    ];
    const report = analyze(page(ld({ '@context': 'https://schema.org', '@graph': graph })), null, URL);
    assertValid(report);
    const required = onlyFinding(report, 'structured-data-missing-required');
    assert.equal(required.count, 5);
    const said = required.detail.replaceAll(' in JSON-LD block 1', '').replaceAll(', which Google requires for the rich result', '');
    for (const missing of [
      'The Answer at $.@graph[1].mainEntity[0].acceptedAnswer has no "text"',
      'The ListItem at $.@graph[0].itemListElement[0] has no "item"',
      'The Recipe at $.@graph[3] has no "image"',
      'The Restaurant at $.@graph[5] has no "address"',
      'The SearchAction at $.@graph[6].potentialAction has no "query-input"',
    ]) assert.ok(said.includes(missing), missing);
    const values = instancesOf(report, 'structured-data-invalid-value').map((e) => e.snippet).sort();
    assert.deepEqual(values, ['$.@graph[2].startDate', '$.@graph[6].potentialAction.target']);
  });

  it('value formats: prices, dates, URLs and currencies', () => {
    const report = analyze(page(ld({ '@context': 'http://schema.org/', '@type': 'Offer', price: '$1,299', priceCurrency: 'euro', url: 'shop.test/x', priceValidUntil: '2024-02-30T25:00' })), null, URL);
    assertValid(report);
    const byPath = Object.fromEntries(instancesOf(report, 'structured-data-invalid-value').map((e) => [e.snippet, e.value]));
    assert.deepEqual(byPath, { '$.price': '$1,299', '$.priceCurrency': 'euro', '$.url': 'shop.test/x', '$.priceValidUntil': '2024-02-30T25:00' });
    const invalid = onlyFinding(report, 'structured-data-invalid-value');
    assert.equal(invalid.count, 4);
    assert.ok(invalid.fix.change.includes('Write $.price in JSON-LD block 1 as a plain number such as 19.99.'), invalid.fix.change);
  });

  it('more than 100 blocks: the first 100 are read and a note says so', () => {
    const blocks = Array.from({ length: 102 }, (_, i) => ld({ '@context': 'https://schema.org', '@type': 'Thing', name: `t${i}` })).join('');
    const report = analyze(page(blocks), null, URL);
    assert.deepEqual(report.notes, ['102 JSON-LD blocks: the first 100 were read']);
    assert.equal(report.incomplete, true);
    assert.deepEqual(report.details.jsonLd, { blocks: 102, items: 100, types: ['Thing'] });
  });

  it('a block over 1 MB is not read, and a deeply nested block is walked only so deep', () => {
    const huge = ld(`{"@context":"https://schema.org","@type":"Thing","name":"${'x'.repeat(1024 * 1024)}"}`);
    const deep = ld(`${'['.repeat(5000)}1${']'.repeat(5000)}`);
    const report = analyze(page(huge + deep), null, URL);
    assertValid(report);
    assert.equal(report.notes.length, 2);
    assert.match(report.notes[0] ?? '', /^JSON-LD block 1 \(line 4\) is over 1048576 characters and was not read$/);
    assert.match(report.notes[1] ?? '', /^JSON-LD block 2 nests deeper than 64 levels/);
  });

  it('findingIds are stable across runs and unrelated edits, and fixing one leaves the others', () => {
    const bad = page(ld({ '@type': 'Product', offers: { price: 'ten', priceCurrency: 'EUR' } }));
    const first = findingIds(analyze(bad, null, URL));
    assert.deepEqual(findingIds(analyze(bad.replace('<h1>Trail</h1>', '<p>Sale</p><h1>Trail</h1>').replace('<head>', '<head><meta charset="utf-8">'), null, URL)), first);
    const after = findingIds(analyze(bad.replace('"ten"', '"10"'), null, URL));
    assert.deepEqual(first.filter((id) => !after.includes(id)).map((id) => id.split(':')[0]), ['structured-data-invalid-value']);
  });

  it('the JSON scanner agrees with JSON.parse and locates each error', () => {
    for (const text of ['{"a":[1,{"b":null}],"c":"d\\u00e9"}', ' [ ] ', '-1.5e3', '"x"']) assert.equal(jsonSyntaxError(text), null, text);
    assert.deepEqual(jsonSyntaxError('{"a": }'), { offset: 6, line: 1, column: 7, message: 'unexpected "}", a value was expected', excerpt: '{"a": }' });
    assert.equal(jsonSyntaxError('{"a" 1}')?.message, 'unexpected "1", ":" after the property name was expected');
    assert.equal(jsonSyntaxError('[1 2]')?.offset, 3);
    assert.equal(jsonSyntaxError('{"a":1')?.message, 'unexpected end of JSON, "," or "}" was expected');
    assert.equal(jsonSyntaxError('{"a":1} x')?.message, 'unexpected "x" after the end of the JSON value');
    assert.equal(jsonSyntaxError('{"y": 02}')?.offset, 7);
  });
});
