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
