import { defineUnitConverter } from './unit-table.ts';

const DAY = 86400;
const YEAR = 365.2425 * DAY; // mean Gregorian year

export const timeConverter = defineUnitConverter({
  quantity: 'time',
  title: 'Time converter',
  baseUnit: 's',
  notes:
    'Calendar units are averages: year = mean Gregorian year of 365.2425 days; month = 1/12 of it (30.436875 days); ' +
    'decade and century are 10 and 100 such years. Days are 86400 s (no leap seconds).',
  aliases: ['duration converter', 'seconds to hours', 'minutes to seconds', 'days to weeks', 'time unit conversion'],
  units: [
    { symbol: 's', name: 'second', aliases: ['sec', 'secs'], factor: 1 },
    { symbol: 'ns', name: 'nanosecond', factor: 1e-9 },
    { symbol: 'µs', name: 'microsecond', aliases: ['us'], factor: 1e-6 },
    { symbol: 'ms', name: 'millisecond', aliases: ['msec'], factor: 1e-3 },
    { symbol: 'min', name: 'minute', aliases: ['mins'], factor: 60 },
    { symbol: 'h', name: 'hour', aliases: ['hr', 'hrs'], factor: 3600 },
    { symbol: 'd', name: 'day', factor: DAY },
    { symbol: 'wk', name: 'week', aliases: ['wks'], factor: 7 * DAY },
    { symbol: 'mo', name: 'month', aliases: ['mos', 'mon'], factor: YEAR / 12 },
    { symbol: 'yr', name: 'year', aliases: ['yrs', 'y', 'a'], factor: YEAR },
    { symbol: 'decade', name: 'decade', factor: 10 * YEAR },
    { symbol: 'century', name: 'century', plural: 'centuries', factor: 100 * YEAR },
  ],
  examples: [
    {
      title: '90 minutes in hours',
      input: { value: 90, from: 'minutes', to: 'h' },
      output: { value: 90, from: 'min', fromName: 'minute', to: 'h', toName: 'hour', result: 1.5, factor: 0.01666666667, offset: 0, formula: 'h = min × 0.01666666667' },
    },
    {
      title: 'A week in seconds',
      input: { from: '1 week', to: 's' },
      output: { value: 1, from: 'wk', fromName: 'week', to: 's', toName: 'second', result: 604800, factor: 604800, offset: 0, formula: 's = wk × 604800' },
    },
  ],
});
