// Robots directives (<meta name="robots">, <meta name="googlebot">, X-Robots-Tag) read per crawler,
// the way Google documents them (developers.google.com/search/docs/crawling-indexing/robots-meta-tag):
// - <meta name="robots"> speaks to every crawler, <meta name="<crawler>"> to that crawler only;
// - an X-Robots-Tag directive may be prefixed "<crawler>:", which addresses it and the directives
//   after it (up to the next prefix) to that crawler; without a prefix it is for every crawler;
//   several headers arrive joined with ", ", which reads the same as one comma-separated list;
// - directives are case-insensitive; where they conflict the more restrictive wins, so every
//   directive addressed to a crawler applies to it (robots and googlebot metas together);
// - noindex and none keep a page out of the index, and so does unavailable_after once its date has
//   passed (RFC 822, RFC 850 or ISO 8601); a date that cannot be read is ignored, as Google does.
// Google Search is the index a page is judged for: a page is unindexable when a directive for all
// crawlers or for Googlebot blocks it; a directive for another crawler only (bingbot: noindex)
// keeps the page out of that crawler's index alone. Pure: strings in, verdicts out.

/** Meta names that address one crawler: Google's and the other major search crawlers' tokens. */
export const CRAWLER_META_NAMES: ReadonlySet<string> = new Set([
  'googlebot', 'googlebot-news', 'googlebot-image', 'googlebot-video', 'storebot-google', 'google-inspectiontool',
  'adsbot-google', 'mediapartners-google', 'bingbot', 'msnbot', 'bingpreview', 'slurp', 'duckduckbot', 'baiduspider',
  'yandex', 'yandexbot', 'applebot', 'archive.org_bot', 'ia_archiver', 'naverbot', 'yeti', 'seznambot', 'petalbot',
]);
/** The crawler whose index a page is judged for. */
export const GOOGLE_CRAWLER = 'googlebot';
// Directives whose own syntax is "name: value", so their name is not a crawler prefix.
const VALUED = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);
const WEEKDAY = /^(mon|tue|wed|thu|fri|sat|sun)[a-z]*$/i;

/** One directive as read: for whom (null: every crawler), its name and value, and where it came from. */
export interface RobotsDirective {
  agent: string | null;
  name: string;
  value: string | null;
  source: 'meta' | 'header';
  /** the whole meta content or header value it was read from */
  origin: string;
}

/** A directive that keeps the page out of an index, or that Google ignores (an unreadable date). */
export interface RobotsBlock extends RobotsDirective {
  /** when unavailable_after: the date it names, ISO */
  date?: string;
}

export interface IndexingVerdict {
  /** directives that keep the page out of Google's index: for every crawler or for Googlebot */
  blocking: RobotsBlock[];
  /** directives that keep the page out of one other crawler's index only */
  otherCrawlers: RobotsBlock[];
  /** unavailable_after dates still to come: the page leaves the index then */
  scheduled: RobotsBlock[];
  /** unavailable_after values that are not a date Google reads: ignored */
  ignored: RobotsBlock[];
}

/**
 * Splits a directive list ("noindex, nofollow", "googlebot: noindex, bingbot: nofollow") into
 * directives with their crawler. agent is the crawler a meta tag addresses (null for robots).
 */
export function parseDirectives(text: string, source: 'meta' | 'header', agent: string | null = null): RobotsDirective[] {
  const out: RobotsDirective[] = [];
  const parts = text.split(',');
  let current = agent;
  for (let i = 0; i < parts.length; i++) {
    let part = (parts[i] ?? '').trim();
    if (part === '') continue;
    // A header token "<crawler>: <directive>" switches whom the following directives address.
    const prefix = /^([a-z0-9_.-]+)\s*:\s*(.*)$/i.exec(part);
    if (source === 'header' && prefix && !VALUED.has((prefix[1] ?? '').toLowerCase())) {
      current = (prefix[1] ?? '').toLowerCase();
      part = (prefix[2] ?? '').trim();
      if (part === '') continue;
    }
    const colon = part.indexOf(':');
    const name = (colon < 0 ? part : part.slice(0, colon)).trim().toLowerCase();
    let value = colon < 0 ? null : part.slice(colon + 1).trim();
    // RFC 822 and 850 dates start with a weekday and a comma: the split cut the date in two.
    if (name === 'unavailable_after' && value !== null && WEEKDAY.test(value) && i + 1 < parts.length) {
      value = `${value}, ${(parts[++i] ?? '').trim()}`;
    }
    out.push({ agent: current, name, value, source, origin: text });
  }
  return out;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// RFC 822 zones (military single letters left out: RFC 1123 says they were specified wrongly).
const ZONES: Record<string, number> = { ut: 0, utc: 0, gmt: 0, z: 0, est: -5, edt: -4, cst: -6, cdt: -5, mst: -7, mdt: -6, pst: -8, pdt: -7 };
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(z|[+-]\d{2}:?\d{2})?)?$/i;
// "Wed, 25 Jun 2010 15:00:00 PST" (RFC 822/1123) and "Friday, 25-Jun-10 15:00:00 PST" (RFC 850), weekday optional.
const RFC = /^(?:[a-z]+,\s*)?(\d{1,2})([\s-])([a-z]{3})\2(\d{2}|\d{4})(?:\s+(\d{2}):(\d{2})(?::(\d{2}))?(?:\s*([a-z]{1,3}|[+-]\d{4}))?)?$/i;

