import { defineUnitConverter } from './unit-table.ts';

const IN = 0.0254; // m, exact (international inch, 1959)

export const lengthConverter = defineUnitConverter({
  quantity: 'length',
  title: 'Length converter',
  baseUnit: 'm',
  notes:
    'Inch = 0.0254 m exactly; foot = 12 in; yard = 3 ft; mile = 1760 yd = 1609.344 m; nautical mile = 1852 m; ' +
    'mil (thou) = 0.001 in; light-year = 9460730472580800 m (Julian year × c); astronomical unit = 149597870700 m.',
  aliases: ['distance converter', 'miles to km', 'feet to meters', 'inches to cm', 'metric to imperial length'],
  units: [
    { symbol: 'm', name: 'metre', aliases: ['meter', 'meters', 'mtr'], factor: 1 },
    { symbol: 'km', name: 'kilometre', aliases: ['kilometer', 'kilometers', 'kms'], factor: 1000 },
    { symbol: 'cm', name: 'centimetre', aliases: ['centimeter', 'centimeters'], factor: 0.01 },
    { symbol: 'mm', name: 'millimetre', aliases: ['millimeter', 'millimeters'], factor: 0.001 },
    { symbol: 'µm', name: 'micrometre', aliases: ['um', 'micrometer', 'micrometers', 'micron', 'microns'], factor: 1e-6 },
    { symbol: 'nm', name: 'nanometre', aliases: ['nanometer', 'nanometers'], factor: 1e-9 },
    { symbol: 'in', name: 'inch', plural: 'inches', aliases: ['"', '″'], factor: IN },
    { symbol: 'ft', name: 'foot', plural: 'feet', aliases: ["'", '′'], factor: IN * 12 },
    { symbol: 'yd', name: 'yard', aliases: ['yds'], factor: IN * 36 },
    { symbol: 'mi', name: 'mile', aliases: ['statute mile', 'statute miles'], factor: IN * 63360 },
    { symbol: 'nmi', name: 'nautical mile', aliases: ['NM'], factor: 1852 },
    { symbol: 'mil', name: 'mil', aliases: ['thou', 'thous'], factor: IN / 1000 },
    { symbol: 'ly', name: 'light-year', aliases: ['light year', 'light years', 'lightyear', 'lightyears'], factor: 9460730472580800 },
    { symbol: 'au', name: 'astronomical unit', aliases: ['AU', 'ua'], factor: 149597870700 },
  ],
  examples: [
    {
      title: 'One mile in metres',
      input: { value: 1, from: 'mile', to: 'm' },
      output: { value: 1, from: 'mi', fromName: 'mile', to: 'm', toName: 'metre', result: 1609.344, factor: 1609.344, offset: 0, formula: 'm = mi × 1609.344' },
    },
    {
      title: '6 feet in centimetres',
      input: { from: '6 ft', to: 'centimeters' },
      output: { value: 6, from: 'ft', fromName: 'foot', to: 'cm', toName: 'centimetre', result: 182.88, factor: 30.48, offset: 0, formula: 'cm = ft × 30.48' },
    },
  ],
});
