// robots-sitemap-checker on HTML passed in (MCP local mode): robots.txt and sitemaps belong to a
// site, and HTML with no address is served by none, so no robots.txt rule applies to it yet. The
// tool declares this analyzer as its htmlAnalyzers so a playbook that checks crawlability (seo-audit)
// still runs free on local HTML: every robots.txt and sitemap rule is not applicable, and the
// report says to check them at the deployed URL. Nothing is judged, so a job of this tool alone
// on HTML is "unknown", never a pass. The page's own robots directives (meta robots, X-Robots-Tag)
// are judged by meta-tags (meta-robots-noindex) in either mode.
import type { Report } from '../findings.ts';
import { buildReport, notApplicable, type Analyzer } from '../scoring.ts';
import { rules } from './robots-sitemap.ts';

export const LOCAL_ROBOTS_INFO =
  'robots.txt and sitemaps are read from the site: HTML passed in has no address, so none applies yet. Run robots-sitemap-checker (or the playbook with input.url) on the public URL once the page is deployed.';

function localReport(): Report {
  return buildReport({ categories: ['seo'], checks: rules.map(notApplicable), findings: [], rules, info: [LOCAL_ROBOTS_INFO], details: { local: true } });
}

export const robotsSitemapLocalAnalyzer: Analyzer = {
  id: 'robots-sitemap-local',
  categories: ['seo'],
  rules,
  analyze: () => localReport(),
  analyzeDocument: () => localReport(),
};
