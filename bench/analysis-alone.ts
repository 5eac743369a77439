/**
 * Analysis alone, no network (issue 9, section 5). Run: `npm run bench:analysis`
 * (node bench/analysis-alone.ts).
 *
 * Builds a realistic page of about 200 KB in code (a head with meta tags, Open Graph, hreflang,
 * scripts, styles and JSON-LD; a body of sections with headings, paragraphs, images with and
 * without alt, srcset, links, forms and tables; a few http:// references on an https page so the
 * mixed-content rules have work) and response facts with a typical set of headers and cookies.
 * Every Analyzer exported from src/analysis/analyzers/*.ts is found by importing each module and
 * taking the exported objects that have analyzeDocument, so analyzers added later are measured
 * without a change here. Each is timed on one shared parse, and then the whole as a URL tool
 * does it (one parse + every analyzer + combining the reports, analyzeFetched), N iterations
 * each after a warm-up, interleaved round by round so a machine whose speed drifts slows every
 * figure alike.
 *
 * Baselines in the same process, so the figures read as ratios on any machine:
 *   - parse: the bounded parse alone (parseHtml), which every analysis pays once;
 *   - JSON.parse: of a JSON document of the same size, a floor for "reading 200 KB of text".
 *
 * It prints median and p99 per analyzer, for the whole, and for the baselines, with each median
 * as a ratio of JSON.parse's. A measurement, not a test: it exits 0 whatever the figures.
 *
 * Environment:
 *   BENCH_ITERATIONS   measured iterations per figure (default 200)
 *   BENCH_WARMUP       warm-up iterations per figure (default 20)
 */
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseHtml } from '../src/analysis/html-document.ts';
import { analyzeFetched } from '../src/analysis/page-analysis.ts';
import type { PageFacts } from '../src/analysis/page-facts.ts';
import type { Analyzer } from '../src/analysis/scoring.ts';
import { envInt } from './support/env.ts';
import { runBench } from './support/run-bench.ts';
import { categoryNav, DESCRIPTION_AND_CANONICAL, growPage, itemListJsonLd, SHOP_PAGE_URL, SOCIAL_META, specRows } from '../test/mcp/support/shop-page.ts';
import { fmtRatio, loadAverage, median, percentile, table } from './support/stats.ts';

const ANALYZERS_DIR = fileURLToPath(new URL('../src/analysis/analyzers/', import.meta.url));
const URL_ = SHOP_PAGE_URL;
const TARGET_BYTES = 200 * 1024;


const ITERATIONS = envInt('BENCH_ITERATIONS', 200);
const WARMUP = envInt('BENCH_WARMUP', 20);

