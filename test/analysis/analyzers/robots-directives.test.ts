import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { indexingVerdict, parseDirectives, parseRobotsDate, type RobotsSources } from '../../../src/analysis/analyzers/robots-directives.ts';

const NOW = new Date('2026-06-01T12:00:00Z');
const meta = (name: string, content: string) => ({ name, content });

describe('robots directives per crawler', () => {
  // [what, sources, blocks Google (agents of the blocking directives), other crawlers blocked, scheduled, ignored]
  const cases: [string, RobotsSources, (string | null)[], string[], number, number][] = [
    ['meta robots noindex', { metas: [meta('robots', 'noindex, follow')], header: null }, [null], [], 0, 0],
    ['meta robots NONE, any case', { metas: [meta('ROBOTS', 'None')], header: null }, [null], [], 0, 0],
    ['meta robots index, follow', { metas: [meta('robots', 'index, follow')], header: null }, [], [], 0, 0],
    ['meta googlebot noindex blocks Google', { metas: [meta('googlebot', 'noindex')], header: null }, ['googlebot'], [], 0, 0],
    ['meta bingbot noindex blocks Bing only', { metas: [meta('bingbot', 'noindex')], header: null }, [], ['bingbot'], 0, 0],
    ['meta googlebot-news noindex is Google News only', { metas: [meta('googlebot-news', 'noindex')], header: null }, [], ['googlebot-news'], 0, 0],
    ['a meta name that is no crawler is not read', { metas: [meta('description', 'noindex'), meta('keywords', 'none')], header: null }, [], [], 0, 0],
    ['robots and googlebot metas combine, the more restrictive wins', { metas: [meta('robots', 'nofollow'), meta('googlebot', 'noindex')], header: null }, ['googlebot'], [], 0, 0],
    ['header noindex', { metas: [], header: 'noindex' }, [null], [], 0, 0],
    ['header googlebot: noindex', { metas: [], header: 'googlebot: noindex' }, ['googlebot'], [], 0, 0],
    ['header Googlebot: NoIndex, any case', { metas: [], header: 'Googlebot: NoIndex' }, ['googlebot'], [], 0, 0],
    ['header bingbot: noindex blocks Bing only', { metas: [], header: 'bingbot: noindex' }, [], ['bingbot'], 0, 0],
    ['header bingbot: noindex, nofollow: both directives are bingbot\'s', { metas: [], header: 'bingbot: nofollow, noindex' }, [], ['bingbot'], 0, 0],
    ['two headers joined: googlebot nofollow, otherbot noindex', { metas: [], header: 'googlebot: nofollow, otherbot: noindex, nofollow' }, [], ['otherbot'], 0, 0],
    ['two headers joined: otherbot noindex, then googlebot none', { metas: [], header: 'otherbot: noindex, googlebot: none' }, ['googlebot'], ['otherbot'], 0, 0],
    ['header max-snippet:-1 is not a crawler prefix', { metas: [], header: 'max-snippet:-1, max-image-preview:large' }, [], [], 0, 0],
    ['unavailable_after past, RFC 822', { metas: [], header: 'unavailable_after: Wed, 25 Jun 2025 15:00:00 PST' }, [null], [], 0, 0],
    ['unavailable_after past, RFC 850', { metas: [], header: 'unavailable_after: Wednesday, 25-Jun-25 15:00:00 GMT' }, [null], [], 0, 0],
    ['unavailable_after past, ISO 8601 date', { metas: [meta('robots', 'unavailable_after: 2026-05-31')], header: null }, [null], [], 0, 0],
    ['unavailable_after past, for googlebot', { metas: [], header: 'googlebot: unavailable_after: 2025-01-01T00:00:00+01:00' }, ['googlebot'], [], 0, 0],
    ['unavailable_after past, for bingbot only', { metas: [], header: 'bingbot: unavailable_after: 2025-01-01' }, [], ['bingbot'], 0, 0],
    ['unavailable_after future, RFC 822', { metas: [], header: 'unavailable_after: Fri, 25 Jun 2027 15:00:00 PST' }, [], [], 1, 0],
    ['unavailable_after future, ISO 8601', { metas: [meta('robots', 'index, unavailable_after: 2030-01-01T00:00:00Z')], header: null }, [], [], 1, 0],
    ['unavailable_after unreadable is ignored', { metas: [], header: 'unavailable_after: next tuesday' }, [], [], 0, 1],
    ['unavailable_after a bare number is not a date', { metas: [], header: 'unavailable_after: 1' }, [], [], 0, 1],
    ['unavailable_after 31 Feb is not a date', { metas: [], header: 'unavailable_after: 2025-02-31' }, [], [], 0, 1],
    ['a past date, then noindex for another crawler', { metas: [], header: 'unavailable_after: Mon, 02 Jun 2025 10:00:00 GMT, bingbot: noindex' }, [null], ['bingbot'], 0, 0],
  ];
  for (const [what, sources, google, others, scheduled, ignored] of cases) {
    it(what, () => {
      const verdict = indexingVerdict(sources, NOW);
      assert.deepEqual(verdict.blocking.map((b) => b.agent), google, 'blocks Google');
      assert.deepEqual(verdict.otherCrawlers.map((b) => b.agent), others, 'blocks other crawlers');
      assert.equal(verdict.scheduled.length, scheduled, 'scheduled');
      assert.equal(verdict.ignored.length, ignored, 'ignored');
    });
  }

  it('a header prefix addresses the directives after it up to the next prefix', () => {
    assert.deepEqual(
      parseDirectives('noindex, googlebot: nofollow, noarchive, bingbot: none', 'header').map((d) => [d.agent, d.name]),
      [[null, 'noindex'], ['googlebot', 'nofollow'], ['googlebot', 'noarchive'], ['bingbot', 'none']],
    );
  });
});

describe('unavailable_after dates', () => {
  const cases: [string, string | null][] = [
    ['Wed, 25 Jun 2025 15:00:00 PST', '2025-06-25T23:00:00.000Z'],
    ['25 Jun 2025 15:00:00 +0200', '2025-06-25T13:00:00.000Z'],
    ['Wednesday, 25-Jun-25 15:00:00 GMT', '2025-06-25T15:00:00.000Z'],
    ['25-Aug-2007 15:00:00 EST', '2007-08-25T20:00:00.000Z'],
    ['2025-06-25', '2025-06-25T00:00:00.000Z'],
    ['2025-06-25T15:00:00Z', '2025-06-25T15:00:00.000Z'],
    ['2025-06-25T15:00:00-05:00', '2025-06-25T20:00:00.000Z'],
    ['2025-06-25T15:00', '2025-06-25T15:00:00.000Z'],
    ['tomorrow', null],
    ['1', null],
    ['25 Foo 2025', null],
    ['2025-13-01', null],
    ['2025-06-25T25:00:00Z', null],
    ['Wed, 25 Jun 2025 15:00:00 XYZ', null],
  ];
  for (const [text, iso] of cases) {
    it(text, () => assert.equal(parseRobotsDate(text)?.toISOString() ?? null, iso));
  }
});