/** A date as unavailable_after may write it (RFC 822, RFC 850, ISO 8601), or null: nothing is guessed. */
export function parseRobotsDate(text: string): Date | null {
  const value = text.trim();
  const iso = ISO.exec(value);
  if (iso) {
    const [, y, mo, d, h = '00', mi = '00', s = '00', zone] = iso;
    return dateOf(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), zone === undefined ? 0 : offsetOf(zone));
  }
  const rfc = RFC.exec(value);
  if (!rfc) return null;
  const [, d, , mon = '', y = '', h = '00', mi = '00', s = '00', zone] = rfc;
  const month = MONTHS.indexOf(mon.toLowerCase()) + 1;
  if (month === 0) return null;
  // two-digit years as RFC 2822 reads them: 00-49 this century, 50-99 the last
  const year = y.length === 4 ? Number(y) : Number(y) + (Number(y) < 50 ? 2000 : 1900);
  const offset = zone === undefined ? 0 : offsetOf(zone);
  return offset === null ? null : dateOf(year, month, Number(d), Number(h), Number(mi), Number(s), offset);
}

/** A zone's offset from UTC in minutes, or null when unknown. */
function offsetOf(zone: string): number | null {
  const named = ZONES[zone.toLowerCase()];
  if (named !== undefined) return named * 60;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m) return null;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

function dateOf(y: number, mo: number, d: number, h: number, mi: number, s: number, offset: number | null): Date | null {
  if (offset === null || h > 23 || mi > 59 || s > 60) return null;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s) - offset * 60_000);
  // Date.UTC rolls 31 Feb into March: a day that does not exist is not a date.
  const check = new Date(Date.UTC(y, mo - 1, d));
  return check.getUTCMonth() === mo - 1 && check.getUTCDate() === d ? date : null;
}

export interface RobotsSources {
  /** every <meta> with a name: robots and crawler names are read, the rest ignored */
  metas: readonly { name: string; content: string }[];
  /** the X-Robots-Tag header (several joined with ", "), or null when the response is unknown */
  header: string | null;
}

/** Reads every robots directive of a page and says who may not index it. now decides unavailable_after. */
export function indexingVerdict(sources: RobotsSources, now: Date = new Date()): IndexingVerdict {
  const directives: RobotsDirective[] = [];
  for (const meta of sources.metas) {
    const name = meta.name.trim().toLowerCase();
    if (name === 'robots') directives.push(...parseDirectives(meta.content, 'meta'));
    else if (CRAWLER_META_NAMES.has(name)) directives.push(...parseDirectives(meta.content, 'meta', name));
  }
  if (sources.header !== null) directives.push(...parseDirectives(sources.header, 'header'));
  const verdict: IndexingVerdict = { blocking: [], otherCrawlers: [], scheduled: [], ignored: [] };
  for (const d of directives) {
    let block: RobotsBlock | null = null;
    if (d.name === 'noindex' || d.name === 'none') block = d;
    else if (d.name === 'unavailable_after') {
      const date = parseRobotsDate(d.value ?? '');
      if (date === null) {
        verdict.ignored.push(d);
        continue;
      }
      const dated = { ...d, date: date.toISOString() };
      if (date.getTime() > now.getTime()) {
        verdict.scheduled.push(dated);
        continue;
      }
      block = dated;
    }
    if (block === null) continue;
    if (block.agent === null || block.agent === GOOGLE_CRAWLER) verdict.blocking.push(block);
    else verdict.otherCrawlers.push(block);
  }
  return verdict;
}

/** How a block reads in a finding: "noindex", "unavailable_after: <date> (passed)". */
export function describeBlock(block: RobotsBlock): string {
  const who = block.agent === null ? '' : `${block.agent}: `;
  return block.name === 'unavailable_after' ? `${who}unavailable_after: ${block.value ?? ''}` : `${who}${block.name}`;
}
