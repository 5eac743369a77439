import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, type GenericLink, type UnfollowableLink } from '../../../src/analysis/analyzers/link-audit.ts';
import { isGenericLinkText } from '../../../src/analysis/analyzers/link-text-phrases.ts';
import { headingStructureAnalyzer } from '../../../src/analysis/analyzers/heading-structure.ts';
import { linkAuditAnalyzer } from '../../../src/analysis/analyzers/link-audit.ts';
import { extractLinks, judgeLinks } from '../../../src/analysis/analyzers/broken-links.ts';
import { parseHtml } from '../../../src/analysis/html-document.ts';
import { analyzeFetched, combineReports } from '../../../src/analysis/page-analysis.ts';
import { LOCAL_PAGE_URL } from '../../../src/analysis/local-page.ts';
import type { Report } from '../../../src/analysis/findings.ts';
import { assertValid, checkResult, findingIds, firedRules, instancesOf, onlyFinding } from './report-helpers.ts';

const URL = 'https://news.test/';
const page = (body: string, lang = 'en') => `<!doctype html>\n<html lang="${lang}"><head><title>Daily News</title></head>\n<body>\n${body}\n</body></html>`;
const generic = (report: Report) => report.details.genericLinks as GenericLink[];
const unfollowable = (report: Report) => report.details.unfollowableLinks as UnfollowableLink[];

const STORIES = [
  ['storm-closes-harbour', 'Storm closes the harbour for a week'],
  ['council-budget-vote', 'Council votes on the new budget'],
  ['rail-strike-called-off', 'Rail strike called off'],
  ['museum-reopens', 'City museum reopens after repairs'],
  ['cup-final-preview', 'Cup final: what to expect'],
  ['housing-prices-fall', 'House prices fall for a third month'],
  ['new-bridge-plans', 'Plans for a new bridge unveiled'],
  ['school-meals-study', 'Study looks at school meals'],
] as const;

/**
 * A news front page with 60 links: 6 in the navigation, 8 stories each with a headline link and a
 * "Read more", 3 javascript:void(0) links with an onclick, 2 <a> with only an onclick, 19 in the
 * most-read list and 14 in the footer (mailto:, tel:, a same-page "#top", an external site).
 */
function newsFrontPage(): string {
  const nav = ['/', '/world', '/business', '/sport', '/culture', '/weather']
    .map((href, i) => `<a href="${href}">${['Home', 'World', 'Business', 'Sport', 'Culture', 'Weather'][i]}</a>`)
    .join('\n');
  const stories = STORIES.map(
    ([slug, headline]) => `<article class="card">\n<h2><a href="/news/${slug}">${headline}</a></h2>\n<p>Summary of the story.</p>\n<a class="more" href="/news/${slug}">Read more</a>\n</article>`,
  ).join('\n');
  const scripted = [
    `<a href="javascript:void(0)" onclick="loadStories('/news?page=2')">More stories</a>`,
    `<a href="javascript:void(0)" onclick="openShare()">Share this page</a>`,
    `<a href="javascript:void(0)" onclick="window.location='/newsletter'">Newsletter sign-up</a>`,
    `<a class="live" onclick="location.href='/live/election'">Live: election night</a>`,
    `<a class="tab" onclick="showTab('opinion')">Opinion</a>`,
  ].join('\n');
  const mostRead = Array.from({ length: 19 }, (_, i) => `<li><a href="/news/most-read-${i + 1}">Most read story number ${i + 1}</a></li>`).join('\n');
  const footer = [
    '<a href="/about">About us</a>', '<a href="/contact">Contact the newsroom</a>', '<a href="mailto:tips@news.test">Send us a tip</a>',
    '<a href="tel:+442071234567">Call the news desk</a>', '<a href="/privacy">Privacy policy</a>', '<a href="/terms">Terms of use</a>',
    '<a href="/careers">Careers</a>', '<a href="/advertise">Advertise with us</a>', '<a href="/rss">RSS feeds</a>',
    '<a href="https://social.example.org/dailynews">Daily News on Social</a>', '<a href="#top">Back to top</a>', '<a href="/archive">Archive</a>',
    '<a href="/corrections">Corrections</a>', '<a href="/accessibility">Accessibility</a>',
  ].join('\n');
  return page(`<header id="top"><nav>\n${nav}\n</nav></header>\n<main>\n${stories}\n<div class="tools">\n${scripted}\n</div>\n<ol class="most-read">\n${mostRead}\n</ol>\n</main>\n<footer>\n${footer}\n</footer>`);
}

