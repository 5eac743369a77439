// The SEO score on Lighthouse's scale. Lighthouse scores SEO from ten audits, each pass or fail,
// weighted 1 except is-crawlable; a user who checks our SEO score against it must find the same
// verdict. So a rule that stands for one of those audits says which (`audit` on its definition and
// check), and the SEO category is scored per audit, not per rule: an audit fails when any rule
// standing for it fails, whichever analyzers judged it (a job merges several tools' checks).
//
// Our other SEO rules (title length, headings, structured data, sitemaps...) are advice Lighthouse
// does not score. They can only lower the score, and by at most EXTRA_SHARE of it, so a page that
// Lighthouse scores poor is never good with us because of checks it does not make.
//
// Two audits dominate: a page that answers an error status or that search engines may not index
// cannot rank whatever else it does, so their fail weighs as much as every other audit judged
// together (at most 50, poor or needs-improvement at best). Lighthouse gives an error page its
// weight of 1 (a 404 page scores 92 "good" there) and is-crawlable 93/23 (69): we say so in the
// agreement bench rather than copy it.
import type { Check } from './findings.ts';

export const SEO_AUDITS = [
  'is-crawlable',
  'document-title',
  'meta-description',
  'http-status-code',
  'link-text',
  'crawlable-anchors',
  'robots-txt',
  'image-alt',
  'hreflang',
  'canonical',
] as const;
export type SeoAudit = (typeof SEO_AUDITS)[number];

/** Lighthouse 13's weights in its SEO category (config/default-config.js). */
const AUDIT_WEIGHTS: Record<SeoAudit, number> = {
  'is-crawlable': 93 / 23,
  'document-title': 1,
  'meta-description': 1,
  'http-status-code': 1,
  'link-text': 1,
  'crawlable-anchors': 1,
  'robots-txt': 1,
  'image-alt': 1,
  'hreflang': 1,
  'canonical': 1,
};

/** An audit whose fail outweighs every other audit judged (see the header). */
const DOMINANT: ReadonlySet<SeoAudit> = new Set(['is-crawlable', 'http-status-code']);

/** How much of the score the rules Lighthouse does not have can take away, at most. */
export const EXTRA_SHARE = 0.2;

interface Unit { weight: number; score: number }

/**
 * The SEO score, 0-100, of a set of checks (undefined when nothing was judged). Checks carrying an
 * audit count towards it whatever their category (image-alt is an accessibility rule that
 * Lighthouse also scores as SEO); checks without one count only when they are SEO checks.
 */
export function seoScore(checks: readonly Check[]): number | undefined {
  const exact = seoScoreExact(checks);
  return exact === undefined ? undefined : Math.round(exact);
}

/** seoScore before rounding: what a fix's estimated gain is measured on. */
export function seoScoreExact(checks: readonly Check[]): number | undefined {
  const audits = new Map<SeoAudit, number>();
  let extraTotal = 0;
  let extraWeight = 0;
  for (const check of checks) {
    if (check.score === null) continue;
    if (check.audit !== undefined) {
      const held = audits.get(check.audit);
      audits.set(check.audit, held === undefined ? check.score : Math.min(held, check.score));
    } else if (check.category === 'seo' && check.weight > 0) {
      extraTotal += check.weight * check.score;
      extraWeight += check.weight;
    }
  }
  const extra = extraWeight === 0 ? undefined : extraTotal / extraWeight;
  if (audits.size === 0) return extra === undefined ? undefined : 100 * extra;
  const all = [...audits.keys()].reduce((sum, audit) => sum + AUDIT_WEIGHTS[audit], 0);
  const units: Unit[] = [...audits].map(([audit, score]) => ({
    // A failing dominant audit weighs as much as all the others together.
    weight: DOMINANT.has(audit) && score < 1 ? Math.max(AUDIT_WEIGHTS[audit], all - AUDIT_WEIGHTS[audit]) : AUDIT_WEIGHTS[audit],
    score,
  }));
  const weights = units.reduce((sum, u) => sum + u.weight, 0);
  const audited = units.reduce((sum, u) => sum + u.weight * u.score, 0) / weights;
  const lowered = extra === undefined ? audited : audited * (1 - EXTRA_SHARE * (1 - extra));
  return 100 * lowered;
}
