// A realistic shop category page, as an agent's workspace holds it: a head with a title, the
// meta tags a shop has, render-blocking scripts, and a grid of product cards each with an image.
// The agent's edits flip fields (alt text on every image, a description); the page is rendered
// again and served, as a deploy would.
export interface ShopPage {
  images: number;
  blockingScripts: number;
  /** every product image has alt text */
  altText: boolean;
  /** the meta description, or none */
  description: string | null;
  title: string | null;
}

const NAMES = ['Ridge', 'Scree', 'Talus', 'Cirque', 'Moraine', 'Col', 'Arete', 'Bergschrund'];

export function shopPage(p: ShopPage): string {
  const scripts = Array.from({ length: p.blockingScripts }, (_, i) => `<script src="/assets/vendor-${i + 1}.js"></script>`).join('\n');
  const cards = Array.from({ length: p.images }, (_, i) => {
    const name = `${NAMES[i % NAMES.length] ?? 'Trail'} ${Math.floor(i / NAMES.length) + 1}`;
    const alt = p.altText ? ` alt="${name} trail running shoe, side view"` : '';
    return `<li class="product-card"><a href="/p/${i + 1}"><img src="/img/products/${i + 1}.jpg"${alt} width="320" height="240" loading="lazy"></a><h3>${name}</h3><p class="price">€${89 + (i % 7) * 10}</p></li>`;
  }).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${p.title === null ? '' : `<title>${p.title}</title>`}
${p.description === null ? '' : `<meta name="description" content="${p.description}">`}
<link rel="canonical" href="https://shop.example.com/trail">
<meta property="og:title" content="Trail running shoes">
<meta property="og:description" content="Trail running shoes tested on rock and mud.">
<meta property="og:image" content="https://shop.example.com/img/og.jpg">
<meta name="twitter:card" content="summary_large_image">
${scripts}
<script type="application/ld+json">{"@context":"https://schema.org","@type":"CollectionPage","name":"Trail running shoes","url":"https://shop.example.com/trail"}</script>
</head>
<body>
<header><nav><a href="/">Shop</a> <a href="/trail">Trail</a> <a href="/road">Road</a></nav></header>
<main>
<h1>Trail running shoes</h1>
<p>Every model is tested on rock and mud before it reaches the shelf.</p>
<ul class="grid">
${cards}
</ul>
</main>
<footer><p>© Trail Shop</p></footer>
</body>
</html>`;
}

// The pieces the listing is made of, shared with the analysis benches (bench/analysis-alone.ts
// builds a 200 KB page with every feature the analyzers look at from them).

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

/**
 * A product listing of about `targetBytes` (75 KB by default) as shops write them, with the kinds of
 * findings a real one has, each a few times at most: a title too long for a search result, three
 * images without alt and one whose alt is a file name, a skipped heading level, a JSON-LD Product
 * without offers, brand or sku. The rest is what makes such a page big: a full head, a JSON-LD
 * list, navigation, product cards with spec tables and reviews. bench:planner measures this page.
 */
export function listingPage(targetBytes = 75 * 1024): string {
  return growPage(LISTING_HEAD, listingCard, LISTING_TAIL, targetBytes);
}

const LISTING_HEAD = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail running shoes for every terrain: mud, rock, snow and gravel, compared by cushioning, drop and weight | Example Shop</title>
${DESCRIPTION_AND_CANONICAL}
${SOCIAL_META}
<link rel="stylesheet" href="https://cdn.example.com/css/site.css">
<script src="https://cdn.example.com/js/app.js" defer></script>
${itemListJsonLd(20)}
<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Trail shoe 0', image: 'https://cdn.example.com/img/0.jpg', description: 'A light trail shoe.' })}</script>
</head>
<body>
${categoryNav(24)}
<main>
<h1>Trail running shoes</h1>
`;

const REVIEWS = ['Great grip on wet rock, even on the descents.', 'Fits true to size with room for the toes.', 'A bit stiff for the first fifty kilometres.'];

function listingCard(i: number): string {
  // Three pictures without alt and one named like a camera file, over the whole page.
  const alt = i === 3 || i === 11 || i === 17 ? '' : i === 7 ? ' alt="IMG_4411.jpg"' : ` alt="Trail shoe ${i} seen from the side"`;
  // One h4 straight under an h2: the skipped level.
  const sub = i === 5 ? 'h4' : 'h3';
  return `<section id="s${i}" class="card">
<h2>Trail shoe ${i}: ${i % 3 === 0 ? 'cushioned' : 'fast'} and light</h2>
<${sub}>Why runners choose it</${sub}>
<p>The Trail shoe ${i} has a ${4 + (i % 8)} mm drop, a rock plate and a lugged outsole that bites into mud and loose gravel. Its upper drains fast after a river crossing and its heel counter holds the foot on steep descents. <a href="/p/trail-${i}">Read more about model ${i}</a> or see <a href="#reviews-${i}">the reviews</a>.</p>
<img src="https://cdn.example.com/img/${i}.jpg"${alt} width="640" height="480" loading="lazy">
<table><caption>Model ${i} specifications</caption><thead><tr><th>Spec</th><th>Stack</th><th>Weight</th></tr></thead><tbody>${specRows(i, 5)}</tbody></table>
<ul id="reviews-${i}">${REVIEWS.map((text, r) => `<li><strong>Runner ${r}</strong>: ${text}</li>`).join('')}</ul>
</section>
`;
}

const LISTING_TAIL = `</main>
<footer><p>&copy; Example Shop. Free returns within 60 days.</p></footer>
</body>
</html>
`;