describe('link audit: a news front page', () => {
  const html = newsFrontPage();
  const report = analyze(html, null, URL);

  it('has 60 links, and reports the 8 "Read more" and the 5 scripted links, one finding per rule', () => {
    assertValid(report);
    assert.equal(parseHtml(html, URL).byTag('a').length, 60);
    assert.equal(report.details.links, 60);
    assert.deepEqual(firedRules(report), ['crawlable-anchors', 'link-text']);
    assert.equal(checkResult(report, 'link-text'), 'fail');
    assert.equal(checkResult(report, 'crawlable-anchors'), 'fail');
    // each rule stands for the Lighthouse SEO audit of its name, so the SEO score counts it as one
    assert.deepEqual(report.checks.map((c) => [c.rule, c.audit]), [['link-text', 'link-text'], ['crawlable-anchors', 'crawlable-anchors']]);
    assert.ok((report.scores.seo ?? 100) < 70, 'both audits failing: below 70, as Lighthouse with them failing');
  });

  it('link-text: 8 instances, each the "Read more" of a story, with its headline as the suggested text', () => {
    const finding = onlyFinding(report, 'link-text');
    assert.equal(finding.count, 8);
    assert.equal(finding.severity, 'low');
    assert.equal(finding.title, '8 links have text that does not say where they go');
    const instances = instancesOf(report, 'link-text');
    assert.deepEqual(
      instances.map((e) => [e.selector, e.value, e.url]),
      STORIES.map(([slug]) => [`a[href="/news/${slug}"]:nth-match(2)`, 'Read more', `https://news.test/news/${slug}`]),
    );
    assert.deepEqual(
      generic(report).map((l) => [l.text, l.suggestedText]),
      STORIES.map(([, headline]) => ['Read more', headline]),
    );
    assert.match(finding.fix.change, /^Rewrite the text of each of the 8 links/);
    assert.match(finding.fix.change, /for example "Storm closes the harbour for a week"/);
    assert.equal(finding.fix.patchType, 'content');
  });

  it('crawlable-anchors: the 3 javascript:void(0) and the 2 onclick-only links, with the URL their script opens', () => {
    const finding = onlyFinding(report, 'crawlable-anchors');
    assert.equal(finding.count, 5);
    assert.equal(finding.severity, 'medium');
    assert.equal(finding.title, '5 links cannot be followed by search engines');
    assert.deepEqual(
      unfollowable(report).map((l) => [l.problem, l.href, l.text, l.suggestedHref]),
      [
        ['javascript', 'javascript:void(0)', 'More stories', '/news?page=2'],
        ['javascript', 'javascript:void(0)', 'Share this page', null],
        ['javascript', 'javascript:void(0)', 'Newsletter sign-up', '/newsletter'],
        ['script-only', null, 'Live: election night', '/live/election'],
        ['script-only', null, 'Opinion', null],
      ],
    );
    assert.deepEqual(
      instancesOf(report, 'crawlable-anchors').map((e) => [e.selector, e.value, e.url]),
      [
        ['a[href="javascript:void(0)"]', 'javascript:void(0)', '/news?page=2'],
        ['a[href="javascript:void(0)"]:nth-match(2)', 'javascript:void(0)', undefined],
        ['a[href="javascript:void(0)"]:nth-match(3)', 'javascript:void(0)', '/newsletter'],
        ['html>body>main>div>a:nth-of-type(4)', '(no href)', '/live/election'],
        ['html>body>main>div>a:nth-of-type(5)', '(no href)', undefined],
      ],
    );
    assert.match(finding.fix.change, /Set href="\/news\?page=2" on the <a> at a\[href="javascript:void\(0\)"\]/);
    assert.match(finding.fix.change, /make it a <button type="button"> instead/);
    assert.equal(finding.fix.patchType, 'html');
  });

  it('fixing the links resolves both findings; fixing some keeps each finding\'s id', () => {
    const ids = findingIds(report);
    const partly = analyze(html.replace('>Read more</a>', '>The full story of the storm</a>').replace(`<a class="tab" onclick="showTab('opinion')">`, '<a class="tab" href="/opinion">'), null, URL);
    assert.deepEqual(findingIds(partly), ids);
    assert.equal(onlyFinding(partly, 'link-text').count, 7);
    assert.equal(onlyFinding(partly, 'crawlable-anchors').count, 4);
    const fixed = analyze(
      html.replaceAll('>Read more</a>', '>The full story</a>').replaceAll('href="javascript:void(0)"', 'href="/page"').replace('<a class="live"', '<a href="/live/election" class="live"').replace('<a class="tab"', '<a href="/opinion" class="tab"'),
      null,
      URL,
    );
    assert.deepEqual(fixed.findings, []);
    assert.deepEqual(fixed.scores, { seo: 100, overall: 100 });
  });
});

