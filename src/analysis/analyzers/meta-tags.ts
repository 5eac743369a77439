// Meta tags: the <head> a search engine, a browser and a social card read. Title and description
// (present, one each, a useful length), canonical (one, absolute, this host), robots (meta and
// X-Robots-Tag when the response is known), viewport (present, zoom allowed), charset (declared,
// utf-8), <html lang>, hreflang alternates, Open Graph and Twitter cards. Pure: HTML in, report out.
import type { Element } from 'domhandler';
import { makeFinding, type Evidence, type Finding, type PatchType, type Report } from '../findings.ts';
import { attr, closest, parseHtml, rawTextOf, resolveUrl, snippetOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, type Analyzer, type RuleDefinition } from '../scoring.ts';
import { isLocalPage } from '../local-page.ts';
import { CRAWLER_META_NAMES, describeBlock, indexingVerdict, type IndexingVerdict, type RobotsBlock } from './robots-directives.ts';
import { CANONICAL_TO_ALTERNATE, CANONICAL_TO_ROOT, canonicalMisdirection } from './canonical-hreflang.ts';
import {
  DESCRIPTION_MAX,
  DESCRIPTION_MIN,
  DESCRIPTION_MISSING,
  missingDescriptionFinding,
  missingTitleFinding,
  TITLE_MAX,
  TITLE_MIN,
  TITLE_MISSING,
} from './head-defects.ts';

export { DESCRIPTION_MAX, DESCRIPTION_MIN, TITLE_MAX, TITLE_MIN } from './head-defects.ts';
/** WCAG 1.4.4: text must zoom to 200%, so a maximum-scale below 2 blocks it. */
const MIN_MAX_SCALE = 2;
const OG_REQUIRED = ['og:title', 'og:description', 'og:image', 'og:url'] as const;
// Google accepts an ISO 639-1 language, optionally a script and an ISO 3166-1 region (or UN M.49).
const HREFLANG = /^[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|\d{3}))?$/i;

