/**
 * The SEO half of the agreement corpus: shops, blogs, docs, news, landing and login pages, error
 * pages, an hreflang set, canonicals that point elsewhere, broken JSON-LD, mixed content, pages
 * kept out of search by meta, header and robots.txt, and links crawlers cannot follow. Each is
 * modelled on how real sites get it wrong (or right), on a host of its own where robots.txt differs.
 */
import type { HostSpec, PageSpec } from './corpus-types.ts';
import { doc, footer, jsonLd, nav, paragraphs, productCard, prose, thumbnailSvg } from './html.ts';

const SHOP_NAV = nav([['/', 'Home'], ['/c/shoes', 'Shoes'], ['/c/jackets', 'Jackets'], ['/sale', 'Sale'], ['/help', 'Help centre']]);
const BLOG_NAV = nav([['/', 'All posts'], ['/tags/trails', 'Trails'], ['/tags/gear', 'Gear'], ['/about', 'About the authors']]);
const DOCS_NAV = nav([['/', 'Overview'], ['/guide/install', 'Installation'], ['/guide/config', 'Configuration'], ['/api/', 'API reference']]);

const cards = (count: number, missingAlt: (i: number) => boolean, linkText?: (i: number) => string | undefined): string =>
  `<div class="grid">${Array.from({ length: count }, (_, i) => productCard(i, '/img', missingAlt(i) ? null : `Trail item ${i}, side view`, linkText?.(i))).join('\n')}</div>`;

const product = (name: string, price: string) => ({
  '@context': 'https://schema.org',
  '@type': 'Product',
  name,
  image: 'http://shop.test/img/item-1.svg',
  description: `${name}: light, grippy and built for long days.`,
  sku: 'TR-1001',
  brand: { '@type': 'Brand', name: 'Ridgeline' },
  offers: { '@type': 'Offer', price, priceCurrency: 'EUR', availability: 'https://schema.org/InStock', url: 'http://shop.test/p/trail-runner' },
});

const article = (headline: string) => ({
  '@context': 'https://schema.org',
  '@type': 'BlogPosting',
  headline,
  datePublished: '2026-03-02T08:00:00+01:00',
  author: { '@type': 'Person', name: 'Mara Lind', url: 'http://blog.test/about' },
  image: 'http://blog.test/img/item-2.svg',
});

const thumbnails = (count: number): HostSpec['assets'] =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`/img/item-${i}.svg`, { type: 'image/svg+xml', body: thumbnailSvg(i), headers: { 'cache-control': 'public, max-age=31536000' } }]));

const ALLOW_ALL = 'User-agent: *\nAllow: /\n';

export const SEO_HOSTS: Record<string, HostSpec> = {
  'shop.test': { robots: 'User-agent: *\nDisallow: /checkout/\nDisallow: /cart\n\nSitemap: http://shop.test/sitemap.xml\n', assets: { ...thumbnails(48), '/sitemap.xml': { type: 'application/xml', body: '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://shop.test/</loc></url><url><loc>http://shop.test/c/shoes</loc></url></urlset>' } } },
  'blog.test': { robots: ALLOW_ALL, assets: thumbnails(12) },
  'docs.test': { robots: 'User-agent: *\nDisallow: /internal/\n', assets: thumbnails(4) },
  // No robots.txt at all (404): crawlers take that as everything allowed.
  'news.test': { robots: null, assets: thumbnails(40) },
  'landing.test': { robots: ALLOW_ALL, assets: thumbnails(8) },
  'app.test': { robots: 'User-agent: *\nDisallow: /api/\n', assets: {} },
  'intl.test': { robots: ALLOW_ALL, assets: thumbnails(4) },
  'staging.test': { robots: ALLOW_ALL, assets: thumbnails(4) },
  'closed.test': { robots: '# Whole site closed while we rebuild\nUser-agent: *\nDisallow: /\n', assets: thumbnails(4) },
  // A robots.txt with a misspelt directive, a line without a colon and HTML pasted in by a CMS.
  'broken.test': { robots: 'User-agent: *\nDisalow: /tmp/\nCrawl-delay 10\n<html><body>Not found</body></html>\n', assets: thumbnails(4) },
  'secure.test': { robots: ALLOW_ALL, assets: { ...thumbnails(6), '/club.css': { type: 'text/css', body: 'main{padding:16px}h1{color:#145}' }, '/club.js': { type: 'text/javascript', body: 'document.documentElement.dataset.club = "1";' } } },
};