describe('link audit: link-text as Lighthouse reads it', () => {
  const fired = (body: string, lang = 'en', url = URL) => generic(analyze(page(body, lang), null, url)).map((l) => l.text);

  it('generic texts fail whatever their case and spacing; descriptive ones pass', () => {
    assert.deepEqual(
      fired('<a href="/a">Click HERE</a><a href="/b">  learn\n more </a><a href="/c">More</a><a href="/d">Start</a><a href="/e">Read more about the storm</a><a href="/f">Here we go</a>'),
      ['Click HERE', 'learn more', 'More', 'Start'],
    );
  });

  it('links Lighthouse leaves out: no href, rel=nofollow, javascript:, mailto:, and links to this same page', () => {
    const body =
      '<a>more</a><a href="/x" rel="ugc nofollow">click here</a><a href="javascript:more()">more</a><a href="mailto:a@news.test">here</a>' +
      '<a href="#comments">read more</a><a href="https://news.test/#top">here</a><a href="">more</a><a href="/next">more</a>';
    assert.deepEqual(fired(body), ['more']);
    assert.deepEqual(generic(analyze(page(body), null, URL)).map((l) => l.href), ['https://news.test/next']);
  });

  it('a link on another page\'s fragment is a destination; <base> decides what "this page" is', () => {
    assert.deepEqual(fired('<a href="/other#x">here</a>'), ['here']);
    const based = `<!doctype html><html lang="en"><head><base href="https://cdn.news.test/"></head><body><a href="#x">here</a></body></html>`;
    assert.deepEqual(generic(analyze(based, null, URL)).map((l) => l.href), ['https://cdn.news.test/#x']);
  });

  it('the page language picks the list: lang="en" ignores German "mehr", lang="de" reports it, a language without a list reports nothing', () => {
    assert.deepEqual(fired('<a href="/a">mehr</a><a href="/b">more</a>', 'en'), ['more']);
    assert.deepEqual(fired('<a href="/a">Mehr</a><a href="/b">Weiterlesen</a><a href="/c">more</a>', 'de-DE'), ['Mehr', 'Weiterlesen']);
    assert.deepEqual(fired('<a href="/a">click here</a><a href="/b">en savoir plus</a>', 'fr'), []);
    // Lighthouse looks "EN" up as is and finds no list; a language tag is case-insensitive.
    assert.deepEqual(fired('<a href="/a">here</a>', 'EN'), ['here']);
  });

  it('with several languages on the page, each link is judged in its own text\'s language; no language at all checks every list', () => {
    const mixed = '<p lang="es"><a href="/a">Más información</a></p><a href="/b">mas</a><a href="/c"><span lang="de">mehr</span> <span lang="en">more</span></a>';
    // "/b" is in English (the html lang), where "mas" is an acronym; "/c" mixes languages: every list counts, and its text is not in any.
    assert.deepEqual(fired(mixed), ['Más información']);
    const noLang = '<!doctype html><html><body><a href="/a">Läs mer</a><a href="/b">続きを読む</a><a href="/c">Trail shoes</a></body></html>';
    assert.deepEqual(generic(analyze(noLang, null, URL)).map((l) => l.text), ['Läs mer', '続きを読む']);
  });

  it('beyond Lighthouse: the words are judged without surrounding punctuation, and a link with no visible text by its aria-label or image alt', () => {
    assert.deepEqual(fired('<a href="/a">Read more »</a><a href="/b">More…</a><a href="/c">→ here</a><a href="/d">More than 40 shops</a>'), ['Read more »', 'More…', '→ here']);
    assert.deepEqual(
      fired('<a href="/a" aria-label="More"><svg></svg></a><a href="/b"><img src="/i.png" alt="click here"></a><a href="/c" aria-label="Storm coverage"><svg></svg></a><a href="/d"><span hidden>Storm</span>more</a>'),
      ['More', 'click here', 'more'],
    );
    // visible text wins over a label, as in Lighthouse: a "Read more" with a descriptive aria-label still reads "Read more"
    assert.deepEqual(fired('<a href="/a" aria-label="Read more about the storm">Read more</a>'), ['Read more']);
  });

  it('suggests a text from the page: another link to the same place, the block\'s heading, the title, else the URL\'s words', () => {
    const suggestions = generic(
      analyze(
        page(
          '<a href="/guide/lacing">How to lace trail shoes</a><a href="/guide/lacing">here</a>' +
            '<li><h3>Winter boots</h3><a href="/boots">more</a></li>' +
            '<a href="/p/123" title="Spring catalogue (PDF)">click here</a>' +
            '<a href="/stories/harbour-reopens-today.html">read more</a><a href="/p/987">more</a>',
        ),
        null,
        URL,
      ),
    ).map((l) => l.suggestedText);
    assert.deepEqual(suggestions, ['How to lace trail shoes', 'Winter boots', 'Spring catalogue (PDF)', 'Harbour reopens today', null]);
  });

  it('the phrase list holds Lighthouse\'s languages', () => {
    for (const [text, lang] of [['click here', 'en'], ['クリック', null], ['ここをクリック', 'ja'], ['más información', 'es'], ['veja mais', 'pt'], ['자세히 보기', 'ko'], ['läs mer', 'sv'], ['weiterlesen', 'de'], ['மேலும் அறிக', 'ta'], ['بیشتر بخوانید', 'fa']] as const) {
      assert.equal(isGenericLinkText(text, lang), text !== 'クリック', text);
    }
  });
});