export const META_RULES = {
  titleMissing: { ...TITLE_MISSING, category: 'seo', weight: 5, severity: 'high' },
  titleShort: { id: 'meta-title-too-short', category: 'seo', weight: 1, severity: 'low', title: 'The title is too short' },
  titleLong: { id: 'meta-title-too-long', category: 'seo', weight: 1, severity: 'low', title: 'The title is too long' },
  titleMultiple: { id: 'meta-title-multiple', category: 'seo', weight: 1, severity: 'medium', title: 'The page has more than one <title>' },
  descriptionMissing: { ...DESCRIPTION_MISSING, category: 'seo', weight: 3, severity: 'medium' },
  descriptionShort: { id: 'meta-description-too-short', category: 'seo', weight: 1, severity: 'low', title: 'The meta description is too short' },
  descriptionLong: { id: 'meta-description-too-long', category: 'seo', weight: 1, severity: 'low', title: 'The meta description is too long' },
  descriptionMultiple: { id: 'meta-description-multiple', category: 'seo', weight: 1, severity: 'medium', title: 'The page has more than one meta description' },
  canonicalMissing: { id: 'meta-canonical-missing', category: 'seo', weight: 1, severity: 'low', title: 'The page has no canonical link' },
  canonicalRelative: { id: 'meta-canonical-relative', audit: 'canonical', category: 'seo', weight: 1, severity: 'low', title: 'The canonical URL is not absolute' },
  canonicalOtherHost: { id: 'meta-canonical-other-host', audit: 'canonical', category: 'seo', weight: 2, severity: 'medium', title: 'The canonical URL points to another host' },
  canonicalMultiple: { id: 'meta-canonical-multiple', audit: 'canonical', category: 'seo', weight: 2, severity: 'medium', title: 'The page has more than one canonical link' },
  canonicalRoot: CANONICAL_TO_ROOT,
  canonicalOtherLanguage: CANONICAL_TO_ALTERNATE,
  // Lighthouse's is-crawlable: the page's robots directives keep it out of Google.
  noindex: { id: 'meta-robots-noindex', audit: 'is-crawlable', category: 'seo', weight: 5, severity: 'high', title: 'The page is blocked from indexing' },
  // Lighthouse passes is-crawlable while one known crawler may index; Bing alone is not Google.
  otherCrawler: { id: 'meta-robots-crawler-blocked', category: 'seo', weight: 1, severity: 'low', title: 'A robots directive keeps one crawler from indexing the page' },
  viewportMissing: { id: 'meta-viewport-missing', category: 'best-practices', weight: 2, severity: 'medium', title: 'The page has no viewport meta tag' },
  viewportZoom: { id: 'meta-viewport-zoom-disabled', category: 'accessibility', weight: 3, severity: 'medium', title: 'The viewport blocks zooming' },
  charsetMissing: { id: 'meta-charset-missing', category: 'best-practices', weight: 1, severity: 'low', title: 'No character encoding is declared' },
  charsetNotUtf8: { id: 'meta-charset-not-utf8', category: 'best-practices', weight: 1, severity: 'low', title: 'The character encoding is not UTF-8' },
  langMissing: { id: 'meta-lang-missing', category: 'accessibility', weight: 3, severity: 'medium', title: 'The <html> element has no lang' },
  hreflangNoDefault: { id: 'meta-hreflang-no-x-default', category: 'seo', weight: 1, severity: 'low', title: 'The hreflang alternates have no x-default' },
  hreflangInvalid: { id: 'meta-hreflang-invalid-code', audit: 'hreflang', category: 'seo', weight: 1, severity: 'medium', title: 'An hreflang code is not a valid language' },
  hreflangRelative: { id: 'meta-hreflang-relative', audit: 'hreflang', category: 'seo', weight: 1, severity: 'medium', title: 'An hreflang URL is not absolute' },
  ogMissing: { id: 'meta-og-missing', category: 'best-practices', weight: 1, severity: 'low', title: 'An Open Graph property is missing' },
  ogImageRelative: { id: 'meta-og-image-relative', category: 'best-practices', weight: 1, severity: 'low', title: 'og:image is not an absolute URL' },
  twitterCardMissing: { id: 'meta-twitter-card-missing', category: 'best-practices', weight: 0.5, severity: 'info', title: 'The page has no twitter:card' },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(META_RULES);

export interface HreflangEntry {
  hreflang: string;
  href: string;
}

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, facts: PageFacts | null, url: string): Report {
  const findings: Finding[] = [];
  const add = (
    rule: RuleDefinition,
    location: string,
    detail: string,
    evidence: Evidence,
    change: string,
    acceptance: string,
    patchType: PatchType = 'html',
  ) => {
    findings.push(
      makeFinding({
        rule: rule.id,
        category: rule.category,
        severity: rule.severity,
        location,
        title: rule.title,
        detail,
        evidence,
        fix: { patchType, change, acceptance, roleHint: 'edit' },
      }),
    );
  };
  const at = (e: Element): Evidence => ({ selector: doc.locate(e), snippet: snippetOf(e), line: doc.lineOf(e) });
  const metas = doc.byTag('meta');
  // Open Graph is specified with property=, but name= is common and read by the major consumers.
  const metaNamed = (name: string) =>
    metas.filter((m) => (attr(m, 'name') ?? attr(m, 'property') ?? '').trim().toLowerCase() === name);
  const content = (e: Element | undefined) => (e ? (attr(e, 'content') ?? '').trim() : null);
  const pageUrl = resolveUrl(facts?.finalUrl || url, null);
  // HTML passed in has no address of its own: the canonical cannot be told what to say, nor
  // judged against a host the page is not served from.
  const local = facts === null && isLocalPage(url);

  // Title: an <svg> may hold its own <title>, which is not the document's.
  const titles = doc.byTag('title').filter((t) => closest(t, 'svg') === null);
  const firstTitle = titles[0];
  const title = firstTitle ? rawTextOf(firstTitle, 2000).replace(/\s+/g, ' ').trim() : null;
  if (!firstTitle || title === '') {
    findings.push(missingTitleFinding(META_RULES.titleMissing, firstTitle ? at(firstTitle) : null));
  } else if (title !== null && title.length < TITLE_MIN) {
    add(META_RULES.titleShort, 'document', `The title "${title}" has ${title.length} characters, fewer than ${TITLE_MIN}: too little to describe the page.`,
      at(firstTitle), `Lengthen the <title> to ${TITLE_MIN}-${TITLE_MAX} characters naming the page's topic.`, `The <title> has at least ${TITLE_MIN} characters.`, 'content');
  } else if (title !== null && title.length > TITLE_MAX) {
    add(META_RULES.titleLong, 'document', `The title has ${title.length} characters, more than ${TITLE_MAX}: search results cut it off.`,
      at(firstTitle), `Shorten the <title> to at most ${TITLE_MAX} characters, the key words first.`, `The <title> has at most ${TITLE_MAX} characters.`, 'content');
  }
  for (const extra of titles.slice(1)) {
    add(META_RULES.titleMultiple, doc.locate(extra), `The page has ${titles.length} <title> elements; browsers and search engines use only the first.`,
      at(extra), `Remove the <title> at ${doc.locate(extra)}, keeping one.`, 'The page has exactly one <title>.');
  }

  // Description.
  const descriptions = metaNamed('description');
  const firstDescription = descriptions[0];
  const description = content(firstDescription);
  if (!firstDescription || description === '') {
    findings.push(missingDescriptionFinding(META_RULES.descriptionMissing, firstDescription ? at(firstDescription) : null));
  } else if (description !== null && description.length < DESCRIPTION_MIN) {
    add(META_RULES.descriptionShort, 'document', `The meta description has ${description.length} characters, fewer than ${DESCRIPTION_MIN}.`,
      at(firstDescription), `Expand the meta description to ${DESCRIPTION_MIN}-${DESCRIPTION_MAX} characters.`, `The meta description has at least ${DESCRIPTION_MIN} characters.`, 'content');
  } else if (description !== null && description.length > DESCRIPTION_MAX) {
    add(META_RULES.descriptionLong, 'document', `The meta description has ${description.length} characters, more than ${DESCRIPTION_MAX}: search results cut it off.`,
      at(firstDescription), `Shorten the meta description to at most ${DESCRIPTION_MAX} characters.`, `The meta description has at most ${DESCRIPTION_MAX} characters.`, 'content');
  }
  for (const extra of descriptions.slice(1)) {
    add(META_RULES.descriptionMultiple, doc.locate(extra), `The page has ${descriptions.length} meta descriptions; search engines may use either.`,
      at(extra), `Remove the meta description at ${doc.locate(extra)}, keeping one.`, 'The page has exactly one meta description.');
  }

  // Canonical.
  const canonicals = doc.byTag('link').filter((l) => relTokens(l).includes('canonical'));
  const firstCanonical = canonicals[0];
  const canonicalHref = firstCanonical ? (attr(firstCanonical, 'href') ?? '').trim() : null;
  if (!firstCanonical) {
    add(META_RULES.canonicalMissing, 'document', 'The page names no canonical URL, so duplicates of it (tracking parameters, http/https, trailing slashes) split its ranking.',
      {}, local || !pageUrl
        ? 'Add <link rel="canonical"> in <head> whose href is the page\'s own public URL: the absolute https:// address it is served at.'
        : `Add <link rel="canonical" href="${pageUrl.href}"> in <head>.`,
      'The page has one <link rel="canonical"> with an absolute URL.');
  } else {
    const absolute = absoluteUrl(canonicalHref ?? '');
    const location = doc.locate(firstCanonical);
    if (!absolute) {
      add(META_RULES.canonicalRelative, location, `The canonical href "${canonicalHref}" is not an absolute URL; a relative one is easily resolved against the wrong page.`,
        { ...at(firstCanonical), url: canonicalHref ?? '' }, 'Write the canonical href as a full URL with scheme and host.', 'The canonical href is an absolute http(s) URL.');
    } else if (pageUrl && !local && absolute.hostname !== pageUrl.hostname) {
      add(META_RULES.canonicalOtherHost, location, `The canonical URL is on ${absolute.hostname}, not ${pageUrl.hostname}: search engines index that page instead of this one.`,
        { ...at(firstCanonical), url: absolute.href }, `Point the canonical at this page on ${pageUrl.hostname}, unless the page really is a copy of the other site's.`,
        `The canonical URL's host is ${pageUrl.hostname}.`);
    }
    if (absolute && pageUrl && !local) {
      const alternates = doc.byTag('link')
        .filter((l) => relTokens(l).includes('alternate') && attr(l, 'hreflang') !== undefined)
        .map((l) => ({ hreflang: (attr(l, 'hreflang') ?? '').trim(), resolved: resolveUrl((attr(l, 'href') ?? '').trim(), doc.baseUrl ?? pageUrl)?.href ?? null }));
      const misdirection = canonicalMisdirection(absolute.href, pageUrl.href, alternates);
      if (misdirection?.kind === 'root') {
        add(META_RULES.canonicalRoot, location, `The canonical URL ${absolute.href} is the site's home page, not this page: search engines are asked to index the home page instead, and this page drops out of results.`,
          { ...at(firstCanonical), url: absolute.href }, `Point the canonical at this page's own URL (${pageUrl.href}), or at the page whose content it duplicates.`,
          `The canonical URL is not the home page of ${pageUrl.hostname}.`);
      } else if (misdirection?.kind === 'alternate') {
        add(META_RULES.canonicalOtherLanguage, location, `The canonical URL ${absolute.href} is this page's hreflang="${misdirection.hreflang}" alternate: search engines are asked to index that language's page instead of this one, and the hreflang pair cancels out.`,
          { ...at(firstCanonical), url: absolute.href }, `Point the canonical at this page's own URL (${pageUrl.href}); each language's page names itself.`,
          "The canonical URL is not one of the page's other hreflang alternates.");
      }
    }
  }
  for (const extra of canonicals.slice(1)) {
    add(META_RULES.canonicalMultiple, doc.locate(extra), `The page has ${canonicals.length} canonical links; search engines ignore conflicting ones.`,
      at(extra), `Remove the canonical link at ${doc.locate(extra)}, keeping one.`, 'The page has exactly one canonical link.');
  }

  // Robots: meta robots and crawler metas, and the X-Robots-Tag header when the response is known,
  // read per crawler (robots-directives.ts): what blocks every crawler or Googlebot keeps the page
  // out of search; what blocks another crawler only is that crawler's loss, reported low.
  const robotsMetas = metas.filter((m) => {
    const name = (attr(m, 'name') ?? '').trim().toLowerCase();
    return name === 'robots' || CRAWLER_META_NAMES.has(name);
  });
  const robotsHeader = facts?.headers['x-robots-tag'] ?? null;
  // Each source is judged alone so a finding points at the tag or header that says it; a directive
  // blocks whatever else says, so judging them apart gives the same verdict as judging them together.
  const sources: { meta: Element | null; verdict: IndexingVerdict }[] = robotsMetas.map((m) => ({
    meta: m,
    verdict: indexingVerdict({ metas: [{ name: attr(m, 'name') ?? '', content: content(m) ?? '' }], header: null }),
  }));
  if (robotsHeader !== null) sources.push({ meta: null, verdict: indexingVerdict({ metas: [], header: robotsHeader }) });
  const blocked = (rule: RuleDefinition, meta: Element | null, block: RobotsBlock) => {
    const google = rule === META_RULES.noindex;
    const says = `"${describeBlock(block)}"${block.date === undefined ? '' : ` (the date passed: ${block.date})`}`;
    const whom = !google ? `${block.agent ?? ''} leaves the page out of its index; other search engines, Google included, may still list it`
      : block.agent === null ? 'every search engine leaves the page out of its results' : 'Google leaves the page out of its results';
    const unless = google ? ' if the page should appear in search results' : `, unless ${block.agent ?? 'that crawler'} should not list the page`;
    if (meta === null) {
      add(rule, `header:x-robots-tag:${block.agent ?? '*'}`, `The X-Robots-Tag response header "${block.origin.slice(0, 200)}" says ${says}: ${whom}.`,
        { header: 'x-robots-tag', value: block.origin.slice(0, 200) }, `Remove ${says} from the X-Robots-Tag header the server sends for this page${unless}.`,
        google ? 'No X-Robots-Tag keeps every crawler or Googlebot from indexing the page.' : 'No X-Robots-Tag keeps a crawler from indexing the page.', 'http-header');
    } else {
      const name = attr(meta, 'name') ?? 'robots';
      add(rule, doc.locate(meta), `<meta name="${name}" content="${block.origin.slice(0, 200)}"> says ${says}: ${whom}.`, at(meta),
        `Remove ${block.name} from <meta name="${name}">${unless}.`,
        google ? 'No robots or googlebot meta tag keeps the page from being indexed.' : 'No crawler meta tag keeps the page from being indexed.');
    }
  };
  for (const { meta, verdict } of sources) {
    for (const block of verdict.blocking) blocked(META_RULES.noindex, meta, block);
    for (const block of verdict.otherCrawlers) blocked(META_RULES.otherCrawler, meta, block);
  }
  const robots = {
    blocking: sources.flatMap((s) => s.verdict.blocking),
    others: sources.flatMap((s) => s.verdict.otherCrawlers),
    scheduled: sources.flatMap((s) => s.verdict.scheduled),
    ignored: sources.flatMap((s) => s.verdict.ignored),
  };

  // Viewport.
  const viewportMeta = metaNamed('viewport')[0];
  const viewport = content(viewportMeta);
  if (!viewportMeta) {
    add(META_RULES.viewportMissing, 'document', 'Without a viewport meta tag mobile browsers render the page at desktop width, zoomed out.',
      {}, 'Add <meta name="viewport" content="width=device-width, initial-scale=1"> in <head>.', 'The page has a viewport meta tag.');
  } else {
    const settings = viewportSettings(viewport ?? '');
    const userScalable = settings.get('user-scalable');
    const maxScale = Number.parseFloat(settings.get('maximum-scale') ?? '');
    if (userScalable === 'no' || userScalable === '0' || (Number.isFinite(maxScale) && maxScale < MIN_MAX_SCALE)) {
      add(META_RULES.viewportZoom, doc.locate(viewportMeta), `The viewport "${viewport}" stops readers with low vision from zooming the page to 200%.`,
        at(viewportMeta), `Remove user-scalable=no and any maximum-scale below ${MIN_MAX_SCALE} from the viewport content.`,
        `The viewport allows zooming to at least ${MIN_MAX_SCALE}x.`);
    }
  }

  // Charset: <meta charset>, <meta http-equiv="content-type">, or the Content-Type header.
  const charsetMeta = metas.find((m) => attr(m, 'charset') !== undefined)
    ?? metas.find((m) => (attr(m, 'http-equiv') ?? '').trim().toLowerCase() === 'content-type');
  const metaCharset = charsetMeta ? (attr(charsetMeta, 'charset') ?? charsetParam(attr(charsetMeta, 'content') ?? '') ?? '').trim() : null;
  const headerCharset = facts ? charsetParam(facts.headers['content-type'] ?? '') : null;
  const charset = headerCharset ?? metaCharset;
  if (charset === null || charset === '') {
    add(META_RULES.charsetMissing, 'document', 'Neither a <meta charset> nor the Content-Type header declares the encoding, so browsers guess it.',
      {}, 'Add <meta charset="utf-8"> as the first element in <head>.', 'The page declares its character encoding.');
  } else if (!/^utf-?8$/i.test(charset)) {
    const fromHeader = headerCharset !== null;
    add(META_RULES.charsetNotUtf8, fromHeader ? 'header:content-type' : 'document', `The page declares the encoding ${charset}; UTF-8 is the encoding the HTML standard requires.`,
      fromHeader ? { header: 'content-type', value: facts?.headers['content-type'] ?? '' } : charsetMeta ? at(charsetMeta) : {},
      fromHeader ? 'Send Content-Type: text/html; charset=utf-8 and save the page as UTF-8.' : 'Save the page as UTF-8 and declare <meta charset="utf-8">.',
      'The declared encoding is UTF-8.', fromHeader ? 'http-header' : 'html');
  }

  // <html lang>.
  const htmlElement = doc.byTag('html')[0];
  const lang = htmlElement ? (attr(htmlElement, 'lang') ?? '').trim() : '';
  if (lang === '') {
    add(META_RULES.langMissing, 'document', 'Without <html lang> screen readers read the page in their default language and pronounce it wrongly.',
      htmlElement ? at(htmlElement) : {}, 'Add lang="…" with the page\'s language (for example lang="en") to <html>.', 'The <html> element has a non-empty lang.');
  }

  // hreflang alternates.
  const alternates = doc.byTag('link').filter((l) => relTokens(l).includes('alternate') && attr(l, 'hreflang') !== undefined);
  const hreflang: HreflangEntry[] = alternates.map((l) => ({ hreflang: (attr(l, 'hreflang') ?? '').trim(), href: (attr(l, 'href') ?? '').trim() }));
  if (alternates.length > 0 && !hreflang.some((h) => h.hreflang.toLowerCase() === 'x-default')) {
    add(META_RULES.hreflangNoDefault, 'document', `The page lists ${alternates.length} hreflang alternates but none for x-default, the page for every other language.`,
      {}, 'Add <link rel="alternate" hreflang="x-default" href="…"> pointing at the language chooser or default page.', 'The hreflang alternates include x-default.');
  }
  alternates.forEach((link, i) => {
    const entry = hreflang[i] as HreflangEntry;
    const location = doc.locate(link);
    if (entry.hreflang.toLowerCase() !== 'x-default' && !HREFLANG.test(entry.hreflang)) {
      add(META_RULES.hreflangInvalid, location, `hreflang="${entry.hreflang}" is not a language code (ISO 639-1, optionally a region such as en-GB).`,
        at(link), `Change hreflang="${entry.hreflang}" to a valid code such as "en" or "en-GB".`, `The hreflang at ${location} is a valid language code.`);
    }
    if (!absoluteUrl(entry.href)) {
      add(META_RULES.hreflangRelative, location, `The hreflang alternate href "${entry.href}" is not an absolute URL, which search engines require.`,
        { ...at(link), url: entry.href }, 'Write the alternate href as a full URL with scheme and host.', `The hreflang href at ${location} is absolute.`);
    }
  });

  // Open Graph and Twitter cards.
  const og: Record<string, string | null> = {};
  for (const property of OG_REQUIRED) {
    const meta = metaNamed(property)[0];
    og[property] = content(meta);
    if (meta && og[property] !== '') continue;
    add(META_RULES.ogMissing, `meta[property="${property}"]`, `No ${property}: links to the page shared on social networks ${property === 'og:image' ? 'show no image' : 'fall back to guesses'}.`,
      meta ? at(meta) : {}, `Add <meta property="${property}" content="…"> in <head>.`, `The page has a non-empty ${property}.`);
  }
  const ogImage = og['og:image'];
  const ogImageMeta = metaNamed('og:image')[0];
  if (ogImageMeta && ogImage && !absoluteUrl(ogImage)) {
    add(META_RULES.ogImageRelative, doc.locate(ogImageMeta), `og:image "${ogImage}" is not an absolute URL; social networks do not resolve relative ones.`,
      { ...at(ogImageMeta), url: ogImage }, 'Write og:image as a full URL with scheme and host.', 'og:image is an absolute http(s) URL.');
  }
  const twitter: Record<string, string | null> = {};
  for (const name of ['twitter:card', 'twitter:title', 'twitter:description', 'twitter:image']) twitter[name] = content(metaNamed(name)[0]);
  if (!twitter['twitter:card']) {
    add(META_RULES.twitterCardMissing, 'document', 'Without twitter:card, X (Twitter) shows links to the page as a plain summary at best.',
      {}, 'Add <meta name="twitter:card" content="summary_large_image"> in <head>.', 'The page has a non-empty twitter:card.');
  }

  return buildReport({
    categories: ['seo', 'accessibility', 'best-practices'],
    checks: rules.map((rule) => checkFrom(rule, findings)),
    findings,
    rules,
    notes: doc.notes,
    details: {
      title,
      description,
      canonical: canonicalHref,
      robots: {
        meta: robotsMetas.map((m) => content(m) ?? ''),
        header: robotsHeader,
        indexable: robots.blocking.length === 0,
        blockedFor: [...new Set([...robots.blocking, ...robots.others].map((b) => b.agent ?? '*'))],
        unavailableAfter: robots.scheduled.map((b) => b.date ?? null),
        ignored: robots.ignored.map((b) => describeBlock(b)),
      },
      viewport,
      charset,
      lang: lang === '' ? null : lang,
      hreflang,
      og,
      twitter,
    },
  });
}

function relTokens(link: Element): string[] {
  return (attr(link, 'rel') ?? '').toLowerCase().split(/\s+/);
}

/** An absolute http(s) URL, or null: parsed with no base, so relative references fail. */
function absoluteUrl(ref: string): URL | null {
  const parsed = resolveUrl(ref, null);
  return parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:') ? parsed : null;
}

function viewportSettings(value: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const part of value.split(/[,;]/)) {
    const [key, val] = part.split('=');
    if (key && val !== undefined) settings.set(key.trim().toLowerCase(), val.trim().toLowerCase());
  }
  return settings;
}

function charsetParam(contentType: string): string | null {
  const match = /charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType);
  return match?.[1] ?? null;
}

export const metaTagsAnalyzer: Analyzer = {
  id: 'meta-tags',
  categories: ['seo', 'accessibility', 'best-practices'],
  rules,
  analyze,
  analyzeDocument,
};
