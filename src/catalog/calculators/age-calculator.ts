import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';

interface CivilDate {
  y: number;
  m: number; // 1..12
  d: number; // 1..31
}

function parseIsoDate(iso: string): CivilDate {
  const [y, m, d] = iso.split('-').map(Number);
  return { y: y ?? 0, m: m ?? 1, d: d ?? 1 };
}

function formatIsoDate({ y, m, d }: CivilDate): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 31;
}

/** Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function dayNumber({ y, m, d }: CivilDate): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** `date` plus `months` calendar months, clamping the day to the end of a shorter month (31 Jan + 1 month = 28/29 Feb). */
function addMonths(date: CivilDate, months: number): CivilDate {
  const index = date.y * 12 + (date.m - 1) + months;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  return { y, m, d: Math.min(date.d, daysInMonth(y, m)) };
}

function compare(a: CivilDate, b: CivilDate): number {
  return dayNumber(a) - dayNumber(b);
}

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

const isoDate = z.iso.date();

export const ageCalculator = defineTool({
  family: 'calculators',
  slug: 'age-calculator',
  title: 'Age calculator',
  description:
    'Exact age between a birth date and a reference date (default: today in UTC), both ISO dates (YYYY-MM-DD). ' +
    'Age is the number of whole calendar years and months since birth, then the remaining days. A monthly anniversary that ' +
    'falls on a day the month lacks is moved to the month\'s last day, so someone born on 29 February turns a year older on ' +
    '28 February in common years. Also returns the total days and whole months lived, the next birthday and the days until ' +
    'it (0 on the birthday itself). A birth date after the reference date is a 400 naming birthDate.',
  aliases: ['age', 'how old am i', 'date of birth', 'birthday calculator', 'age in days', 'years months days between dates'],
  credits: 1,
  input: z.object({
    birthDate: isoDate.describe('Date of birth, YYYY-MM-DD'),
    asOf: isoDate.optional().describe('Date to compute the age at, YYYY-MM-DD; default today (UTC)'),
  }),
  output: z.object({
    years: z.number().int().describe('Whole years'),
    months: z.number().int().describe('Whole months after the years'),
    days: z.number().int().describe('Days after the years and months'),
    totalMonths: z.number().int().describe('Whole months since birth'),
    totalDays: z.number().int().describe('Days since birth'),
    asOf: z.string().describe('The reference date used'),
    nextBirthday: z.string().describe('Date of the next birthday (the reference date itself on a birthday)'),
    daysUntilNextBirthday: z.number().int(),
  }),
  examples: [
    {
      title: 'Born 1990-05-15, as of 2024-03-10',
      input: { birthDate: '1990-05-15', asOf: '2024-03-10' },
      output: {
        years: 33,
        months: 9,
        days: 24,
        totalMonths: 405,
        totalDays: 12353,
        asOf: '2024-03-10',
        nextBirthday: '2024-05-15',
        daysUntilNextBirthday: 66,
      },
    },
  ],
  run({ birthDate, asOf }) {
    const asOfIso = asOf ?? todayUtc();
    const birth = parseIsoDate(birthDate);
    const ref = parseIsoDate(asOfIso);
    if (compare(birth, ref) > 0) {
      throw invalidInput('The birth date is after the reference date', [
        { field: 'birthDate', message: `must not be after ${asOfIso}` },
      ]);
    }
    let totalMonths = (ref.y - birth.y) * 12 + (ref.m - birth.m);
    if (compare(addMonths(birth, totalMonths), ref) > 0) totalMonths -= 1;
    const anniversary = addMonths(birth, totalMonths);
    const years = Math.floor(totalMonths / 12);
    const onBirthday = totalMonths % 12 === 0 && compare(anniversary, ref) === 0;
    const next = onBirthday ? ref : addMonths(birth, (years + 1) * 12);
    return {
      years,
      months: totalMonths % 12,
      days: compare(ref, anniversary),
      totalMonths,
      totalDays: compare(ref, birth),
      asOf: asOfIso,
      nextBirthday: formatIsoDate(next),
      daysUntilNextBirthday: compare(next, ref),
    };
  },
});
