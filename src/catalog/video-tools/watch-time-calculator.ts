import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';
import { roundTo } from '../../core/numbers.ts';

export const watchTimeCalculator = defineTool({
  family: 'video-tools',
  slug: 'watch-time-calculator',
  title: 'Video watch time calculator',
  description:
    'Total watch time of a video: watch seconds = views × average view duration (seconds), returned in minutes and hours ' +
    'rounded to 2 decimals. With the video length, also the average percentage viewed = average duration / length × 100 ' +
    '(2 decimals; null without the length). An average duration longer than the video is a 400 naming averageViewDurationSeconds.',
  aliases: ['watch time', 'watch hours', 'average view duration', 'audience retention', 'video watch hours'],
  credits: 1,
  input: z.object({
    views: z.number().int().min(0).max(1e12).describe('Number of views').meta({ unit: 'views' }),
    averageViewDurationSeconds: z.number().min(0).max(86400).describe('Average view duration in seconds').meta({ unit: 'seconds' }),
    videoLengthSeconds: z.number().positive().max(86400).optional().describe('Optional video length in seconds').meta({ unit: 'seconds' }),
  }),
  output: z.object({
    watchTimeMinutes: z.number(),
    watchTimeHours: z.number(),
    averagePercentageViewed: z.number().nullable(),
  }),
  examples: [
    {
      title: '12,000 views, average 4:30 of a 10-minute video',
      input: { views: 12000, averageViewDurationSeconds: 270, videoLengthSeconds: 600 },
      output: { watchTimeMinutes: 54000, watchTimeHours: 900, averagePercentageViewed: 45 },
    },
  ],
  run({ views, averageViewDurationSeconds, videoLengthSeconds }) {
    if (videoLengthSeconds !== undefined && averageViewDurationSeconds > videoLengthSeconds) {
      throw invalidInput('The average view duration is longer than the video', [
        { field: 'averageViewDurationSeconds', message: 'must not exceed videoLengthSeconds' },
      ]);
    }
    const seconds = views * averageViewDurationSeconds;
    return {
      watchTimeMinutes: roundTo(seconds / 60, 2),
      watchTimeHours: roundTo(seconds / 3600, 2),
      averagePercentageViewed:
        videoLengthSeconds === undefined ? null : roundTo((averageViewDurationSeconds / videoLengthSeconds) * 100, 2),
    };
  },
});
