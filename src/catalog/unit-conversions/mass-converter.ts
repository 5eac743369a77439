import { defineUnitConverter } from './unit-table.ts';

const LB = 0.45359237; // kg, exact (international yard and pound, 1959)

export const massConverter = defineUnitConverter({
  quantity: 'mass',
  title: 'Mass converter',
  baseUnit: 'kg',
  notes:
    'Pound = 0.45359237 kg exactly; ounce = 1/16 lb; stone = 14 lb; short (US) ton = 2000 lb; long (imperial) ton = 2240 lb; ' +
    'grain = 1/7000 lb; troy ounce = 480 grains; carat = 200 mg.',
  aliases: ['weight converter', 'kg to lb', 'pounds to kilograms', 'grams to ounces', 'stone to kg', 'mass unit conversion'],
  units: [
    { symbol: 'kg', name: 'kilogram', aliases: ['kilo', 'kilos', 'kilogramme', 'kilogrammes', 'kgs'], factor: 1 },
    { symbol: 'g', name: 'gram', aliases: ['gramme', 'grammes', 'gm'], factor: 1e-3 },
    { symbol: 'mg', name: 'milligram', aliases: ['milligramme'], factor: 1e-6 },
    { symbol: 'µg', name: 'microgram', aliases: ['ug', 'mcg', 'microgramme'], factor: 1e-9 },
    { symbol: 't', name: 'tonne', aliases: ['metric ton', 'metric tons', 'mt'], factor: 1000 },
    { symbol: 'lb', name: 'pound', aliases: ['lbs', 'lbm'], factor: LB },
    { symbol: 'oz', name: 'ounce', aliases: ['ozs'], factor: LB / 16 },
    { symbol: 'st', name: 'stone', plural: 'stones', factor: LB * 14 },
    { symbol: 'ton', name: 'short ton', aliases: ['us ton', 'us tons', 'tn', 'tons'], factor: LB * 2000 },
    { symbol: 'long ton', name: 'long ton', aliases: ['imperial ton', 'imperial tons', 'uk ton', 'uk tons'], factor: LB * 2240 },
    { symbol: 'gr', name: 'grain', factor: LB / 7000 },
    { symbol: 'ozt', name: 'troy ounce', aliases: ['oz t', 'troy oz'], factor: (LB / 7000) * 480 },
    { symbol: 'ct', name: 'carat', factor: 2e-4 },
  ],
  examples: [
    {
      title: '5 kg in pounds, amount in the `from` string',
      input: { from: '5 kg', to: 'lb' },
      output: {
        value: 5,
        from: 'kg',
        fromName: 'kilogram',
        to: 'lb',
        toName: 'pound',
        result: 11.02311311,
        factor: 2.204622622,
        offset: 0,
        formula: 'lb = kg × 2.204622622',
      },
    },
    {
      title: '12 stone in kilograms',
      input: { value: 12, from: 'stone', to: 'kilograms' },
      output: {
        value: 12,
        from: 'st',
        fromName: 'stone',
        to: 'kg',
        toName: 'kilogram',
        result: 76.20351816,
        factor: 6.35029318,
        offset: 0,
        formula: 'kg = st × 6.35029318',
      },
    },
  ],
});
