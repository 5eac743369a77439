/**
 * The performance half of the agreement corpus: one host per page, each with one dominant
 * problem as real sites have them (a slow server, render-blocking bundles, a long main-thread
 * task, a heavy or lazy-loaded hero image, a banner that shifts the page a second after load),
 * and a light, fast page for contrast. They count in the SEO figures too (they are all
 * indexable, well-headed pages).
 */
import type { AssetSpec, HostSpec, PageSpec } from './corpus-types.ts';
import { doc, footer, paragraphs } from './html.ts';

/** A hero JPEG of `width` x `height` from smooth noise (compresses like a photo, ~1.5 MB at 1600x1000). */
async function heroJpeg(width: number, height: number, quality: number): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    // Gradient plus noise: a photo's worth of detail, not a flat fill a codec squeezes to nothing.
    pixels[i] = ((i / 3) % width) / (width / 160) + (seed % 96);
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

/** A JavaScript bundle of about `kib` KiB that does some real parsing and start-up work. */
function bundle(name: string, kib: number): string {
  const chunk = `function ${name}_f%(a){var t=0;for(var i=0;i<a.length;i++){t+=a.charCodeAt(i)*%}return t}\n`;
  const lines: string[] = [`var ${name}_data=[];`];
  let size = 0;
  for (let i = 0; size < kib * 1024; i++) {
    const line = chunk.replace(/%/g, String(i)) + `${name}_data.push(${name}_f${i}("${'x'.repeat(40)}${i}"));\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

const css = (kib: number): string => Array.from({ length: Math.ceil((kib * 1024) / 60) }, (_, i) => `.c${i}{margin:${i % 7}px;padding:${i % 5}px;color:#${(i * 2654435761 % 0xffffff).toString(16).padStart(6, '0')}}`).join('\n');

/** A main-thread task of `ms` right after load (a tag manager, an A/B test, a chat widget). */
const longTask = (ms: number): string => `addEventListener('load', () => { const end = performance.now() + ${ms}; let x = 0; while (performance.now() < end) { x += Math.sqrt(x + 1); } document.body.dataset.x = String(x > 0); });`;

/** A cookie/ad banner inserted above the content a second after load: the layout shift. */
const lateBanner = `addEventListener('load', () => setTimeout(() => { const b = document.createElement('div'); b.style.cssText = 'height:280px;background:#fc3;font-size:24px;padding:20px'; b.textContent = 'Black Friday: 40% off everything, today only'; document.body.prepend(b); }, 1000));`;

const cached = { 'cache-control': 'public, max-age=31536000, immutable' };
const asset = (type: string, body: string): AssetSpec => ({ type, body, headers: cached });
const ALLOW_ALL = 'User-agent: *\nAllow: /\n';

const article = (site: string, title: string, description: string, host: string, head: string, body: string): string =>
  doc({ title, description, canonical: `http://${host}/`, head, body: `<main>${body}${paragraphs(8, title.length)}</main>${footer(site)}` });

export const PERF_HOSTS: Record<string, HostSpec> = {
  'fast.test': { robots: ALLOW_ALL, assets: { '/logo.svg': asset('image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#2a6"/></svg>') } },
  'slow.test': { robots: ALLOW_ALL, assets: { '/site.css': asset('text/css', css(8)) } },
  'bundles.test': { robots: ALLOW_ALL, assets: { '/vendor.js': asset('text/javascript', bundle('vendor', 420)), '/app.js': asset('text/javascript', bundle('app', 260)), '/polyfills.js': asset('text/javascript', bundle('poly', 140)), '/analytics.js': asset('text/javascript', bundle('ana', 90)), '/theme.css': asset('text/css', css(160)), '/fonts.css': asset('text/css', css(40)) } },
  'heavy.test': { robots: ALLOW_ALL, assets: { '/widgets.js': asset('text/javascript', longTask(650)) } },
  'busy.test': { robots: ALLOW_ALL, assets: { '/ab-test.js': asset('text/javascript', longTask(320)) } },
  'media.test': { robots: ALLOW_ALL, assets: { '/hero.jpg': { type: 'image/jpeg', generate: () => heroJpeg(1600, 1000, 96), headers: cached }, '/hero-small.jpg': { type: 'image/jpeg', generate: () => heroJpeg(800, 500, 70), headers: cached } } },
  'ads.test': { robots: ALLOW_ALL, assets: { '/ads.js': asset('text/javascript', lateBanner) } },
  'worst.test': { robots: ALLOW_ALL, assets: { '/vendor.js': asset('text/javascript', bundle('wv', 600)), '/app.js': asset('text/javascript', bundle('wa', 300)), '/theme.css': asset('text/css', css(200)), '/tags.js': asset('text/javascript', longTask(800) + lateBanner), '/hero.jpg': { type: 'image/jpeg', generate: () => heroJpeg(1600, 1000, 96), headers: cached } } },
  'tasks.test': { robots: ALLOW_ALL, assets: { '/chat.js': asset('text/javascript', longTask(450)), '/survey.js': asset('text/javascript', `addEventListener('load', () => setTimeout(() => { const end = performance.now() + 380; while (performance.now() < end) {} }, 200));`), '/app.js': asset('text/javascript', bundle('ta', 160)) } },
  'shifty.test': { robots: ALLOW_ALL, assets: { '/ads.js': asset('text/javascript', lateBanner + `addEventListener('load', () => setTimeout(() => { for (const img of document.querySelectorAll('img[data-late]')) { img.style.height = '360px'; } }, 600));`) } },
  'mixed.test': { robots: ALLOW_ALL, assets: { '/bundle.js': asset('text/javascript', bundle('mix', 200)), '/late.js': asset('text/javascript', lateBanner + longTask(400)), '/hero.jpg': { type: 'image/jpeg', generate: () => heroJpeg(1200, 750, 85), headers: cached } } },
};

export const PERF_PAGES: PageSpec[] = [
  {
    id: 'perf-fast', host: 'fast.test', path: '/', kind: 'both', about: 'a light page: inline CSS, one small logo, no script',
    html: article('Fast Co', 'Fast Co: a light, fast page about trail maps', 'Printable trail maps for the valley with distances, climbs and water points, updated every spring by local runners.', 'fast.test', '', '<img src="/logo.svg" alt="Fast Co" width="120" height="40"><h1>Trail maps you can print</h1>'),
  },
  {
    id: 'perf-slow-ttfb', host: 'slow.test', path: '/', kind: 'both', delayMs: 1800, about: 'a server that takes 1.8 s before the first byte (an uncached CMS)',
    html: article('Slow Co', 'Slow Co: the trail race calendar for 2027', 'Every trail race in the region for 2027 with dates, distances, elevation and entry fees, searchable by month and length.', 'slow.test', '<link rel="stylesheet" href="/site.css">', '<h1>The 2027 race calendar</h1>'),
  },
  {
    id: 'perf-blocking-bundles', host: 'bundles.test', path: '/', kind: 'both', about: 'four render-blocking scripts (~910 KiB) and two stylesheets (~200 KiB) in the head',
    html: article('Bundle Co', 'Bundle Co: a single-page shop built on a framework', 'Our shop runs on a big framework: four bundles and two stylesheets load before anything paints on the screen.', 'bundles.test', '<link rel="stylesheet" href="/theme.css"><link rel="stylesheet" href="/fonts.css"><script src="/polyfills.js"></script><script src="/vendor.js"></script><script src="/app.js"></script><script src="/analytics.js"></script>', '<h1>Shop the collection</h1>'),
  },
  {
    id: 'perf-long-task', host: 'heavy.test', path: '/', kind: 'both', about: 'a 650 ms main-thread task after load (a widget script)',
    html: article('Heavy Co', 'Heavy Co: live chat and widgets on every page', 'A support page with a chat widget, a recommendations carousel and a survey, all started by one script at load.', 'heavy.test', '<script src="/widgets.js" defer></script>', '<h1>How can we help?</h1>'),
  },
  {
    id: 'perf-medium-task', host: 'busy.test', path: '/', kind: 'both', about: 'a 320 ms main-thread task after load (an A/B testing script)',
    html: article('Busy Co', 'Busy Co: pricing plans for teams of every size', 'Compare the Starter, Team and Business plans: seats, storage, support hours and what each costs per month or year.', 'busy.test', '<script src="/ab-test.js" defer></script>', '<h1>Plans and pricing</h1>'),
  },
  {
    id: 'perf-heavy-hero', host: 'media.test', path: '/', kind: 'both', about: 'a 1.5 MB hero JPEG at the top of the page',
    html: article('Media Co', 'Media Co: photo stories from the high mountains', 'Photo stories from a summer in the high mountains: ridges at dawn, glacier crossings and the huts along the way.', 'media.test', '', '<img src="/hero.jpg" alt="A ridge at dawn above the clouds" width="1600" height="1000"><h1>A summer above the clouds</h1>'),
  },
  {
    id: 'perf-lazy-hero', host: 'media.test', path: '/lazy', kind: 'both', about: 'the same hero image, lazy-loaded (it is the LCP element)',
    html: doc({ title: 'Media Co: glacier crossings, a photo essay', description: 'A photo essay on crossing glaciers safely: ropes, crevasse rescue practice and the early starts that make it possible.', canonical: 'http://media.test/lazy', body: `<main><img src="/hero.jpg" loading="lazy" alt="A rope team on a glacier" width="1600" height="1000"><h1>Crossing the glacier</h1>${paragraphs(6, 3)}</main>${footer('Media Co')}` }),
  },
  {
    id: 'perf-late-banner', host: 'ads.test', path: '/', kind: 'both', about: 'a promo banner pushed in above the content 1 s after load (layout shift)',
    html: article('Ads Co', 'Ads Co: deals of the week on outdoor gear', 'The best deals of the week on shoes, jackets and packs from twenty shops, checked every morning by our editors.', 'ads.test', '<script src="/ads.js" async></script>', '<h1>Deals of the week</h1>'),
  },
  {
    id: 'perf-worst', host: 'worst.test', path: '/', kind: 'both', delayMs: 900, about: 'a slow server (0.9 s), 900 KiB of blocking script, a 1.5 MB hero, an 800 ms task and a late banner',
    html: article('Worst Co', 'Worst Co: everything a heavy news portal loads', 'A portal that loads every tag, widget and framework it has ever added, before and after it paints its first headline.', 'worst.test', '<link rel="stylesheet" href="/theme.css"><script src="/vendor.js"></script><script src="/app.js"></script><script src="/tags.js" defer></script>', '<img src="/hero.jpg" alt="Crowds at a finish line" width="1600" height="1000"><h1>Today\'s headlines</h1>'),
  },
  {
    id: 'perf-many-tasks', host: 'tasks.test', path: '/', kind: 'both', about: 'a blocking bundle and two widget scripts: 450 ms and 380 ms of main-thread work after load',
    html: article('Tasks Co', 'Tasks Co: a help centre with chat and a survey', 'Answers to common questions about orders, returns and sizing, with live chat and a short survey after each article.', 'tasks.test', '<script src="/app.js"></script><script src="/chat.js" defer></script><script src="/survey.js" defer></script>', '<h1>Help centre</h1>'),
  },
  {
    id: 'perf-shifting', host: 'shifty.test', path: '/', kind: 'both', about: 'a late banner and images without dimensions that grow after load (two layout shifts)',
    html: doc({ title: 'Shifty Co: classifieds for used outdoor gear', description: 'Buy and sell used tents, packs, shoes and jackets from runners and hikers near you, with photos and fair prices.', canonical: 'http://shifty.test/', head: '<script src="/ads.js" async></script>', body: `<main><h1>Used gear near you</h1>${Array.from({ length: 3 }, (_, i) => `<img data-late alt="Listing ${i + 1}" src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/%3E" style="width:100%;height:0;display:block;background:#ccc">${paragraphs(2, i)}`).join('')}</main>${footer('Shifty Co')}` }),
  },
  {
    id: 'perf-everything', host: 'mixed.test', path: '/', kind: 'both', about: 'a blocking bundle, a 1.2 MP hero, a late banner and a 400 ms task together',
    html: article('Mixed Co', 'Mixed Co: the magazine for trail runners', 'Training plans, race reports and gear tests for trail runners, in a magazine that loads everything it can find.', 'mixed.test', '<script src="/bundle.js"></script><script src="/late.js" defer></script>', '<img src="/hero.jpg" alt="Runners at the start line" width="1200" height="750"><h1>The trail runner\'s magazine</h1>'),
  },
];