describe('link audit: crawlable-anchors as Lighthouse reads it, and where Google says more', () => {
  const problems = (body: string) => unfollowable(analyze(page(body), null, URL)).map((l) => `${l.text}:${l.problem}`);

  it('Lighthouse\'s exemptions pass: role, name, mailto:, an id-only anchor, a bare <a>, tel:, in-page fragments, a plain "#"', () => {
    const body =
      '<a role="button" href="javascript:void(0)" onclick="toggle()">menu</a><a name="more" onclick="go()">named</a><a href="mailto:x@news.test" onclick="track()">mail</a>' +
      '<a id="comments" onclick="scrollTo(0)">idonly</a><a>placeholder</a><a href="tel:+1555">tel</a><a href="#reviews" onclick="openTab()">tab</a><a href="#">top</a>';
    assert.deepEqual(problems(body), []);
    assert.equal(checkResult(analyze(page(body), null, URL), 'crawlable-anchors'), 'pass');
  });

  it('fails what Lighthouse fails: onclick without href, javascript:void(0) however spaced, href-only attributes without href, file:, a malformed URL', () => {
    assert.deepEqual(
      problems('<a onmousedown="nav()">a</a><a href="javascript: void 0">b</a><a target="_blank">c</a><a href="file:///C:/report.pdf">d</a><a href="http://[::1">e</a>'),
      ['a:script-only', 'b:javascript', 'c:no-href', 'd:file', 'e:invalid'],
    );
  });

  it('fails what Lighthouse passes and Google cannot follow: any javascript: URL, and "" or "#" with the destination in an onclick', () => {
    assert.deepEqual(
      problems('<a href="javascript:goTo(\'products\')">a</a><a href="JavaScript:void(0)">b</a><a href="#" onclick="location=\'/deals\'">c</a><a href="" onclick="go()">d</a>'),
      ['a:javascript', 'b:javascript', 'c:placeholder-href', 'd:placeholder-href'],
    );
  });

  it('finds the real URL in a data-href, a location assignment, window.open or a javascript: URL', () => {
    const links = unfollowable(
      analyze(
        page(
          '<a href="#" onclick="go(this)" data-href="/sale/boots">a</a><a onclick="window.open(\'https://partner.example.org/offer\')">b</a>' +
            '<a href="javascript:location.assign(\'/cart\')">c</a><a onclick="load(\'catalogue.html?page=2\')">d</a><a onclick="toggle(\'menu\')">e</a>',
        ),
        null,
        URL,
      ),
    );
    assert.deepEqual(links.map((l) => l.suggestedHref), ['/sale/boots', 'https://partner.example.org/offer', '/cart', 'catalogue.html?page=2', null]);
  });

  it('a page without links passes both audits, as in Lighthouse', () => {
    const report = analyze(page('<p>No links here.</p>'), null, URL);
    assert.equal(checkResult(report, 'link-text'), 'pass');
    assert.equal(checkResult(report, 'crawlable-anchors'), 'pass');
    assert.deepEqual(report.scores, { seo: 100, overall: 100 });
  });
});