/** Every exported object of every analyzer module that has analyzeDocument. */
async function discoverAnalyzers(): Promise<Analyzer[]> {
  const found: Analyzer[] = [];
  for (const file of readdirSync(ANALYZERS_DIR).filter((f) => f.endsWith('.ts')).sort()) {
    const module = (await import(pathToFileURL(`${ANALYZERS_DIR}${file}`).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (value !== null && typeof value === 'object' && typeof (value as Analyzer).analyzeDocument === 'function' && typeof (value as Analyzer).id === 'string') {
        if (!found.includes(value as Analyzer)) found.push(value as Analyzer);
      }
    }
  }
  return found;
}

const head = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trail running shoes for every terrain | Example Shop</title>
${DESCRIPTION_AND_CANONICAL}
<link rel="alternate" hreflang="en" href="https://shop.example.com/catalog/trail-running">
<link rel="alternate" hreflang="de" href="https://shop.example.com/de/catalog/trail-running">
<link rel="alternate" hreflang="x-default" href="https://shop.example.com/catalog/trail-running">
<meta name="robots" content="index, follow">
${SOCIAL_META}
<meta name="twitter:title" content="Trail running shoes">
<link rel="stylesheet" href="https://cdn.example.com/css/site.css" integrity="sha384-abc" crossorigin="anonymous">
<link rel="stylesheet" href="http://cdn.example.com/css/legacy.css">
<link rel="preload" href="https://cdn.example.com/fonts/inter.woff2" as="font" crossorigin>
<style>
${Array.from({ length: 60 }, (_, i) => `.card-${i}{display:grid;grid-template-columns:1fr 2fr;gap:${i % 8}px;background:url(https://cdn.example.com/bg/${i}.png)}`).join('\n')}
.hero{background:url(http://cdn.example.com/hero.jpg)}
</style>
<script src="https://cdn.example.com/js/app.js" defer></script>
<script src="https://cdn.example.com/js/analytics.js" async></script>
<script src="http://cdn.example.com/js/old-widget.js"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>
${itemListJsonLd(40)}
<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Organization', name: 'Example Shop', url: 'https://shop.example.com/', logo: 'https://cdn.example.com/logo.png' })}</script>
</head>
<body>
${categoryNav(30)}
<main>
<h1>Trail running shoes</h1>
`;

/** One product section: a heading, text, pictures (some without alt), links, a spec table and a small form. */
function section(i: number): string {
  const level = i % 7 === 6 ? 4 : 2;
  const alt = i % 5 === 0 ? '' : i % 5 === 1 ? ' alt="IMG_4411.jpg"' : ` alt="Trail shoe ${i} seen from the side"`;
  const src = i % 9 === 0 ? 'http://cdn.example.com' : 'https://cdn.example.com';
  const rows = specRows(i, 6);
  return `<section id="s${i}" class="card-${i % 60}">
<h${level}>Trail shoe ${i}: ${i % 3 === 0 ? 'cushioned' : 'fast'} and light</h${level}>
<h3>Why runners choose it</h3>
<p>The Trail shoe ${i} has a ${4 + (i % 8)} mm drop, a rock plate and a lugged outsole that bites into mud. <a href="/p/trail-${i}">Read more about model ${i}</a>, compare it with <a href="https://rival.example.com/shoes/${i}" rel="nofollow">a rival model</a>, or see <a href="#reviews-${i}">the reviews</a>.</p>
<picture><source srcset="${src}/img/${i}.avif 1x, ${src}/img/${i}@2x.avif 2x" type="image/avif"><img src="${src}/img/${i}.jpg"${alt} width="640" height="480" loading="lazy"></picture>
<a href="/p/trail-${i}"><img src="https://cdn.example.com/thumb/${i}.jpg"${i % 4 === 0 ? ' alt=""' : ` alt="Model ${i}"`}></a>
<table><caption>Model ${i} specifications</caption><thead><tr><th>Spec</th><th>Stack</th><th>Weight</th></tr></thead><tbody>${rows}</tbody></table>
<form action="${i % 11 === 0 ? 'http' : 'https'}://shop.example.com/cart" method="post"><input type="hidden" name="sku" value="T${i}"><label>Size <select name="size">${Array.from({ length: 8 }, (_, s) => `<option>${38 + s}</option>`).join('')}</select></label><button type="submit">Add to cart</button></form>
<ul id="reviews-${i}">${Array.from({ length: 3 }, (_, r) => `<li><strong>Runner ${r}</strong>: ${r === 0 ? 'Great grip on wet rock.' : r === 1 ? 'Fits true to size.' : 'A bit stiff at first.'}</li>`).join('')}</ul>
</section>
`;
}

const tail = `</main>
<footer><p>&copy; Example Shop</p><iframe src="https://www.example.com/newsletter" title="Newsletter"></iframe></footer>
</body>
</html>
`;

/** The page grown section by section until it reaches the target size. */
function buildPage(): string {
  return growPage(head, section, tail, TARGET_BYTES);
}

function buildFacts(html: string): PageFacts {
  const body = Buffer.from(html, 'utf8');
  return {
    requestedUrl: 'http://shop.example.com/catalog/trail-running',
    finalUrl: URL_,
    redirects: [{ url: 'http://shop.example.com/catalog/trail-running', status: 301, location: URL_ }],
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-encoding': 'gzip',
      'cache-control': 'public, max-age=300',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'content-security-policy': "default-src 'self' https://cdn.example.com; script-src 'self' https://cdn.example.com 'unsafe-inline'; object-src 'none'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      'x-frame-options': 'SAMEORIGIN',
      vary: 'Accept-Encoding',
    },
    setCookies: ['session=abc123; Path=/; Secure; HttpOnly; SameSite=Lax', 'cart=7; Path=/', 'ab=variant-b; Path=/; Secure; Max-Age=86400'],
    remoteAddress: '93.184.215.14',
    timings: { dnsMs: 12, connectMs: 20, tlsMs: 30, ttfbMs: 120, totalMs: 210 },
    tls: {
      protocol: 'TLSv1.3',
      cipher: 'TLS_AES_256_GCM_SHA384',
      chain: [{ subject: 'CN=shop.example.com', issuer: 'CN=Example CA', validFrom: '2025-01-01T00:00:00.000Z', validTo: '2027-01-01T00:00:00.000Z', altNames: ['shop.example.com'] }],
      daysLeft: 200,
      hostnameMatches: true,
      authorized: true,
      authorizationError: null,
    },
    transferBytes: Math.round(body.length / 5),
    body,
    contentEncoding: 'gzip',
    mediaType: 'text/html',
    charset: 'utf-8',
    text: html,
  };
}

/** A JSON document of about the same size: the floor of reading that many characters. */
function sameSizeJson(bytes: number): string {
  const items: unknown[] = [];
  let json = '[]';
  for (let i = 0; json.length < bytes; i++) {
    items.push({ id: i, name: `Trail shoe ${i}`, url: `https://shop.example.com/p/trail-${i}`, specs: [i % 40, 200 + (i % 90), i % 8], tags: ['trail', i % 2 ? 'fast' : 'cushioned'] });
    if (i % 50 === 0) json = JSON.stringify(items);
  }
  return JSON.stringify(items);
}

interface Figure {
  name: string;
  run: () => unknown;
  samples: number[];
}

async function main(): Promise<void> {
  const analyzers = await discoverAnalyzers();
  if (analyzers.length === 0) throw new Error(`no analyzers found in ${ANALYZERS_DIR}`);
  const html = buildPage();
  const facts = buildFacts(html);
  const json = sameSizeJson(Buffer.byteLength(html));
  const doc = parseHtml(html, URL_);

  // A sanity check that the page is analysed in full, not stopped at a limit, and that every analyzer has work.
  const whole = analyzeFetched(analyzers, html, facts, URL_);
  if (doc.notes.length > 0) throw new Error(`the bench page hit a parse limit: ${doc.notes.join('; ')}`);

  let sink = 0;
  const figures: Figure[] = [
    { name: 'baseline: JSON.parse (same size)', run: () => JSON.parse(json) as unknown, samples: [] },
    { name: 'baseline: parse alone (parseHtml)', run: () => parseHtml(html, URL_), samples: [] },
    ...analyzers.map((a) => ({ name: `analyzer ${a.id} (on one shared parse)`, run: () => a.analyzeDocument(doc, facts, URL_), samples: [] as number[] })),
    { name: 'whole: one parse + every analyzer + combine', run: () => analyzeFetched(analyzers, html, facts, URL_), samples: [] },
  ];

  for (const figure of figures) for (let i = 0; i < WARMUP; i++) sink += Number(figure.run() !== undefined);
  // Interleaved: iteration i of every figure before iteration i + 1 of any.
  for (let i = 0; i < ITERATIONS; i++) {
    for (const figure of figures) {
      const t0 = performance.now();
      const out = figure.run();
      figure.samples.push(performance.now() - t0);
      sink += Number(out !== undefined);
    }
  }

  const floor = median(figures[0]!.samples);
  const ms = (v: number): string => v.toFixed(2);
  process.stdout.write(
    `Analysis alone: a ${(Buffer.byteLength(html) / 1024).toFixed(0)} KB page (${doc.elements.length} elements), ${analyzers.length} analyzers, ` +
      `${ITERATIONS} iterations after ${WARMUP} warm-up, node ${process.version}, load ${loadAverage()}\n` +
      `The whole report: ${whole.findings.length} findings, ${whole.checks.length} checks, scores ${JSON.stringify(whole.scores)}\n\n`,
  );
  const rows = [['figure', 'median ms', 'p99 ms', 'median / JSON.parse'], ...figures.map((f) => [f.name, ms(median(f.samples)), ms(percentile(f.samples, 99)), fmtRatio(median(f.samples) / floor)])];
  process.stdout.write(`${table(rows)}\n`);
  if (sink === 0) process.stdout.write('(nothing ran)\n');
}

runBench(main);
