// PDF page options shared by the engines that make PDFs (LibreOffice, Chromium): named page
// sizes, orientation and CSS-like margins, all resolved to millimetres.
import { invalidInput } from '../core/errors.ts';

/** Portrait width x height in millimetres. */
export const PAGE_SIZES = {
  A3: [297, 420],
  A4: [210, 297],
  A5: [148, 210],
  A6: [105, 148],
  B4: [250, 353],
  B5: [176, 250],
  Letter: [215.9, 279.4],
  Legal: [215.9, 355.6],
  Tabloid: [279.4, 431.8],
  Ledger: [431.8, 279.4],
  Executive: [184.15, 266.7],
} as const satisfies Record<string, readonly [number, number]>;

/**
 * The longest side a page may have, whether asked for through the page options or by the
 * document's own CSS @page size: 5 m (about 197 in). Chromium fails to print well beyond this.
 */
export const MAX_PAGE_SIDE_MM = 5000;

export type PageSizeName = keyof typeof PAGE_SIZES;
export const PAGE_SIZE_NAMES = Object.keys(PAGE_SIZES) as PageSizeName[];

export interface PageOptions {
  /** a named size (case-insensitive) or explicit portrait dimensions in millimetres */
  pageSize?: string | { widthMm: number; heightMm: number };
  orientation?: 'portrait' | 'landscape';
  /** CSS-like: one to four lengths with unit (mm, cm, in, pt, px), e.g. "2cm" or "10mm 15mm"; a number means mm */
  margin?: string | number;
}

export interface ResolvedPage {
  widthMm: number;
  heightMm: number;
  landscape: boolean;
  /** top, right, bottom, left in mm; null when the document's own margins stay */
  marginsMm: [number, number, number, number] | null;
}

const UNIT_MM: Record<string, number> = { mm: 1, cm: 10, in: 25.4, pt: 25.4 / 72, px: 25.4 / 96 };

export function parseLengthMm(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(mm|cm|in|pt|px)?\s*$/i.exec(text);
  if (!match) return null;
  const value = Number(match[1]);
  const unit = (match[2] ?? 'mm').toLowerCase();
  const factor = UNIT_MM[unit];
  return factor === undefined ? null : value * factor;
}

export function parseMarginsMm(margin: string | number): [number, number, number, number] {
  const parts =
    typeof margin === 'number' ? [margin] : margin.trim().split(/\s+/).map((p) => parseLengthMm(p));
  if (parts.length < 1 || parts.length > 4 || parts.some((p) => p === null || !Number.isFinite(p) || p < 0 || p > 200)) {
    throw invalidInput('margin must be one to four lengths with a unit (mm, cm, in, pt, px), e.g. "2cm"', [
      { field: 'margin', message: `not a margin: ${String(margin)}` },
    ]);
  }
  const [a, b = a, c = a, d = b] = parts as number[];
  return [a!, b!, c!, d!];
}

export function findPageSize(name: string): PageSizeName | null {
  const lower = name.trim().toLowerCase();
  return PAGE_SIZE_NAMES.find((n) => n.toLowerCase() === lower) ?? null;
}

/** Resolves page options; null when none was given (the document keeps its own layout). */
export function resolvePage(options: PageOptions | undefined): ResolvedPage | null {
  if (!options || (options.pageSize === undefined && options.orientation === undefined && options.margin === undefined)) return null;
  let width: number = PAGE_SIZES.A4[0];
  let height: number = PAGE_SIZES.A4[1];
  if (typeof options.pageSize === 'string') {
    const name = findPageSize(options.pageSize);
    if (name === null) {
      throw invalidInput(`unknown page size "${options.pageSize}"`, [
        { field: 'page_size', message: 'unknown page size', allowed: PAGE_SIZE_NAMES },
      ]);
    }
    [width, height] = PAGE_SIZES[name];
  } else if (options.pageSize !== undefined) {
    ({ widthMm: width, heightMm: height } = options.pageSize);
    if (!(width > 10 && height > 10 && width < MAX_PAGE_SIDE_MM && height < MAX_PAGE_SIDE_MM)) {
      throw invalidInput('page size out of range', [{ field: 'page_size', message: `width and height must be 10–${MAX_PAGE_SIDE_MM} mm` }]);
    }
  }
  const landscape = options.orientation === 'landscape';
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  // Named sizes are portrait; orientation decides which side is the width.
  if (options.orientation !== undefined) {
    width = landscape ? long : short;
    height = landscape ? short : long;
  }
  const marginsMm = options.margin === undefined ? null : parseMarginsMm(options.margin);
  if (marginsMm && (marginsMm[1] + marginsMm[3] >= width - 10 || marginsMm[0] + marginsMm[2] >= height - 10)) {
    throw invalidInput('margins leave no room on the page', [{ field: 'margin', message: 'margins too large for the page size' }]);
  }
  return { widthMm: width, heightMm: height, landscape: width > height, marginsMm };
}