describe('link audit beside the other analyzers', () => {
  it('the broken-links report and the link audit report one crawlable-anchors finding, with one id, when combined', () => {
    const html = page('<a href="/ok">Fine</a><a href="javascript:void(0)" onclick="location.href=\'/a\'">A</a><a onclick="go(\'/b\')">B</a>');
    const doc = parseHtml(html, URL);
    const extracted = extractLinks(doc, URL);
    const links = judgeLinks({ checked: [], notChecked: [], skipped: extracted.skipped, notes: [], unfollowable: extracted.unfollowable });
    const audit = analyze(html, null, URL);
    assert.equal(onlyFinding(links, 'crawlable-anchors').findingId, onlyFinding(audit, 'crawlable-anchors').findingId);
    assert.equal(links.details.notFollowable, 2);
    assert.equal(links.checks.find((c) => c.rule === 'crawlable-anchors')?.audit, 'crawlable-anchors');
    const combined = combineReports([links, audit], ['broken-links', 'link-audit']);
    assert.equal(onlyFinding(combined, 'crawlable-anchors').count, 2);
    assert.equal(combined.checks.filter((c) => c.rule === 'crawlable-anchors').length, 1);
  });

  it('the headings and links tool\'s analyzers share one parse and key their details by analyzer', () => {
    const html = page('<h1>News</h1><article><h2>Harbour</h2><a href="/h">Read more</a></article>');
    const report = analyzeFetched([headingStructureAnalyzer, linkAuditAnalyzer], html, null, URL);
    assertValid(report);
    assert.deepEqual(firedRules(report), ['link-text']);
    assert.equal((report.details['link-audit'] as { links: number }).links, 1);
    assert.equal((report.details['heading-structure'] as { headings: number }).headings, 2);
  });

  it('HTML passed in (no address) gets fixes that never name the placeholder', () => {
    const report = analyzeFetched([linkAuditAnalyzer], page('<a href="/">here</a><a href="/shoes">here</a>'), null, LOCAL_PAGE_URL);
    const finding = onlyFinding(report, 'link-text');
    assert.equal(finding.count, 1, 'the link to the page itself is left out');
    assert.ok(!JSON.stringify(report).includes('local.invalid'));
  });
});
