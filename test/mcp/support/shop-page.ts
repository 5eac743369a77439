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

/**
 * A product listing of about `targetBytes` (75 KB by default) as shops write them, with the kinds of
 * findings a real one has, each a few times at most: a title too long for a search result, three
 * images without alt and one whose alt is a file name, a skipped heading level, a JSON-LD Product
 * without offers, brand or sku. The rest is what makes such a page big: a full head, a JSON-LD
 * list, navigation, product cards with spec tables and reviews.
 */
export function listingPage(targetBytes = 75 * 1024): string {
  const product = { '@context': 'https://schema.org', '@type': 'Product', name: 'Trail shoe 0', image: 'https://cdn.example.com/img/0.jpg', description: 'A light trail shoe.' };
  const list = {
    '@context': 'https://schema.org',
    '@type': 'ItemList',
    name: 'Trail running shoes',
    itemListElement: Array.from({ length: 20 }, (_, i) => ({ '@type': 'ListItem', position: i + 1, url: `https://shop.example.com/p/trail-${i}`, name: `Trail shoe ${i}` })),
  };
  const head = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail running shoes for every terrain: mud, rock, snow and gravel, compared by cushioning, drop and weight | Example Shop</title>
<meta name="description" content="Trail running shoes with grip for mud, rock and snow: compare cushioning, drop and weight across forty models, with free returns for 60 days.">
<link rel="canonical" href="https://shop.example.com/catalog/trail-running">
<meta property="og:title" content="Trail running shoes for every terrain">
<meta property="og:description" content="Grip for mud, rock and snow.">
<meta property="og:image" content="https://cdn.example.com/og/trail.jpg">
<meta property="og:url" content="https://shop.example.com/catalog/trail-running">
<meta property="og:type" content="website">
<meta name="twitter:card" content="summary_large_image">
<link rel="stylesheet" href="https://cdn.example.com/css/site.css">
<script src="https://cdn.example.com/js/app.js" defer></script>
<script type="application/ld+json">${JSON.stringify(list)}</script>
<script type="application/ld+json">${JSON.stringify(product)}</script>
</head>
<body>
<header><nav><ul>${Array.from({ length: 24 }, (_, i) => `<li><a href="/catalog/c${i}">Category ${i}</a></li>`).join('')}</ul></nav></header>
<main>
<h1>Trail running shoes</h1>
`;
  const card = (i: number): string => {
    const alt = i === 3 || i === 11 || i === 17 ? '' : i === 7 ? ' alt="IMG_4411.jpg"' : ` alt="Trail shoe ${i} seen from the side"`;
    const sub = i === 5 ? 'h4' : 'h3';
    const rows = Array.from({ length: 5 }, (_, r) => `<tr><th scope="row">Spec ${r}</th><td>${(i * 7 + r) % 40} mm</td><td>${200 + ((i + r) % 90)} g</td></tr>`).join('');
    const reviews = ['Great grip on wet rock, even on the descents.', 'Fits true to size with room for the toes.', 'A bit stiff for the first fifty kilometres.'];
    return `<section id="s${i}" class="card">
<h2>Trail shoe ${i}: ${i % 3 === 0 ? 'cushioned' : 'fast'} and light</h2>
<${sub}>Why runners choose it</${sub}>
<p>The Trail shoe ${i} has a ${4 + (i % 8)} mm drop, a rock plate and a lugged outsole that bites into mud and loose gravel. Its upper drains fast after a river crossing and its heel counter holds the foot on steep descents. <a href="/p/trail-${i}">Read more about model ${i}</a> or see <a href="#reviews-${i}">the reviews</a>.</p>
<img src="https://cdn.example.com/img/${i}.jpg"${alt} width="640" height="480" loading="lazy">
<table><caption>Model ${i} specifications</caption><thead><tr><th>Spec</th><th>Stack</th><th>Weight</th></tr></thead><tbody>${rows}</tbody></table>
<ul id="reviews-${i}">${reviews.map((text, r) => `<li><strong>Runner ${r}</strong>: ${text}</li>`).join('')}</ul>
</section>
`;
  };
  const tail = `</main>
<footer><p>&copy; Example Shop. Free returns within 60 days.</p></footer>
</body>
</html>
`;
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < targetBytes; i++) {
    const section = card(i);
    parts.push(section);
    size += section.length;
  }
  parts.push(tail);
  return parts.join('');
}
