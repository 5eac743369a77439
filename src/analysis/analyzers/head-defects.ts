// Defects more than one analyzer sees: a page without a title or a meta description is judged by
// the meta tags analyzer and by the search result preview. It is one defect, so both report it
// under the same rule with the same words and fix; a job running both gets one finding (the
// combined report and the job report keep one per findingId), and an agent one fix.
import { makeFinding, type Evidence, type Finding } from '../findings.ts';
import type { RuleDefinition } from '../scoring.ts';

// Lighthouse's document-title and meta-description audits: each analyzer's rule stands for them.
export const TITLE_MISSING = { id: 'meta-title-missing', title: 'The page has no <title>', audit: 'document-title' } as const;
export const DESCRIPTION_MISSING = { id: 'meta-description-missing', title: 'The page has no meta description', audit: 'meta-description' } as const;

/** A title that names the page and fits a search result (about 600 px). */
export const TITLE_MIN = 10;
export const TITLE_MAX = 60;
/** A description long enough to summarise the page and short enough not to be cut off. */
export const DESCRIPTION_MIN = 50;
export const DESCRIPTION_MAX = 160;

/** No <title>, or an empty one (`empty` carries that element's evidence). */
export function missingTitleFinding(rule: RuleDefinition, empty: Evidence | null): Finding {
  return makeFinding({
    rule: TITLE_MISSING.id,
    category: rule.category,
    severity: rule.severity,
    location: 'document',
    title: TITLE_MISSING.title,
    detail: empty
      ? 'The <title> is empty: search results show a title the search engine writes, and browser tabs the URL.'
      : 'The page has no <title>: search results show a title the search engine writes, and browser tabs the URL.',
    evidence: empty ?? {},
    fix: {
      patchType: 'content',
      change: `Add one <title> in <head> naming the page in ${TITLE_MIN} to ${TITLE_MAX} characters (under 600 px, so a search result shows it whole).`,
      acceptance: 'The page has a non-empty <title>.',
      roleHint: 'edit',
    },
  });
}

/** No meta description, or an empty one (`empty` carries that element's evidence). */
export function missingDescriptionFinding(rule: RuleDefinition, empty: Evidence | null): Finding {
  return makeFinding({
    rule: DESCRIPTION_MISSING.id,
    category: rule.category,
    severity: rule.severity,
    location: 'document',
    title: DESCRIPTION_MISSING.title,
    detail: empty
      ? 'The meta description is empty: search results show text the search engine picks from the page.'
      : 'The page has no meta description: search results show text the search engine picks from the page.',
    evidence: empty ?? {},
    fix: {
      patchType: 'content',
      change: `Add <meta name="description" content="…"> in <head> with a ${DESCRIPTION_MIN}-${DESCRIPTION_MAX} character summary of the page.`,
      acceptance: 'The page has a non-empty meta description.',
      roleHint: 'edit',
    },
  });
}
