import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

export const videoRpmCalculator = defineTool({
  family: 'video-tools',
  slug: 'video-rpm-calculator',
  title: 'Video RPM earnings calculator',
  description:
    'Estimated creator earnings of a video from its views and RPM (revenue per 1,000 views): earnings = views / 1000 × RPM. ' +
    'Also the earnings per single view (6 decimals) and per million views. Money is rounded to 2 decimals.',
  aliases: ['rpm calculator', 'video earnings', 'video revenue estimate', 'revenue per mille', 'views to money', 'creator earnings'],
  credits: 1,
  input: z.object({
    views: z.number().int().min(0).max(1e12).describe('Number of views').meta({ unit: 'views' }),
    rpm: z.number().min(0).max(1000).describe('Revenue per 1,000 views, in your currency').meta({ unit: 'per 1,000 views' }),
  }),
  output: z.object({
    estimatedEarnings: z.number().describe('views / 1000 × RPM, 2 decimals'),
    earningsPerView: z.number().describe('RPM / 1000, 6 decimals'),
    earningsPerMillionViews: z.number().describe('RPM × 1000, 2 decimals'),
  }),
  examples: [
    {
      title: '250,000 views at RPM 3.50',
      input: { views: 250000, rpm: 3.5 },
      output: { estimatedEarnings: 875, earningsPerView: 0.0035, earningsPerMillionViews: 3500 },
    },
  ],
  run({ views, rpm }) {
    return {
      estimatedEarnings: roundTo((views / 1000) * rpm, 2),
      earningsPerView: roundTo(rpm / 1000, 6),
      earningsPerMillionViews: roundTo(rpm * 1000, 2),
    };
  },
});
