// What a document may do to its own page in Chromium, and what it is told when it goes too far.
// A page that crashes its renderer (memory), asks for a page Chromium cannot print, or fails in
// any other way while the browser stays up is that document's fault: a 422 for that job alone,
// never a restart of the browser every other caller's job shares.
import { ServiceError, tooComplex } from '../core/errors.ts';
import { MAX_PAGE_SIDE_MM } from './page.ts';

const MM_PER_PX = 25.4 / 96;

/** The few DOM shapes the in-page measurement touches (the project compiles without the DOM lib). */
interface CssRuleLike {
  readonly cssRules?: ArrayLike<CssRuleLike>;
  readonly style?: { getPropertyValue(name: string): string };
}
interface ProbeElement {
  style: { cssText: string; width: string };
}
interface PageGlobals {
  getComputedStyle(element: ProbeElement): { width: string };
  document: {
    styleSheets: ArrayLike<{ cssRules: ArrayLike<CssRuleLike> }>;
    createElement(tag: string): ProbeElement & { remove(): void };
    body: { appendChild(element: unknown): unknown } | null;
    documentElement: { appendChild(element: unknown): unknown };
  };
}

/**
 * Runs inside the page: the longest side, in CSS px, any @page rule's `size` asks for. Lengths are
 * resolved by the page's own CSS engine (units, calc()), so no CSS parsing of ours can disagree
 * with what Chromium would print. A document that hides its rules from this gets caught later by
 * the printing failure itself.
 */
export function largestCssPageSidePx(): number {
  const g = globalThis as unknown as PageGlobals;
  const doc = g.document;
  const probe = doc.createElement('div');
  probe.style.cssText = 'position:absolute;visibility:hidden;left:0;top:0;height:0';
  (doc.body ?? doc.documentElement).appendChild(probe);
  const lengthPx = (token: string): number => {
    if (token.endsWith('%')) return 0;
    probe.style.width = '';
    probe.style.width = token;
    if (probe.style.width === '') return 0;
    const px = Number.parseFloat(g.getComputedStyle(probe).width);
    return Number.isFinite(px) ? px : 0;
  };
  let largest = 0;
  const visit = (rules: ArrayLike<CssRuleLike>, depth: number): void => {
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      if (!rule) continue;
      // Only @page rules have a `size`; asking every rule needs no class the page could replace.
      const size = rule.style?.getPropertyValue('size') ?? '';
      for (const token of size.match(/[a-z-]+\([^)]*\)|\S+/gi) ?? []) largest = Math.max(largest, lengthPx(token));
      if (rule.cssRules && depth < 32) visit(rule.cssRules, depth + 1);
    }
  };
  for (let i = 0; i < doc.styleSheets.length; i++) {
    try {
      const sheet = doc.styleSheets[i];
      if (sheet) visit(sheet.cssRules, 0);
    } catch {
      // A sheet whose rules cannot be read cannot set the page size either.
    }
  }
  probe.remove();
  return largest;
}

/** 422 when the document's CSS @page size is beyond what a page may be. */
export function checkCssPageSide(largestPx: number): void {
  const mm = largestPx * MM_PER_PX;
  if (mm <= MAX_PAGE_SIDE_MM) return;
  throw new ServiceError(
    422,
    'page_too_large',
    `the document's CSS @page size asks for a page ${Math.round(mm)} mm long; a page may be at most ${MAX_PAGE_SIDE_MM} mm (about ${Math.round(MAX_PAGE_SIDE_MM / 25.4)} in) a side`,
    { extra: { limitMm: MAX_PAGE_SIDE_MM } },
  );
}

/** 422 for a page whose renderer crashed: it ran out of its memory, or the document broke it. */
export function rendererCrashed(limits: { heapMb: number; processMemoryMb: number }, cause: unknown): ServiceError {
  return tooComplex(
    'the document crashed the page rendering it, most likely by using more memory than a page may',
    `a page may use ${limits.heapMb} MB of script heap and ${limits.processMemoryMb} MB in all; the renderer of this document stopped (${messageOf(cause)})`,
    { extra: { engine: 'chromium', heapLimitMb: limits.heapMb, memoryLimitMb: limits.processMemoryMb }, cause },
  );
}

/** 422 for any other failure of the document's own page while the browser stays up. */
export function renderFailed(cause: unknown): ServiceError {
  const message = messageOf(cause);
  const printing = /printing failed/i.test(message);
  return new ServiceError(
    422,
    'render_failed',
    printing
      ? `Chromium could not print this document: its page size or layout is beyond what can be printed (a page may be at most ${MAX_PAGE_SIDE_MM} mm a side)`
      : 'Chromium could not render this document',
    { detail: message, extra: { engine: 'chromium' }, cause },
  );
}

/** Playwright's words for a page whose renderer died under it. */
export function isCrashMessage(error: unknown): boolean {
  return /page crashed|target crashed|renderer process (crashed|gone)/i.test(messageOf(error));
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
