import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

const DAYS_PER_MONTH = 30;

const row = z.object({
  month: z.number().int(),
  dailyViews: z.number().describe('Average daily views that month, 2 decimals'),
  views: z.number().describe('Views that month, rounded to a whole number'),
  earnings: z.number().describe('Earnings that month'),
  cumulativeEarnings: z.number().describe('Earnings up to and including that month'),
});

export const earningsProjection = defineTool({
  family: 'video-tools',
  slug: 'earnings-projection',
  title: 'Video earnings projection',
  description:
    'Month-by-month projection of video earnings with compounding view growth. Month k has daily views = dailyViews × ' +
    '(1 + growth/100)^(k−1), views = round(daily views × 30) (30-day months) and earnings = views / 1000 × RPM rounded to ' +
    '2 decimals. Totals are the sums of the monthly rows. Growth may be negative (decline), down to −100%.',
  aliases: ['earnings forecast', 'video income projection', 'channel revenue forecast', 'views growth projection', 'rpm projection'],
  credits: 1,
  input: z.object({
    dailyViews: z.number().min(0).max(1e9).describe('Current average views per day').meta({ unit: 'views per day' }),
    rpm: z.number().min(0).max(1000).describe('Revenue per 1,000 views').meta({ unit: 'per 1,000 views' }),
    monthlyGrowthPercent: z.number().min(-100).max(100).default(0).describe('View growth per month in percent (default 0)').meta({ unit: 'percent per month' }),
    months: z.number().int().min(1).max(120).describe('Number of months to project').meta({ unit: 'months' }),
  }),
  output: z.object({
    months: z.array(row),
    totalViews: z.number(),
    totalEarnings: z.number(),
    averageMonthlyEarnings: z.number().describe('Total earnings / months, 2 decimals'),
  }),
  examples: [
    {
      title: '1,000 daily views at RPM 4 growing 10% a month, 3 months',
      input: { dailyViews: 1000, rpm: 4, monthlyGrowthPercent: 10, months: 3 },
      output: {
        months: [
          { month: 1, dailyViews: 1000, views: 30000, earnings: 120, cumulativeEarnings: 120 },
          { month: 2, dailyViews: 1100, views: 33000, earnings: 132, cumulativeEarnings: 252 },
          { month: 3, dailyViews: 1210, views: 36300, earnings: 145.2, cumulativeEarnings: 397.2 },
        ],
        totalViews: 99300,
        totalEarnings: 397.2,
        averageMonthlyEarnings: 132.4,
      },
    },
  ],
  run({ dailyViews, rpm, monthlyGrowthPercent, months }) {
    const rows: z.infer<typeof row>[] = [];
    let totalViews = 0;
    let totalEarnings = 0;
    for (let month = 1; month <= months; month++) {
      const daily = dailyViews * (1 + monthlyGrowthPercent / 100) ** (month - 1);
      const views = Math.round(Number((daily * DAYS_PER_MONTH).toPrecision(15)));
      const earnings = roundTo((views / 1000) * rpm, 2);
      totalViews += views;
      totalEarnings = roundTo(totalEarnings + earnings, 2);
      rows.push({ month, dailyViews: roundTo(daily, 2), views, earnings, cumulativeEarnings: totalEarnings });
    }
    return {
      months: rows,
      totalViews,
      totalEarnings,
      averageMonthlyEarnings: roundTo(totalEarnings / months, 2),
    };
  },
});
