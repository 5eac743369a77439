/**
 * Page-building helpers for the agreement corpus: a document with the head a real site writes,
 * paragraphs of plausible copy, product cards and navigation. Every page of the corpus is one
 * call of `doc` with what makes it what it is (a missing title, a canonical elsewhere, ...).
 */

export interface DocParts {
  lang?: string | null;
  title?: string | null;
  description?: string | null;
  canonical?: string | null;
  /** extra markup in <head> (hreflang links, robots meta, JSON-LD, stylesheets, scripts) */
  head?: string;
  body: string;
  viewport?: boolean;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

export function doc(p: DocParts): string {
  const lang = p.lang === undefined ? 'en' : p.lang;
  return [
    '<!doctype html>',
    lang === null ? '<html>' : `<html lang="${lang}">`,
    '<head>',
    '<meta charset="utf-8">',
    p.viewport === false ? '' : '<meta name="viewport" content="width=device-width, initial-scale=1">',
    p.title === null || p.title === undefined ? '' : `<title>${esc(p.title)}</title>`,
    p.description === null || p.description === undefined ? '' : `<meta name="description" content="${esc(p.description)}">`,
    p.canonical === null || p.canonical === undefined ? '' : `<link rel="canonical" href="${esc(p.canonical)}">`,
    p.head ?? '',
    '<style>body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px;color:#222}img{max-width:100%;height:auto}.grid{display:flex;flex-wrap:wrap;gap:12px}.card{width:240px}nav a{margin-right:12px}</style>',
    '</head>',
    '<body>',
    p.body,
    '</body>',
    '</html>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

const SENTENCES = [
  'Our team tested every item on the same trails, in the rain and in the dry, over six weeks.',
  'Sizes run true to the chart, and free returns cover sixty days from delivery.',
  'The outsole uses a softer rubber compound that grips wet rock without wearing out on tarmac.',
  'We publish what we measured, what we liked and what we would change in the next version.',
  'Shipping is carbon neutral and every parcel is packed in recycled cardboard.',
  'Readers asked how the fit compares with last year, so we wore both on the same route.',
  'Prices include VAT; orders placed before two in the afternoon leave the warehouse the same day.',
  'The guide below covers installation, configuration and the first steps after setup.',
];

/** `n` sentences of copy, varied by `seed` so pages do not repeat each other word for word. */
export function prose(n: number, seed = 0): string {
  return Array.from({ length: n }, (_, i) => SENTENCES[(i + seed) % SENTENCES.length]).join(' ');
}

export function paragraphs(count: number, seed = 0): string {
  return Array.from({ length: count }, (_, i) => `<p>${prose(4, seed + i)}</p>`).join('\n');
}

export function nav(links: readonly [string, string][]): string {
  return `<nav>${links.map(([href, text]) => `<a href="${href}">${esc(text)}</a>`).join('')}</nav>`;
}

/** A product card; `alt` null leaves the alt attribute out (an image without alt). */
export function productCard(i: number, imageBase: string, alt: string | null, linkText?: string): string {
  const altAttr = alt === null ? '' : ` alt="${esc(alt)}"`;
  return `<div class="card"><a href="/p/item-${i}"><img src="${imageBase}/item-${i}.svg"${altAttr} width="240" height="180" loading="lazy"></a>
<h3><a href="/p/item-${i}">${linkText ?? `Trail item ${i}`}</a></h3><p>From ${(29 + i * 3).toFixed(2)} EUR. ${prose(1, i)}</p></div>`;
}

/** A small SVG picture (product thumbnails): colour from the index. */
export function thumbnailSvg(i: number): string {
  const hue = (i * 37) % 360;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="180"><rect width="240" height="180" fill="hsl(${hue},55%,60%)"/><circle cx="120" cy="90" r="${30 + (i % 5) * 8}" fill="hsl(${(hue + 180) % 360},50%,45%)"/></svg>`;
}

export function jsonLd(value: unknown): string {
  return `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
}

export const footer = (site: string): string => `<footer><p>&copy; 2026 ${esc(site)}. <a href="/about">About us</a> <a href="/contact">Contact</a> <a href="/privacy">Privacy</a></p></footer>`;
