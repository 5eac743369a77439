// Image alternative text: images with no alt at all, linked images whose empty alt leaves the link
// without a name, and alt text that is only a file name. An empty alt on an image that is not a
// link's only content marks it decorative, which is correct; those are counted, not reported.
import type { Element } from 'domhandler';
import { makeFinding, type Finding, type Report } from '../findings.ts';
import { attr, closest, hasAttr, parseHtml, snippetOf, textOf, type HtmlDocument } from '../html-document.ts';
import type { PageFacts } from '../page-facts.ts';
import { buildReport, checkFrom, type Analyzer, type RuleDefinition } from '../scoring.ts';

export const IMAGE_RULES = {
  missing: {
    id: 'image-alt-missing', category: 'accessibility', weight: 10, severity: 'medium', title: 'Image without alt text', audit: 'image-alt',
    many: {
      title: '{count} images have no alt attribute',
      change: 'Add an alt attribute to each of the {count} images without one: a short description of what it shows, or alt="" if it is decoration.',
      acceptance: 'No image without an alt attribute (or an aria-label) remains on the page.',
    },
  },
  emptyLink: {
    id: 'image-alt-empty-link', category: 'accessibility', weight: 7, severity: 'high', title: 'Linked image with empty alt leaves the link unnamed',
    many: {
      title: '{count} linked images with an empty alt leave their links unnamed',
      change: 'Set the alt of each of the {count} images that are a link\'s only content to where the link goes (for example alt="Home").',
      acceptance: 'Every link whose only content is an image has a name: the image\'s alt or the link\'s text is not empty.',
    },
  },
  filename: {
    id: 'image-alt-filename', category: 'accessibility', weight: 2, severity: 'low', title: 'Alt text is a file name',
    many: {
      title: '{count} images have a file name as alt text',
      change: 'Replace the alt of each of the {count} images whose alt is a file name with a short description of what it shows.',
      acceptance: 'No image on the page has a file name as its alt text.',
    },
  },
} as const satisfies Record<string, RuleDefinition>;

export const rules: readonly RuleDefinition[] = Object.values(IMAGE_RULES);

const FILE_NAME = /^[\w\-. ]+\.(png|jpe?g|gif|webp|avif|svg|bmp|ico)$/i;

export function analyze(html: string, facts: PageFacts | null, url: string): Report {
  return analyzeDocument(parseHtml(html, url), facts, url);
}

export function analyzeDocument(doc: HtmlDocument, _facts: PageFacts | null, _url: string): Report {
  const images = [
    ...doc.byTag('img'),
    ...doc.byTag('input').filter((i) => (attr(i, 'type') ?? '').toLowerCase() === 'image'),
  ];
  const findings: Finding[] = [];
  let decorative = 0;
  let described = 0;
  for (const image of images) {
    if (hiddenFromAssistiveTech(image)) {
      decorative++;
      continue;
    }
    const label = (attr(image, 'aria-label') ?? '').trim() !== '' || (attr(image, 'aria-labelledby') ?? '').trim() !== '';
    const alt = attr(image, 'alt');
    const selector = doc.locate(image);
    const evidence = { selector, snippet: snippetOf(image), line: doc.lineOf(image) };
    const src = attr(image, 'src') ?? '';
    if (alt === undefined && !label) {
      findings.push(
        makeFinding({
          rule: IMAGE_RULES.missing.id,
          category: 'accessibility',
          severity: IMAGE_RULES.missing.severity,
          location: selector,
          title: IMAGE_RULES.missing.title,
          detail: `The image ${src || selector} has no alt attribute: screen readers read its file name or nothing, and search engines get no description.`,
          evidence,
          fix: {
            patchType: 'html',
            change: `Add alt="…" describing the image at ${selector}, or alt="" if it is decoration.`,
            acceptance: `The image at ${selector} has an alt attribute.`,
            roleHint: 'edit',
          },
        }),
      );
      continue;
    }
    const link = closest(image, 'a');
    if (alt !== undefined && alt.trim() === '' && !label) {
      if (link && textOf(link, { includeAlt: true }) === '' && (attr(link, 'aria-label') ?? '').trim() === '') {
        findings.push(
          makeFinding({
            rule: IMAGE_RULES.emptyLink.id,
            category: 'accessibility',
            severity: IMAGE_RULES.emptyLink.severity,
            location: selector,
            title: IMAGE_RULES.emptyLink.title,
            detail: `The image is the only content of a link to ${attr(link, 'href') ?? '(no href)'}, and its empty alt gives the link no name.`,
            evidence,
            fix: {
              patchType: 'html',
              change: `Set the alt of the image at ${selector} to where the link goes (for example alt="Home").`,
              acceptance: `The link around ${selector} has a name: the image's alt or the link's text is not empty.`,
              roleHint: 'edit',
            },
          }),
        );
      } else decorative++;
      continue;
    }
    described++;
    if (alt !== undefined && FILE_NAME.test(alt.trim())) {
      findings.push(
        makeFinding({
          rule: IMAGE_RULES.filename.id,
          category: 'accessibility',
          severity: IMAGE_RULES.filename.severity,
          location: selector,
          title: IMAGE_RULES.filename.title,
          detail: `The alt text "${alt.trim().slice(0, 120)}" is a file name, not a description.`,
          evidence,
          fix: {
            patchType: 'content',
            change: `Replace the alt of the image at ${selector} with a short description of what it shows.`,
            acceptance: `The alt of the image at ${selector} is not a file name.`,
            roleHint: 'edit',
          },
        }),
      );
    }
  }
  // A page without images has nothing wrong with its images: every rule passes.
  return buildReport({
    categories: ['accessibility'],
    checks: rules.map((rule) => checkFrom(rule, findings)),
    findings,
    rules,
    notes: doc.notes,
    details: { images: images.length, described, decorative },
  });
}

/** role=presentation/none or aria-hidden: meant to be skipped, so no alt is needed. */
function hiddenFromAssistiveTech(image: Element): boolean {
  const role = (attr(image, 'role') ?? '').trim().toLowerCase();
  return role === 'presentation' || role === 'none' || (attr(image, 'aria-hidden') ?? '').trim() === 'true' || hasAttr(image, 'hidden');
}

export const imageAltAnalyzer: Analyzer = {
  id: 'image-alt',
  categories: ['accessibility'],
  rules,
  analyze,
  analyzeDocument,
};
