// The page as the proxy's cost model sees it: its document, render-blocking resources, scripts and
// likely LCP image, each with a size: the one the tool fetched (page-speed-costs.ts
// SubresourceSize), or an assumption it says it made. Built on what was read of the parse
// (page-speed-read.ts), so the sizes can change without the page being parsed again.
import type { PageFacts } from '../page-facts.ts';
import { MAX_SUBRESOURCE_FETCHES, subresourcesOf, type SizePlanEntry, type SubresourceSize } from './page-speed-costs.ts';
import { ASSUMED_BYTES, estimate, imageBytesFor, type Estimates, type PageModel, type SizedResource } from './page-speed-estimate.ts';
import type { PageSpeedReading, ReadBlocking, ReadImage, ReadScript } from './page-speed-read.ts';

export interface BlockingCost extends ReadBlocking {
  size: SizedResource;
}

export interface PageSpeedModel {
  blocking: BlockingCost[];
  scripts: ReadScript[];
  /** each script's size, render-blocking ones included (an inline one is its own length) */
  scriptSizes: Map<ReadScript, SizedResource>;
  lcpImage: ReadImage | null;
  lcpSize: SizedResource | null;
  lateInserts: ReadScript[];
  /** the resources whose sizes were assumed, not fetched */
  assumed: string[];
  /** what the tool should fetch the sizes of, most telling first: the LCP image, blocking resources, other scripts */
  plan: SizePlanEntry[];
  /** the sizes the tool did fetch */
  fetched: SubresourceSize[];
  model: PageModel;
  estimates: Estimates;
}

function origin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

interface Known {
  sizes: Map<string, SubresourceSize>;
  pageOrigin: string | null;
  /** filled in as sizes are assumed */
  assumed: string[];
  typical: Record<'script' | 'stylesheet', number>;
}

/** A resource's size from what was fetched, else the assumption for its kind (recorded as assumed). */
function sizeOf(url: string, kind: SubresourceSize['kind'], known: Known, fallback: number = kind === 'image' ? ASSUMED_BYTES.image : known.typical[kind]): SizedResource {
  const { sizes, pageOrigin, assumed } = known;
  const fetched = sizes.get(url);
  const sameOrigin = origin(url) === pageOrigin;
  if (fetched !== undefined && fetched.transferBytes !== null) {
    return { url, bytes: fetched.transferBytes, decodedBytes: fetched.decodedBytes ?? fetched.transferBytes, known: true, sameOrigin };
  }
  assumed.push(url);
  return { url, bytes: fallback, decodedBytes: fallback, known: false, sameOrigin };
}

export function pageSpeedModel(reading: PageSpeedReading, facts: PageFacts | null, url: string): PageSpeedModel {
  const sizes = subresourcesOf(facts);
  // An unfetched script or stylesheet is taken to weigh what the fetched ones of its kind weigh on average.
  const typical = { script: ASSUMED_BYTES.script as number, stylesheet: ASSUMED_BYTES.stylesheet as number };
  for (const kind of ['script', 'stylesheet'] as const) {
    const of = [...sizes.values()].filter((k) => k.kind === kind && k.transferBytes !== null).map((k) => k.transferBytes as number);
    if (of.length > 0) typical[kind] = Math.round(of.reduce((a, b) => a + b, 0) / of.length);
  }
  const known: Known = { sizes, pageOrigin: origin(facts?.finalUrl ?? url), assumed: [], typical };
  const assumed = known.assumed;
  const blocking: BlockingCost[] = reading.blocking.map((b) => ({ ...b, size: sizeOf(b.url, b.kind === 'script' ? 'script' : 'stylesheet', known) }));
  const scripts = reading.scripts;
  const scriptSizes = new Map<ReadScript, SizedResource>();
  for (const script of scripts) {
    if (script.url === null) {
      const bytes = script.inlineBytes ?? 0;
      scriptSizes.set(script, { url: '', bytes: 0, decodedBytes: bytes, known: true, sameOrigin: true });
    } else {
      const blocked = script.blocking === null ? undefined : blocking[script.blocking];
      scriptSizes.set(script, blocked?.size ?? sizeOf(script.url, 'script', known));
    }
  }
  const lcpImage = reading.lcpImage;
  const lcpSize = lcpImage === null ? null : sizeOf(lcpImage.url, 'image', known, imageBytesFor(lcpImage.declared));
  // An inline script was read for late inserts with the page; an external one counts when its fetched text did.
  const fetchedLate = new Set([...sizes.values()].filter((k) => k.insertsLate === true).map((k) => k.url));
  const lateInserts = scripts.filter((s) => (s.url === null ? s.insertsLate : fetchedLate.has(s.url)));
  const model: PageModel = {
    url: facts?.finalUrl ?? url,
    ttfbMs: facts?.timings.ttfbMs ?? 0,
    // HTML passed in has no response: its markup's extent stands for the document's bytes.
    documentBytes: facts?.transferBytes ?? reading.markupEnd,
    elements: reading.elements,
    blocking: blocking.map((b) => ({ ...b.size, kind: b.kind })),
    otherScripts: [...scriptSizes].filter(([script]) => script.blocking === null).map(([, size]) => size),
    lcpImage: lcpImage === null || lcpSize === null ? null : { ...lcpSize, lazy: lcpImage.lazy },
    unsizedAboveFold: reading.unsizedAboveFold,
    lateInserts: lateInserts.length,
    earlyImagePixels: reading.earlyImagePixels,
  };
  const plan = new Map<string, SizePlanEntry>();
  const want = (entry: SizePlanEntry) => {
    if (plan.size < MAX_SUBRESOURCE_FETCHES && !plan.has(entry.url) && /^https?:/.test(entry.url)) plan.set(entry.url, entry);
  };
  if (lcpSize !== null) want({ url: lcpSize.url, kind: 'image' });
  for (const b of blocking) want({ url: b.url, kind: b.kind === 'script' ? 'script' : 'stylesheet' });
  for (const script of scripts) if (script.url !== null) want({ url: script.url, kind: 'script' });
  return {
    plan: [...plan.values()],
    fetched: [...sizes.values()],
    blocking,
    scripts,
    scriptSizes,
    lcpImage,
    lcpSize,
    lateInserts,
    assumed,
    model,
    estimates: estimate(model),
  };
}
