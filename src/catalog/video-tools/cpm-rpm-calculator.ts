import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { roundTo } from '../../core/numbers.ts';

const MODES = ['cpm-to-rpm', 'rpm-to-cpm'] as const;

export const cpmRpmCalculator = defineTool({
  family: 'video-tools',
  slug: 'cpm-rpm-calculator',
  title: 'CPM ↔ RPM converter',
  description:
    'Converts between CPM (what advertisers pay per 1,000 monetized ad playbacks) and RPM (what the creator earns per 1,000 ' +
    'views): RPM = CPM × creator share / 100 × monetized playbacks / 100, and back: CPM = RPM / (share / 100 × monetized / 100). ' +
    'The creator share defaults to 55% and the monetized share of views to 100%. With views, also the estimated creator ' +
    'earnings = views / 1000 × RPM (null without views). Money is rounded to 2 decimals; earnings use the unrounded RPM.',
  aliases: ['cpm to rpm', 'rpm to cpm', 'cpm calculator', 'ad revenue share', 'cost per mille', 'video ad earnings'],
  credits: 1,
  input: z.object({
    mode: z.enum(MODES).default('cpm-to-rpm').describe('"cpm-to-rpm": value is a CPM; "rpm-to-cpm": value is an RPM'),
    value: z.number().min(0).max(10000).describe('The CPM or RPM to convert, per 1,000').meta({ unit: 'per 1,000 views' }),
    creatorSharePercent: z
      .number()
      .positive()
      .max(100)
      .default(55)
      .describe('Share of ad revenue paid to the creator, in percent (default 55)')
      .meta({ unit: 'percent' }),
    monetizedPlaybackPercent: z
      .number()
      .positive()
      .max(100)
      .default(100)
      .describe('Share of views that showed an ad, in percent (default 100)')
      .meta({ unit: 'percent' }),
    views: z.number().int().min(0).max(1e12).optional().describe('Optional number of views, to estimate earnings').meta({ unit: 'views' }),
  }),
  output: z.object({
    cpm: z.number().describe('Advertiser cost per 1,000 monetized playbacks'),
    rpm: z.number().describe('Creator revenue per 1,000 views'),
    estimatedEarnings: z.number().nullable().describe('views / 1000 × RPM, or null without views'),
  }),
  examples: [
    {
      title: 'CPM 10 at the default 55% share, 100,000 views',
      input: { mode: 'cpm-to-rpm', value: 10, views: 100000 },
      output: { cpm: 10, rpm: 5.5, estimatedEarnings: 550 },
    },
    {
      title: 'RPM 3 back to CPM with 60% monetized views',
      input: { mode: 'rpm-to-cpm', value: 3, monetizedPlaybackPercent: 60 },
      output: { cpm: 9.09, rpm: 3, estimatedEarnings: null },
    },
  ],
  run({ mode, value, creatorSharePercent, monetizedPlaybackPercent, views }) {
    const factor = (creatorSharePercent / 100) * (monetizedPlaybackPercent / 100);
    const cpm = mode === 'cpm-to-rpm' ? value : value / factor;
    const rpm = mode === 'cpm-to-rpm' ? value * factor : value;
    return {
      cpm: roundTo(cpm, 2),
      rpm: roundTo(rpm, 2),
      estimatedEarnings: views === undefined ? null : roundTo((views / 1000) * rpm, 2),
    };
  },
});
