// Mixed content on an https page: resources the page references over http. Browsers block the
// "blockable" kind outright (scripts, stylesheets, frames, plugins, fonts, CSS imports, and forms
// posting to http are at least warned about and leak what is typed), and upgrade or show with a
// warning the "upgradeable" kind (images, audio, video, srcset entries, CSS background images).
// A page served over http is one finding of its own: everything on it travels in clear.
import type { Element } from 'domhandler';
import { makeFinding, MAX_LISTED_INSTANCES, type Finding, type Report } from '../findings.ts';
import { attr, parseHtml, rawTextOf, resolveUrl, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, notApplicable, type Analyzer, type RuleDefinition } from '../scoring.ts';

export const MIXED_RULES = {
  insecurePage: { id: 'mixed-content-insecure-page', category: 'mixed-content', weight: 10, severity: 'high', title: 'The page is served over http' },
  blockable: {
    id: 'mixed-content-blockable', category: 'mixed-content', weight: 10, severity: 'high', title: 'Blockable resource loaded over http',
    many: {
      title: '{count} scripts, styles, frames or forms are loaded over http',
      change: 'Reference each of the {count} http URLs over https (or host it on this origin); a Content-Security-Policy of upgrade-insecure-requests covers what cannot be edited.',
      acceptance: 'The page loads no script, stylesheet, font, frame or form target over http.',
    },
  },
  upgradeable: {
    id: 'mixed-content-upgradeable', category: 'mixed-content', weight: 3, severity: 'medium', title: 'Image or media loaded over http',
    many: {
      title: '{count} images or media are loaded over http',
      change: 'Reference each of the {count} http images and media over https (or host them on this origin); a Content-Security-Policy of upgrade-insecure-requests covers what cannot be edited.',
      acceptance: 'The page loads no image or media over http.',
    },
  },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(MIXED_RULES);

export type MixedKind = 'blockable' | 'upgradeable';

export interface MixedResource {
  kind: MixedKind;
  /** what references it: script, stylesheet, iframe, form-action, css-import, font, img, srcset, css-url … */
  via: string;
  url: string;
  selector: string;
  line: number;
}

const MAX_CSS_CHARS = 200_000;
/** details.resources stops where a finding's instances do; the counts beside it stay exact. */
const MAX_LISTED = MAX_LISTED_INSTANCES;
const FONT = /\.(woff2?|ttf|otf|eot)(?:[?#]|$)/i;

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, facts: PageFacts | null, url: string): Report {
  const pageUrl = facts?.finalUrl ?? url;
  const https = resolveUrl(pageUrl, null)?.protocol === 'https:';
  if (!https) {
    const finding = makeFinding({
      rule: MIXED_RULES.insecurePage.id,
      category: 'mixed-content',
      severity: 'high',
      location: 'document',
      title: MIXED_RULES.insecurePage.title,
      detail: `${pageUrl} is not an https URL, so the page and everything it loads can be read and changed on the way.`,
      evidence: { url: pageUrl },
      fix: {
        patchType: 'config',
        change: 'Serve the page over https and redirect its http URL there with a 301.',
        acceptance: 'The analysed URL ends on https.',
        roleHint: 'config',
      },
    });
    return buildReport({
      categories: ['mixed-content'],
      checks: [checkFrom(MIXED_RULES.insecurePage, [finding]), notApplicable(MIXED_RULES.blockable), notApplicable(MIXED_RULES.upgradeable)],
      findings: [finding],
      rules,
      notes: doc.notes,
      details: { pageIsHttps: false, resources: [] },
    });
  }

  const resources = collect(doc);
  const findings: Finding[] = resources.map((r) => toFinding(r));
  return buildReport({
    categories: ['mixed-content'],
    checks: rules.map((rule) => checkFrom(rule, findings)),
    findings,
    rules,
    notes: doc.notes,
    details: {
      pageIsHttps: true,
      blockable: resources.filter((r) => r.kind === 'blockable').length,
      upgradeable: resources.filter((r) => r.kind === 'upgradeable').length,
      resources: resources.slice(0, MAX_LISTED),
    },
  });
}

function toFinding(r: MixedResource): Finding {
  const rule = r.kind === 'blockable' ? MIXED_RULES.blockable : MIXED_RULES.upgradeable;
  const what = r.via === 'form-action' ? 'posts to' : 'loads';
  return makeFinding({
    rule: rule.id,
    category: 'mixed-content',
    severity: rule.severity,
    // the same element may reference several http URLs (srcset, CSS); each is its own place
    location: `${r.selector}|${r.via}|${r.url}`,
    title: rule.title,
    detail:
      r.kind === 'blockable'
        ? `The https page ${what} ${r.url} (${r.via}) over http; browsers block it, or warn and leak what it carries.`
        : `The https page ${what} ${r.url} (${r.via}) over http; browsers upgrade or show it with a "not secure" warning.`,
    evidence: { selector: r.selector, line: r.line, url: r.url },
    fix: {
      patchType: 'html',
      change: `${httpsChange(r.url)} (or host it on this origin); a Content-Security-Policy of upgrade-insecure-requests covers what cannot be edited.`,
      acceptance: `The page no longer references ${r.url} over http.`,
      roleHint: 'edit',
    },
  });
}

/**
 * The https counterpart of an http URL. The http port never carries over: :80 is http's default,
 * and a server listening on http at another port (8080) says nothing about https there, so the
 * suggestion is the host's https origin (443), said as such, rather than an https URL on a port
 * that most likely speaks plain http or nothing (which is also what upgrade-insecure-requests
 * does: it keeps a non-default port, and such a load then fails).
 */
export function httpsCounterpart(httpUrl: string): { url: string; droppedPort: string | null } {
  const parsed = new URL(httpUrl);
  // WHATWG parsing already drops an explicit :80; any port left is a non-default http one
  const droppedPort = parsed.port === '' ? null : parsed.port;
  parsed.protocol = 'https:';
  parsed.port = '';
  return { url: parsed.href, droppedPort };
}

function httpsChange(httpUrl: string): string {
  const { url, droppedPort } = httpsCounterpart(httpUrl);
  if (droppedPort === null) return `Reference ${url} instead of ${httpUrl}`;
  return `Reference the resource on the host's https origin, such as ${url}, instead of ${httpUrl}: port ${droppedPort} serves http, so check where the host serves this resource over https rather than assuming https on that port`;
}

function collect(doc: HtmlDocument): MixedResource[] {
  const out: MixedResource[] = [];
  const add = (element: Element, kind: MixedKind, via: string, ref: string | undefined) => {
    if (ref === undefined) return;
    const target = resolveUrl(ref, doc.baseUrl);
    if (target?.protocol !== 'http:') return;
    out.push({ kind, via, url: target.href, selector: doc.locate(element), line: doc.lineOf(element) });
  };
  for (const e of doc.elements) {
    switch (e.name) {
      case 'script':
        add(e, 'blockable', 'script', attr(e, 'src'));
        break;
      case 'link': {
        const rel = (attr(e, 'rel') ?? '').toLowerCase().split(/\s+/);
        if (rel.includes('stylesheet')) add(e, 'blockable', 'stylesheet', attr(e, 'href'));
        else if (rel.includes('preload') || rel.includes('modulepreload')) add(e, 'blockable', 'preload', attr(e, 'href'));
        else if (rel.includes('icon')) add(e, 'upgradeable', 'icon', attr(e, 'href'));
        break;
      }
      case 'iframe':
      case 'frame':
        add(e, 'blockable', e.name, attr(e, 'src'));
        break;
      case 'object':
        add(e, 'blockable', 'object', attr(e, 'data'));
        break;
      case 'embed':
        add(e, 'blockable', 'embed', attr(e, 'src'));
        break;
      case 'track':
        add(e, 'blockable', 'track', attr(e, 'src'));
        break;
      case 'form':
        add(e, 'blockable', 'form-action', attr(e, 'action'));
        break;
      case 'img':
        add(e, 'upgradeable', 'img', attr(e, 'src'));
        for (const ref of srcsetUrls(attr(e, 'srcset'))) add(e, 'upgradeable', 'srcset', ref);
        break;
      case 'source':
        add(e, 'upgradeable', 'source', attr(e, 'src'));
        for (const ref of srcsetUrls(attr(e, 'srcset'))) add(e, 'upgradeable', 'srcset', ref);
        break;
      case 'audio':
      case 'video':
        add(e, 'upgradeable', e.name, attr(e, 'src'));
        add(e, 'upgradeable', 'poster', attr(e, 'poster'));
        break;
      case 'input':
        if ((attr(e, 'type') ?? '').toLowerCase() === 'image') add(e, 'upgradeable', 'input-image', attr(e, 'src'));
        break;
      case 'style':
        for (const ref of cssReferences(rawTextOf(e, MAX_CSS_CHARS))) add(e, ref.kind, ref.via, ref.url);
        break;
    }
    const style = attr(e, 'style');
    if (style !== undefined) for (const ref of cssReferences(style)) add(e, ref.kind, ref.via, ref.url);
  }
  return out;
}

/** The URLs of a srcset: each comma-separated candidate's first token. */
export function srcsetUrls(srcset: string | undefined): string[] {
  if (srcset === undefined) return [];
  return srcset
    .split(/,\s+|,(?=\S+:\/\/)/)
    .map((candidate) => candidate.trim().split(/\s+/)[0] ?? '')
    .filter((u) => u !== '');
}

/** url() and @import references in CSS; fonts and imports are blockable, the rest upgradeable. */
export function cssReferences(css: string): Array<{ kind: MixedKind; via: string; url: string }> {
  const text = css.slice(0, MAX_CSS_CHARS);
  const out: Array<{ kind: MixedKind; via: string; url: string }> = [];
  for (const m of text.matchAll(/@import\s+(?:url\(\s*)?(["']?)([^"')\s;]+)\1/gi)) {
    out.push({ kind: 'blockable', via: 'css-import', url: m[2] ?? '' });
  }
  for (const m of text.matchAll(/(?<!@import\s+)url\(\s*(["']?)([^"')]*?)\1\s*\)/gi)) {
    const ref = m[2] ?? '';
    out.push(FONT.test(ref) ? { kind: 'blockable', via: 'font', url: ref } : { kind: 'upgradeable', via: 'css-url', url: ref });
  }
  return out;
}

export const mixedContentAnalyzer: Analyzer = {
  id: 'mixed-content',
  categories: ['mixed-content'],
  rules,
  analyze,
  analyzeDocument,
};
