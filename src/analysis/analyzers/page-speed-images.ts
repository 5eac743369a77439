// The page-speed proxy's judgements of the likely LCP image: lazy-loaded, or heavier than its
// displayed size needs (its weight fetched by the tool), each costed as page-speed-costs.ts says.
// Both turn on the sizes the tool fetched; the image rules no size changes (unsized images,
// eager ones below the fold) are judged with the page's reading (page-speed-read.ts).
import type { Check } from '../findings.ts';
import { notApplicable, passed } from '../scoring.ts';
import { DESKTOP, bandwidthMs, formatBytes, formatMs, severityForCostMs } from './page-speed-costs.ts';
import { estimate } from './page-speed-estimate.ts';
import type { PageSpeedModel } from './page-speed-model.ts';
import { evidenceAt } from './page-speed-read.ts';
import {
  IMAGE_BYTES_PER_PIXEL,
  IMAGE_MIN_WASTE,
  IMAGE_UNSIZED_BUDGET,
  IMAGE_WASTE_FACTOR,
  PAGE_SPEED_RULES,
  graded,
  type AddFinding,
} from './page-speed-rules.ts';

export function judgeLcpImage(m: PageSpeedModel, add: AddFinding): Check[] {
  const checks: Check[] = [];
  const { estimates } = m;
  // The likely LCP image: lazy-loading it holds its request until layout, after the first paint.
  const lcp = m.lcpImage;
  const lcpUrl = lcp === null ? null : lcp.url;
  if (lcp !== null && m.model.lcpImage?.lazy === true) {
    const eager = estimate({ ...m.model, lcpImage: { ...m.model.lcpImage, lazy: false } });
    const ms = Math.max(DESKTOP.rttMs, estimates.lcpMs - eager.lcpMs);
    const selector = lcp.at.selector;
    add(PAGE_SPEED_RULES.lcpLazy, selector, `The image ${lcpUrl} is the first large image of the page, presumably its Largest Contentful Paint, and has loading="lazy": the browser asks for it only after layout, which delays LCP by about ${formatMs(ms)} (estimated).`, { ...evidenceAt(lcp.at, lcpUrl ?? undefined), value: `LCP later by about ${formatMs(ms)}` }, {
      patchType: 'html', change: `Remove loading="lazy" from the <img> at ${selector} (and give it fetchpriority="high"); keep lazy-loading for images further down.`, acceptance: `The <img> at ${selector} is not lazy-loaded.`, roleHint: 'edit',
    }, severityForCostMs(ms));
    checks.push(graded(PAGE_SPEED_RULES.lcpLazy, ms));
  } else checks.push(lcp === null ? notApplicable(PAGE_SPEED_RULES.lcpLazy) : passed(PAGE_SPEED_RULES.lcpLazy));

  // Image weight: judged on the images whose size the tool learnt (the likely LCP image).
  const weighed = m.lcpSize !== null && m.lcpSize.known && lcp !== null ? [{ img: lcp, size: m.lcpSize }] : [];
  let imageWasteMs = 0;
  for (const { img, size } of weighed) {
    const declared = img.declared;
    const needed = declared === null ? IMAGE_UNSIZED_BUDGET : Math.max(IMAGE_MIN_WASTE, declared.width * declared.height * IMAGE_BYTES_PER_PIXEL * IMAGE_WASTE_FACTOR);
    if (size.bytes <= needed) continue;
    const target = declared === null ? IMAGE_UNSIZED_BUDGET / 2 : declared.width * declared.height * IMAGE_BYTES_PER_PIXEL;
    const ms = bandwidthMs(size.bytes - target);
    imageWasteMs += ms;
    const selector = img.at.selector;
    const shown = declared === null ? 'at a size the HTML does not declare' : `shown at ${declared.width}x${declared.height}`;
    add(PAGE_SPEED_RULES.imageWeight, selector, `The image ${size.url} weighs ${formatBytes(size.bytes)} ${shown}: about ${formatMs(bandwidthMs(size.bytes))} to download at 10 Mbps${img === lcp ? ', and as the likely LCP image it holds LCP back' : ''}. Well encoded it would be about ${formatBytes(Math.round(target))}, about ${formatMs(ms)} sooner.`, { ...evidenceAt(img.at, size.url), value: formatBytes(size.bytes) }, {
      patchType: 'file', change: `Re-encode ${size.url} at the size it is shown (WebP or AVIF, quality about 75-85, at most ${formatBytes(Math.round(target))}) and serve smaller variants with srcset.`, acceptance: `${size.url} weighs at most ${formatBytes(Math.round(needed))}.`, roleHint: 'edit',
    }, severityForCostMs(ms));
  }
  checks.push(weighed.length === 0 ? notApplicable(PAGE_SPEED_RULES.imageWeight) : graded(PAGE_SPEED_RULES.imageWeight, imageWasteMs > 0 ? imageWasteMs : null));
  return checks;
}
