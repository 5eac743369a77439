// The page-speed proxy's rules, thresholds and label: one place for what page-speed.ts and its
// image judgements (page-speed-images.ts) report.
import type { Check, Evidence, Fix, Severity } from '../findings.ts';
import { failed, passed, type RuleDefinition } from '../scoring.ts';
import { scoreForCostMs } from './page-speed-costs.ts';
import { EAGER_IMAGE_BUDGET } from './page-speed-resources.ts';

const rule = (id: string, weight: number, severity: Severity, title: string, many?: RuleDefinition['many']): RuleDefinition => ({
  id, category: 'performance', weight, severity, title, ...(many ? { many } : {}),
});

export const PAGE_SPEED_RULES = {
  renderBlocking: rule('page-speed-render-blocking', 8, 'medium', 'A resource blocks the first render', {
    title: '{count} resources block the first render',
    change: 'Make each of the {count} render-blocking resources non-blocking, the costliest (listed first) first: defer (or async) on scripts in the head, non-blocking loading for screen stylesheets, a <link> instead of an @import.',
    acceptance: 'No script or stylesheet blocks the first render (each has async, defer, type=module, a non-screen media, or is gone).',
  }),
  lcpLazy: rule('page-speed-lcp-lazy', 5, 'medium', 'The likely LCP image is lazy-loaded'),
  imageWeight: rule('page-speed-image-weight', 5, 'medium', 'An image is heavier than its displayed size needs', {
    title: '{count} images are heavier than their displayed size needs',
    change: 'Re-encode each of the {count} heavy images at the size it is displayed (WebP or AVIF, quality about 75-85), and serve smaller ones to smaller screens with srcset.',
    acceptance: 'No fetched image weighs more than its displayed size needs.',
  }),
  scriptWork: rule('page-speed-script-work', 6, 'medium', 'Scripts keep the main thread busy (estimated blocking time)', {
    title: '{count} scripts keep the main thread busy (estimated blocking time)',
    change: 'Ship less JavaScript: split each of the {count} large scripts by route, drop unused libraries, and load what is not needed at first (widgets, analytics) after the page is interactive.',
    acceptance: 'No script is large enough to run a long task (over 50 ms estimated).',
  }),
  lateContent: rule('page-speed-late-content', 4, 'medium', 'A script inserts content above the page after it painted (layout shift)', {
    title: '{count} scripts insert content above the page after it painted (layout shift)',
    change: 'Reserve the space for content inserted later (a fixed min-height on its container), or insert it below the viewport or as an overlay, for each of the {count} scripts.',
    acceptance: 'No script inserts or resizes content above existing content after the first paint.',
  }),
  unsizedImages: rule('page-speed-unsized-images', 5, 'medium', 'An image has no width and height (layout shift risk)', {
    title: '{count} images have no width and height (layout shift risk)',
    change: 'Add width and height attributes (the intrinsic size in pixels) to each of the {count} images without them; CSS can still scale them.',
    acceptance: 'Every image the page loads has numeric width and height attributes, or an inline size.',
  }),
  offscreenImages: rule('page-speed-offscreen-images', 4, 'low', 'An image below the fold is not lazy-loaded', {
    title: '{count} images below the fold are not lazy-loaded',
    change: `Add loading="lazy" to each of the {count} images past the first ${EAGER_IMAGE_BUDGET} (keep the first images of the page eager).`,
    acceptance: `No image past the first ${EAGER_IMAGE_BUDGET} loads eagerly.`,
  }),
  domSize: rule('page-speed-dom-size', 4, 'medium', 'The DOM has too many elements'),
  domDepth: rule('page-speed-dom-depth', 2, 'low', 'The DOM is nested too deep'),
  htmlBytes: rule('page-speed-html-bytes', 3, 'medium', 'The HTML document is heavy'),
  compression: rule('page-speed-compression', 5, 'medium', 'The HTML is sent without compression'),
  caching: rule('page-speed-caching-headers', 3, 'low', 'The page has no caching headers'),
  ttfb: rule('page-speed-ttfb', 8, 'high', 'The server is slow to send the first byte'),
  requests: rule('page-speed-request-count', 3, 'low', 'The page references too many resources'),
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(PAGE_SPEED_RULES);

/** Lighthouse's dom-size bands: above 800 body elements is a warning, above 1,400 a failure. */
export const DOM_WARN_ELEMENTS = 800;
export const DOM_FAIL_ELEMENTS = 1400;
/** Lighthouse flags a DOM depth above 32. */
export const DOM_MAX_DEPTH = 32;
/** Wire size of the HTML alone; above this the document is slow on a mobile connection. */
export const HTML_TRANSFER_BUDGET = 100 * 1024;
/** Decoded size; above this the parse itself costs (and Googlebot truncates far above it). */
export const HTML_DECODED_BUDGET = 500 * 1024;
/** Lighthouse's uses-text-compression ignores responses smaller than this, and savings under 10%. */
export const COMPRESSION_MIN_BYTES = 1400;
export const COMPRESSION_MIN_SAVING = 0.1;
/** Lighthouse's server-response-time threshold. */
export const TTFB_BUDGET_MS = 600;
/** Distinct subresources the HTML references directly (a budget: Lighthouse does not score the count). */
export const REQUEST_BUDGET = 50;
/**
 * Bytes per displayed pixel an image needs, well encoded (a WebP or a JPEG at quality ~80 is about
 * 0.1-0.3); an image over IMAGE_WASTE_FACTOR times that, and over IMAGE_MIN_WASTE bytes, is heavy.
 */
export const IMAGE_BYTES_PER_PIXEL = 0.25;
export const IMAGE_WASTE_FACTOR = 2;
export const IMAGE_MIN_WASTE = 100 * 1024;
/** An image whose displayed size is not declared is heavy above this many bytes. */
export const IMAGE_UNSIZED_BUDGET = 300 * 1024;

export const PROXY_NOTE =
  'page speed here is an HTML-based proxy: no browser loaded the page, so FCP, LCP, TBT and CLS are estimates ' +
  '(from the HTML, the response and the sizes of the few resources fetched, at Lighthouse\'s desktop simulation: ' +
  '40 ms round trip, 10 Mbps, CPU 1x) scored on Lighthouse\'s curves, not measurements';

export const TEXT_TYPE = /^(?:text\/|application\/(?:xhtml\+xml|xml|json|javascript))/;

/** A check graded by what its findings cost: fail with a score from the milliseconds (pass at none). */
export function graded(r: RuleDefinition, costMs: number | null): Check {
  if (costMs === null) return passed(r);
  // A failing check keeps something to gain, however small its cost.
  return { ...failed(r), score: Math.min(0.99, scoreForCostMs(costMs)) };
}

/** How an analyzer's judgement adds one finding (page-speed.ts builds it over its list). */
export type AddFinding = (r: RuleDefinition, location: string, detail: string, evidence: Evidence, fix: Fix, severity?: Severity) => void;
