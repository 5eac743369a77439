/**
 * The pieces of the product listing the analysis benches build (bench/analysis-alone.ts, a 200 KB
 * page with every feature the analyzers look at; bench/solve-verify.ts, a 75 KB page with a few
 * chosen findings): the head's shared tags, the JSON-LD list, the navigation, a spec table's
 * rows, and the page grown section by section to a size.
 */

/** The page's own address, and its canonical one. */
export const SHOP_PAGE_URL = 'https://shop.example.com/catalog/trail-running';

/** The description and canonical tags, after the title. */
export const DESCRIPTION_AND_CANONICAL = `<meta name="description" content="Trail running shoes with grip for mud, rock and snow: compare cushioning, drop and weight across forty models, with free returns for 60 days.">
<link rel="canonical" href="${SHOP_PAGE_URL}">`;

/** Open Graph and the Twitter card. */
export const SOCIAL_META = `<meta property="og:title" content="Trail running shoes for every terrain">
<meta property="og:description" content="Grip for mud, rock and snow.">
<meta property="og:image" content="https://cdn.example.com/og/trail.jpg">
<meta property="og:url" content="${SHOP_PAGE_URL}">
<meta property="og:type" content="website">
<meta name="twitter:card" content="summary_large_image">`;

/** A schema.org ItemList of `count` shoes, as JSON-LD. */
export function itemListJsonLd(count: number): string {
  return `<script type="application/ld+json">${JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'ItemList',
    name: 'Trail running shoes',
    itemListElement: Array.from({ length: count }, (_, i) => ({ '@type': 'ListItem', position: i + 1, url: `https://shop.example.com/p/trail-${i}`, name: `Trail shoe ${i}` })),
  })}</script>`;
}

/** The header's navigation of `count` categories. */
export function categoryNav(count: number): string {
  return `<header><nav><ul>${Array.from({ length: count }, (_, i) => `<li><a href="/catalog/c${i}">Category ${i}</a></li>`).join('')}</ul></nav></header>`;
}

/** `count` rows of shoe `i`'s spec table. */
export function specRows(i: number, count: number): string {
  return Array.from({ length: count }, (_, r) => `<tr><th scope="row">Spec ${r}</th><td>${(i * 7 + r) % 40} mm</td><td>${200 + ((i + r) % 90)} g</td></tr>`).join('');
}

/** `head`, then section(0), section(1), ... until the page reaches `targetBytes` (counted in UTF-16 units), then `tail`. */
export function growPage(head: string, section: (i: number) => string, tail: string, targetBytes: number): string {
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < targetBytes; i++) {
    const s = section(i);
    parts.push(s);
    size += s.length;
  }
  parts.push(tail);
  return parts.join('');
}