const intlAlternates = ['en', 'de', 'fr'].map((l) => `<link rel="alternate" hreflang="${l}" href="http://intl.test/${l}/">`).join('\n') + '\n<link rel="alternate" hreflang="x-default" href="http://intl.test/en/">';
const intlPage = (lang: string, title: string, description: string, canonical: string, heading: string): string =>
  doc({ lang, title, description, canonical, head: intlAlternates, body: `${nav([['/en/', 'English'], ['/de/', 'Deutsch'], ['/fr/', 'Français']])}<main><h1>${heading}</h1>${paragraphs(4, lang.length)}<img src="/img/item-1.svg" alt="${heading}" width="240" height="180"></main>${footer('Intl Outdoor')}` });

export const SEO_PAGES: PageSpec[] = [
  {
    id: 'shop-home', host: 'shop.test', path: '/', kind: 'both', about: 'a shop front page: 24 products, all with alt text, a good head',
    html: doc({ title: 'Ridgeline Outdoor: trail shoes, jackets and packs', description: 'Trail running shoes, waterproof jackets and light packs, tested on real trails. Free returns for 60 days and same-day dispatch.', canonical: 'http://shop.test/', head: jsonLd({ '@context': 'https://schema.org', '@type': 'Organization', name: 'Ridgeline Outdoor', url: 'http://shop.test/', logo: 'http://shop.test/img/item-0.svg' }), body: `${SHOP_NAV}<main><h1>Gear for long days outside</h1>${cards(24, () => false)}</main>${footer('Ridgeline Outdoor')}` }),
  },
  {
    id: 'shop-listing', host: 'shop.test', path: '/c/shoes', kind: 'both', about: 'a product listing of 48 images, 9 of them without alt',
    html: doc({ title: 'Trail running shoes | Ridgeline Outdoor', description: 'Forty-eight trail running shoes compared by grip, cushioning, drop and weight, with sizes in stock and free returns.', canonical: 'http://shop.test/c/shoes', body: `${SHOP_NAV}<main><h1>Trail running shoes</h1>${cards(48, (i) => i % 5 === 2)}</main>${footer('Ridgeline Outdoor')}` }),
  },
  {
    id: 'shop-product', host: 'shop.test', path: '/p/trail-runner', kind: 'seo', about: 'a product page with valid Product JSON-LD',
    html: doc({ title: 'Ridgeline Trail Runner 3 - light trail shoe | Ridgeline', description: 'The Trail Runner 3 weighs 270 g, has a 6 mm drop and a rock plate. Sizes 36 to 48 in stock, free returns within 60 days.', canonical: 'http://shop.test/p/trail-runner', head: jsonLd(product('Ridgeline Trail Runner 3', '139.00')), body: `${SHOP_NAV}<main><h1>Ridgeline Trail Runner 3</h1><img src="/img/item-1.svg" alt="Trail Runner 3 in blue, side view" width="480" height="360">${paragraphs(5, 1)}<h2>Customers also bought</h2>${cards(6, () => false)}</main>${footer('Ridgeline Outdoor')}` }),
  },
  {
    id: 'shop-product-badjsonld', host: 'shop.test', path: '/p/rain-jacket', kind: 'seo', about: 'a product page whose JSON-LD has a trailing comma (does not parse)',
    html: doc({ title: 'Storm Shell rain jacket, 2.5 layer | Ridgeline', description: 'A 2.5-layer waterproof shell at 210 g with taped seams, pit zips and a helmet-sized hood. In stock in five colours.', canonical: 'http://shop.test/p/rain-jacket', head: '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Storm Shell","offers":{"@type":"Offer","price":"189.00","priceCurrency":"EUR",},}</script>', body: `${SHOP_NAV}<main><h1>Storm Shell rain jacket</h1><img src="/img/item-3.svg" alt="Storm Shell jacket in red" width="480" height="360">${paragraphs(4, 3)}</main>${footer('Ridgeline Outdoor')}` }),
  },
  {
    id: 'shop-checkout-disallowed', host: 'shop.test', path: '/checkout/', kind: 'seo', about: 'a page under Disallow: /checkout/ in robots.txt',
    html: doc({ title: 'Checkout | Ridgeline Outdoor', description: 'Review your basket, choose delivery and pay securely by card, PayPal or bank transfer. Orders before 2 pm ship today.', body: `${SHOP_NAV}<main><h1>Checkout</h1><form action="/checkout/pay" method="post"><label>Email <input name="email" type="email"></label><button>Continue to payment</button></form></main>${footer('Ridgeline Outdoor')}` }),
  },
  {
    id: 'shop-404', host: 'shop.test', path: '/p/discontinued-boot', status: 404, kind: 'seo', about: 'a 404 page with a full head, as most CMSs serve one',
    html: doc({ title: 'Page not found | Ridgeline Outdoor', description: 'The page you were looking for has moved or no longer exists. Browse our trail shoes, jackets and packs instead.', body: `${SHOP_NAV}<main><h1>We could not find that page</h1><p>${prose(2)}</p>${cards(4, () => false)}</main>${footer('Ridgeline Outdoor')}` }),
  },
  {
    id: 'shop-500', host: 'shop.test', path: '/sale', status: 500, kind: 'seo', about: 'a 500 error page (the sale page broke under load)',
    html: doc({ title: 'Something went wrong | Ridgeline Outdoor', description: 'An error on our side stopped this page from loading. Please try again in a few minutes; your basket is saved.', body: `${SHOP_NAV}<main><h1>Something went wrong</h1><p>Please try again in a few minutes.</p></main>${footer('Ridgeline Outdoor')}` }),
  },
  {
    id: 'blog-index', host: 'blog.test', path: '/', kind: 'both', about: 'a blog index whose links all say "Read more"',
    html: doc({ title: 'Trail Notes: the Ridgeline running blog', description: 'Trail guides, gear reviews and race reports from the Ridgeline team, with routes, maps and honest verdicts on kit.', canonical: 'http://blog.test/', body: `${BLOG_NAV}<main><h1>Trail Notes</h1>${Array.from({ length: 8 }, (_, i) => `<article><h2>Post ${i + 1}: ${['Alpine loops', 'Winter grip', 'Race report', 'Pack test'][i % 4]}</h2><img src="/img/item-${i}.svg" alt="Photo for post ${i + 1}" width="240" height="180"><p>${prose(2, i)}</p><a href="/2026/post-${i + 1}">Read more</a></article>`).join('\n')}</main>${footer('Trail Notes')}` }),
  },
  {
    id: 'blog-post', host: 'blog.test', path: '/2026/trail-guide', kind: 'both', about: 'a well-made blog post with BlogPosting JSON-LD',
    html: doc({ title: 'A beginner\'s guide to trail running in the Alps | Trail Notes', description: 'Where to start trail running in the Alps: five routes from 8 to 21 km, what to carry, and how to pace the climbs.', canonical: 'http://blog.test/2026/trail-guide', head: jsonLd(article('A beginner\'s guide to trail running in the Alps')), body: `${BLOG_NAV}<main><article><h1>A beginner's guide to trail running in the Alps</h1><img src="/img/item-2.svg" alt="A runner on a ridge above a lake" width="640" height="480">${paragraphs(10, 2)}<h2>Five routes to start with</h2>${paragraphs(6, 4)}<p>See also <a href="/2026/winter-grip">our test of winter grip</a>.</p></article></main>${footer('Trail Notes')}` }),
  },
  {
    id: 'blog-no-description', host: 'blog.test', path: '/2026/gear-list', kind: 'seo', about: 'a post with a two-word title and no meta description',
    html: doc({ title: 'Gear list', canonical: 'http://blog.test/2026/gear-list', body: `${BLOG_NAV}<main><article><h1>What I carry on a long day</h1>${paragraphs(6, 5)}<img src="/img/item-5.svg" alt="Gear laid out on a table" width="640" height="480"></article></main>${footer('Trail Notes')}` }),
  },
  {
    id: 'blog-untitled', host: 'blog.test', path: '/2026/draft', kind: 'seo', about: 'a post published without a title or description (a CMS draft template)',
    html: doc({ title: null, body: `${BLOG_NAV}<main><article><h1>Race report: the 50 km</h1>${paragraphs(8, 6)}</article></main>${footer('Trail Notes')}` }),
  },
  {
    id: 'blog-bad-hreflang', host: 'blog.test', path: '/2026/translated', kind: 'seo', about: 'hreflang with invalid language codes ("english", "de-DE-x-at")',
    html: doc({ title: 'Our story, now in three languages | Trail Notes', description: 'The story of how Trail Notes started, translated into German and French by readers who run with us every week.', canonical: 'http://blog.test/2026/translated', head: '<link rel="alternate" hreflang="english" href="http://blog.test/2026/translated"><link rel="alternate" hreflang="de_DE" href="http://blog.test/de/2026/translated"><link rel="alternate" hreflang="french" href="http://blog.test/fr/2026/translated">', body: `${BLOG_NAV}<main><h1>Our story</h1>${paragraphs(4, 7)}</main>${footer('Trail Notes')}` }),
  },
  {
    id: 'docs-home', host: 'docs.test', path: '/', kind: 'both', about: 'a documentation home page, well made',
    html: doc({ title: 'Ridgeline API documentation', description: 'Guides and reference for the Ridgeline API: install the client, authenticate, list products and place orders.', canonical: 'http://docs.test/', body: `${DOCS_NAV}<main><h1>Ridgeline API documentation</h1>${paragraphs(3, 7)}<ul><li><a href="/guide/install">Install the client library</a></li><li><a href="/guide/config">Configure authentication</a></li><li><a href="/api/">Browse the API reference</a></li></ul></main>${footer('Ridgeline Docs')}` }),
  },
  {
    id: 'docs-js-links', host: 'docs.test', path: '/guide/install', kind: 'seo', about: 'a docs page whose tabs are javascript: links and onclick-only anchors',
    html: doc({ title: 'Install the client library | Ridgeline API docs', description: 'Install the Ridgeline client with npm, pip or Go modules, check the version and make your first authenticated call.', canonical: 'http://docs.test/guide/install', body: `${DOCS_NAV}<main><h1>Install the client library</h1><div class="tabs"><a href="javascript:void(0)" onclick="show('npm')">npm</a> <a href="javascript:show('pip')">pip</a> <a onclick="show('go')">Go</a> <a href="#" onclick="location='/guide/config'">Next: configuration</a></div>${paragraphs(5, 0)}<pre><code>npm install @ridgeline/client</code></pre></main>${footer('Ridgeline Docs')}<script>function show(t){document.title=t}</script>` }),
  },
  {
    id: 'docs-disallowed', host: 'docs.test', path: '/internal/old-api', kind: 'seo', about: 'an old docs page under Disallow: /internal/',
    html: doc({ title: 'Legacy API v1 (internal) | Ridgeline API docs', description: 'The retired v1 endpoints, kept for teams migrating old integrations. Use the v2 reference for anything new.', canonical: 'http://docs.test/internal/old-api', body: `${DOCS_NAV}<main><h1>Legacy API v1</h1>${paragraphs(4, 3)}</main>${footer('Ridgeline Docs')}` }),
  },
  {
    id: 'news-front', host: 'news.test', path: '/', kind: 'both', about: 'a news front page: 40 teasers with pictures, 12 without alt, no robots.txt on the host',
    html: doc({ title: 'Valley Daily: local news, sport and weather', description: 'Local news from the valley: council decisions, school sport, road works, weather warnings and what is on this weekend.', canonical: 'http://news.test/', body: `${nav([['/', 'Front page'], ['/local', 'Local'], ['/sport', 'Sport'], ['/weather', 'Weather']])}<main><h1>Valley Daily</h1><div class="grid">${Array.from({ length: 40 }, (_, i) => `<div class="card"><img src="/img/item-${i}.svg"${i % 10 < 3 ? '' : ` alt="News photo ${i}"`} width="240" height="180"><h2><a href="/story/${i}">Story ${i}: ${prose(1, i).slice(0, 50)}</a></h2></div>`).join('\n')}</div></main>${footer('Valley Daily')}` }),
  },
  {
    id: 'news-canonical-root', host: 'news.test', path: '/story/road-works', kind: 'seo', about: 'an article whose canonical points at the front page (a template bug)',
    html: doc({ title: 'Road works close the bridge for six weeks | Valley Daily', description: 'The river bridge closes from Monday for six weeks of repairs. Diversions, bus changes and what shops on the high street say.', canonical: 'http://news.test/', head: jsonLd({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Road works close the bridge for six weeks', datePublished: '2026-11-20T07:30:00+01:00', author: { '@type': 'Person', name: 'Jo Weber' }, image: 'http://news.test/img/item-1.svg' }), body: `<main><article><h1>Road works close the bridge for six weeks</h1><img src="/img/item-1.svg" alt="The river bridge with barriers" width="640" height="480">${paragraphs(7, 1)}</article></main>${footer('Valley Daily')}` }),
  },
  {
    id: 'landing-generic-links', host: 'landing.test', path: '/', kind: 'both', about: 'a landing page with "click here"/"learn more" links and hero images without alt',
    html: doc({ title: 'Ridgeline Pro: route planning for trail runners', description: 'Plan trail routes with live elevation, water points and cut-off times. Try Ridgeline Pro free for 30 days, no card needed.', canonical: 'http://landing.test/', body: `<header><img src="/img/item-0.svg" width="240" height="180"><a href="/signup">Click here</a></header><main><h1>Plan every climb before you run it</h1><img src="/img/item-1.svg" width="640" height="480"><p>${prose(3)}</p><a href="/features">Learn more</a> <a href="/pricing">More</a> <a href="/tour">here</a><section><h2>Loved by 20,000 runners</h2>${paragraphs(3, 2)}<a href="/stories">Read more</a></section></main>${footer('Ridgeline Pro')}` }),
  },
  {
    id: 'landing-no-viewport', host: 'landing.test', path: '/old-offer', kind: 'seo', about: 'an old campaign page: no lang, no viewport, no description, a long title',
    html: doc({ lang: null, viewport: false, title: 'Summer sale summer sale summer sale: 40% off all trail shoes, jackets, packs, poles and headlamps this week only', body: `<main><h1>Summer sale</h1>${cards(8, (i) => i < 4)}</main>` }),
  },
  {
    id: 'app-login', host: 'app.test', path: '/login', kind: 'seo', about: 'a sign-in page: a short title, no description, a form',
    html: doc({ title: 'Sign in', canonical: 'http://app.test/login', body: `<main><h1>Sign in to Ridgeline</h1><form method="post" action="/login"><label>Email <input type="email" name="email" autocomplete="username"></label><label>Password <input type="password" name="password" autocomplete="current-password"></label><button>Sign in</button></form><p><a href="/reset">Forgot your password?</a> <a href="/signup">Create an account</a></p></main>` }),
  },
  { id: 'intl-en', host: 'intl.test', path: '/en/', kind: 'seo', about: 'hreflang set (en, de, fr, x-default): the English page', html: intlPage('en', 'Trail running holidays in the Alps | Intl Outdoor', 'Guided trail running weeks in the Alps for every level: routes, huts, luggage transfer and coaching included.', 'http://intl.test/en/', 'Trail running holidays') },
  { id: 'intl-de', host: 'intl.test', path: '/de/', kind: 'seo', about: 'hreflang set: the German page', html: intlPage('de', 'Trailrunning-Urlaub in den Alpen | Intl Outdoor', 'Geführte Trailrunning-Wochen in den Alpen für jedes Niveau: Routen, Hütten, Gepäcktransport und Coaching inklusive.', 'http://intl.test/de/', 'Trailrunning-Urlaub') },
  { id: 'intl-fr-canonical-en', host: 'intl.test', path: '/fr/', kind: 'seo', about: 'hreflang set: the French page, whose canonical points at the English one', html: intlPage('fr', 'Séjours trail dans les Alpes | Intl Outdoor', 'Des semaines de trail guidées dans les Alpes pour tous les niveaux : parcours, refuges, transfert des bagages et coaching.', 'http://intl.test/en/', 'Séjours trail') },
  {
    id: 'noindex-meta', host: 'staging.test', path: '/meta-noindex', kind: 'seo', about: 'a good page with <meta name="robots" content="noindex"> left over from staging',
    html: doc({ title: 'Autumn collection preview | Ridgeline Outdoor', description: 'A first look at the autumn collection: insulated jackets, winter trail shoes and headlamps, with prices and dates.', head: '<meta name="robots" content="noindex, follow">', body: `<main><h1>Autumn collection preview</h1>${cards(6, () => false)}${paragraphs(2)}</main>` }),
  },
  {
    id: 'noindex-header', host: 'staging.test', path: '/header-noindex', kind: 'seo', headers: { 'x-robots-tag': 'noindex' }, about: 'a good page sent with X-Robots-Tag: noindex',
    html: doc({ title: 'Winter trail shoes compared | Ridgeline Outdoor', description: 'Twelve winter trail shoes compared on ice, snow and slush: studs, membranes, warmth and how they run on dry roads.', body: `<main><h1>Winter trail shoes compared</h1>${paragraphs(5, 3)}</main>` }),
  },
  {
    id: 'noindex-bingbot-only', host: 'staging.test', path: '/bingbot', kind: 'seo', about: 'noindex for bingbot only: Google and the others may index it',
    html: doc({ title: 'Headlamps for night running | Ridgeline Outdoor', description: 'How bright is bright enough? Nine headlamps measured for beam, battery life and bounce on a two-hour night run.', canonical: 'http://staging.test/bingbot', head: '<meta name="bingbot" content="noindex">', body: `<main><h1>Headlamps for night running</h1>${paragraphs(5, 4)}</main>` }),
  },
  {
    id: 'unavailable-after-past', host: 'staging.test', path: '/expired-offer', kind: 'seo', headers: { 'x-robots-tag': 'unavailable_after: 2025-06-25T15:00:00+00:00' }, about: 'X-Robots-Tag: unavailable_after a past date (an expired offer)',
    html: doc({ title: 'Spring offer: 30% off packs | Ridgeline Outdoor', description: 'Thirty per cent off every running pack and vest until the end of June, with free delivery on orders over 50 EUR.', canonical: 'http://staging.test/expired-offer', body: `<main><h1>Spring offer on packs</h1>${paragraphs(3, 5)}</main>` }),
  },
  {
    id: 'unavailable-after-rfc822', host: 'staging.test', path: '/expired-event', kind: 'seo', headers: { 'x-robots-tag': 'unavailable_after: 25 Jun 2025 15:00:00 PST' }, about: 'X-Robots-Tag: unavailable_after a past date in RFC 822 form (Google\'s own example format)',
    html: doc({ title: 'Summer trail camp 2025 | Ridgeline Outdoor', description: 'Five days of coached trail running in the Dolomites in June 2025: routes, huts, coaching and what to pack for the week.', canonical: 'http://staging.test/expired-event', body: `<main><h1>Summer trail camp 2025</h1>${paragraphs(3, 6)}</main>` }),
  },
  {
    id: 'closed-home', host: 'closed.test', path: '/', kind: 'seo', about: 'a good home page on a host whose robots.txt says Disallow: /',
    html: doc({ title: 'Ridgeline Events: trail races and camps', description: 'Trail races from 10 to 100 km and training camps in the Alps and the Dolomites, with dates, entry fees and results.', canonical: 'http://closed.test/', body: `<main><h1>Ridgeline Events</h1>${paragraphs(4, 6)}<a href="/races">See the 2027 races</a></main>` }),
  },
  {
    id: 'closed-page', host: 'closed.test', path: '/races', kind: 'seo', about: 'a deeper page on the Disallow: / host',
    html: doc({ title: 'Trail races 2027 | Ridgeline Events', description: 'All 2027 Ridgeline trail races with distances, elevation, dates, cut-off times and how to enter before places run out.', canonical: 'http://closed.test/races', body: `<main><h1>Trail races 2027</h1>${paragraphs(5, 1)}</main>` }),
  },
  {
    id: 'robots-invalid', host: 'broken.test', path: '/', kind: 'seo', about: 'a good page on a host whose robots.txt is invalid',
    html: doc({ title: 'Ridgeline Repairs: shoe resoling and jacket repair', description: 'Send us worn trail shoes and torn jackets: resoling, seam taping and zip repairs, back to you within two weeks.', canonical: 'http://broken.test/', body: `<main><h1>Repairs and resoling</h1>${paragraphs(4, 2)}<a href="/prices">See repair prices</a></main>` }),
  },
  {
    id: 'mixed-content', host: 'secure.test', path: '/', scheme: 'https', kind: 'seo', about: 'an https page loading images, a script and a stylesheet over http',
    html: doc({ title: 'Ridgeline Club: members\' area', description: 'Member prices, early race entry and free repairs for Ridgeline Club members. Join for 29 EUR a year and cancel any time.', canonical: 'https://secure.test/', head: '<link rel="stylesheet" href="http://secure.test/club.css"><script src="http://secure.test/club.js"></script>', body: `<main><h1>Ridgeline Club</h1><img src="http://secure.test/img/item-1.svg" alt="Club members on a group run" width="640" height="480"><img src="http://secure.test/img/item-2.svg" alt="A member's badge" width="240" height="180">${paragraphs(3, 3)}</main>` }),
  },
];
