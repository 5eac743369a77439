// The page-speed proxy's image judgements: the likely LCP image lazy-loaded or heavier than its
// displayed size needs (its weight fetched by the tool), images without a size (a layout shift),
// and eager images below the presumed fold, each costed as page-speed-costs.ts says.
import type { Element } from 'domhandler';
import type { Check, Evidence } from '../findings.ts';
import type { HtmlDocument } from '../html-document.ts';
import { failed, notApplicable, passed } from '../scoring.ts';
import { DESKTOP, bandwidthMs, formatBytes, formatMs, severityForCostMs } from './page-speed-costs.ts';
import { estimate, imageBytesFor } from './page-speed-estimate.ts';
import type { PageSpeedModel } from './page-speed-model.ts';
import { EAGER_IMAGE_BUDGET, declaredSize, imageUrl } from './page-speed-resources.ts';
import {
  IMAGE_BYTES_PER_PIXEL,
  IMAGE_MIN_WASTE,
  IMAGE_UNSIZED_BUDGET,
  IMAGE_WASTE_FACTOR,
  PAGE_SPEED_RULES,
  graded,
  type AddFinding,
} from './page-speed-rules.ts';

export function judgeImages(doc: HtmlDocument, m: PageSpeedModel, add: AddFinding, at: (element: Element, url?: string) => Evidence): Check[] {
  const checks: Check[] = [];
  const { estimates } = m;
  // The likely LCP image: lazy-loading it holds its request until layout, after the first paint.
  const lcp = m.lcpImage;
  const lcpUrl = lcp === null ? null : imageUrl(doc, lcp);
  if (lcp !== null && m.model.lcpImage?.lazy === true) {
    const eager = estimate({ ...m.model, lcpImage: { ...m.model.lcpImage, lazy: false } });
    const ms = Math.max(DESKTOP.rttMs, estimates.lcpMs - eager.lcpMs);
    const selector = doc.locate(lcp);
    add(PAGE_SPEED_RULES.lcpLazy, selector, `The image ${lcpUrl} is the first large image of the page, presumably its Largest Contentful Paint, and has loading="lazy": the browser asks for it only after layout, which delays LCP by about ${formatMs(ms)} (estimated).`, { ...at(lcp, lcpUrl ?? undefined), value: `LCP later by about ${formatMs(ms)}` }, {
      patchType: 'html', change: `Remove loading="lazy" from the <img> at ${selector} (and give it fetchpriority="high"); keep lazy-loading for images further down.`, acceptance: `The <img> at ${selector} is not lazy-loaded.`, roleHint: 'edit',
    }, severityForCostMs(ms));
    checks.push(graded(PAGE_SPEED_RULES.lcpLazy, ms));
  } else checks.push(lcp === null ? notApplicable(PAGE_SPEED_RULES.lcpLazy) : passed(PAGE_SPEED_RULES.lcpLazy));

  // Image weight: judged on the images whose size the tool learnt (the likely LCP image).
  const weighed = m.lcpSize !== null && m.lcpSize.known && lcp !== null ? [{ img: lcp, size: m.lcpSize }] : [];
  let imageWasteMs = 0;
  for (const { img, size } of weighed) {
    const declared = declaredSize(img);
    const needed = declared === null ? IMAGE_UNSIZED_BUDGET : Math.max(IMAGE_MIN_WASTE, declared.width * declared.height * IMAGE_BYTES_PER_PIXEL * IMAGE_WASTE_FACTOR);
    if (size.bytes <= needed) continue;
    const target = declared === null ? IMAGE_UNSIZED_BUDGET / 2 : declared.width * declared.height * IMAGE_BYTES_PER_PIXEL;
    const ms = bandwidthMs(size.bytes - target);
    imageWasteMs += ms;
    const selector = doc.locate(img);
    const shown = declared === null ? 'at a size the HTML does not declare' : `shown at ${declared.width}x${declared.height}`;
    add(PAGE_SPEED_RULES.imageWeight, selector, `The image ${size.url} weighs ${formatBytes(size.bytes)} ${shown}: about ${formatMs(bandwidthMs(size.bytes))} to download at 10 Mbps${img === lcp ? ', and as the likely LCP image it holds LCP back' : ''}. Well encoded it would be about ${formatBytes(Math.round(target))}, about ${formatMs(ms)} sooner.`, { ...at(img, size.url), value: formatBytes(size.bytes) }, {
      patchType: 'file', change: `Re-encode ${size.url} at the size it is shown (WebP or AVIF, quality about 75-85, at most ${formatBytes(Math.round(target))}) and serve smaller variants with srcset.`, acceptance: `${size.url} weighs at most ${formatBytes(Math.round(needed))}.`, roleHint: 'edit',
    }, severityForCostMs(ms));
  }
  checks.push(weighed.length === 0 ? notApplicable(PAGE_SPEED_RULES.imageWeight) : graded(PAGE_SPEED_RULES.imageWeight, imageWasteMs > 0 ? imageWasteMs : null));


  // Images: unsized ones shift the layout when they arrive (in the first viewport, the shift is
  // seen); eager ones below the fold take bandwidth from what is seen.
  const aboveFold = new Set(m.images.slice(0, EAGER_IMAGE_BUDGET));
  for (const img of m.unsized) {
    const selector = doc.locate(img);
    const seen = aboveFold.has(img);
    add(PAGE_SPEED_RULES.unsizedImages, selector, `The image ${imageUrl(doc, img)} has no width and height: the browser reserves no space, and the content below jumps when it loads (CLS)${seen ? '; it is among the first images, so the shift is in view' : ''}.`, at(img, imageUrl(doc, img)), {
      patchType: 'html', change: `Add width and height attributes (the image's intrinsic size in pixels) to the <img> at ${selector}; CSS can still scale it.`, acceptance: `The <img> at ${selector} has numeric width and height attributes, or an inline size.`, roleHint: 'edit',
    }, seen ? 'medium' : 'low');
  }
  checks.push(m.images.length === 0 ? notApplicable(PAGE_SPEED_RULES.unsizedImages) : m.unsized.length === 0 ? passed(PAGE_SPEED_RULES.unsizedImages) : failed(PAGE_SPEED_RULES.unsizedImages));
  const position = new Map(m.images.map((img, i) => [img, i + 1]));
  const offscreenBytes = m.eager.map((img) => imageBytesFor(declaredSize(img)));
  const offscreenMs = bandwidthMs(offscreenBytes.reduce((a, b) => a + b, 0));
  for (const img of m.eager) {
    const selector = doc.locate(img);
    add(PAGE_SPEED_RULES.offscreenImages, selector, `The image ${imageUrl(doc, img)} is image ${position.get(img) ?? 0} of ${m.images.length}; past the first ${EAGER_IMAGE_BUDGET} it is presumed below the fold, yet it loads with the page (the ${m.eager.length} such images take about ${formatMs(offscreenMs)} of bandwidth at 10 Mbps, sizes estimated from their declared dimensions).`, at(img, imageUrl(doc, img)), {
      patchType: 'html', change: `Add loading="lazy" to the <img> at ${selector} (keep the first images of the page eager).`, acceptance: `The <img> at ${selector} has loading="lazy".`, roleHint: 'edit',
    }, severityForCostMs(offscreenMs));
  }
  checks.push(m.images.length <= EAGER_IMAGE_BUDGET ? notApplicable(PAGE_SPEED_RULES.offscreenImages) : graded(PAGE_SPEED_RULES.offscreenImages, m.eager.length === 0 ? null : offscreenMs));

  return checks;
}
