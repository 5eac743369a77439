import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

const count = (what: string) => z.number().int().min(0).max(1e12).default(0).describe(`Number of ${what} (default 0)`);

export const engagementRateCalculator = defineTool({
  family: 'video-tools',
  slug: 'engagement-rate-calculator',
  title: 'Video engagement rate calculator',
  description:
    'Engagement rate of a video by views: engagements = likes + comments + shares, rate = engagements / views × 100. ' +
    'Also the like, comment and share rates separately (each / views × 100) and the views per engagement (null with no ' +
    'engagements). Percentages and ratios are rounded to 2 decimals.',
  aliases: ['engagement rate', 'video engagement', 'like rate', 'interaction rate', 'social media engagement'],
  credits: 1,
  input: z.object({
    views: z.number().int().min(1).max(1e12).describe('Number of views (at least 1)').meta({ unit: 'views' }),
    likes: count('likes'),
    comments: count('comments'),
    shares: count('shares'),
  }),
  output: z.object({
    engagements: z.number().int().describe('Likes + comments + shares'),
    engagementRatePercent: z.number().describe('Engagements / views × 100'),
    likeRatePercent: z.number(),
    commentRatePercent: z.number(),
    shareRatePercent: z.number(),
    viewsPerEngagement: z.number().nullable().describe('Views / engagements, or null with no engagements'),
  }),
  examples: [
    {
      title: '10,000 views, 450 likes, 30 comments, 20 shares',
      input: { views: 10000, likes: 450, comments: 30, shares: 20 },
      output: {
        engagements: 500,
        engagementRatePercent: 5,
        likeRatePercent: 4.5,
        commentRatePercent: 0.3,
        shareRatePercent: 0.2,
        viewsPerEngagement: 20,
      },
    },
  ],
  run({ views, likes, comments, shares }) {
    const engagements = likes + comments + shares;
    const pct = (n: number) => roundTo((n / views) * 100, 2);
    return {
      engagements,
      engagementRatePercent: pct(engagements),
      likeRatePercent: pct(likes),
      commentRatePercent: pct(comments),
      shareRatePercent: pct(shares),
      viewsPerEngagement: engagements === 0 ? null : roundTo(views / engagements, 2),
    };
  },
});
