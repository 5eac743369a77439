import { defineUnitConverter } from './unit-table.ts';

const IN3 = 0.0254 ** 3; // m³
const US_GAL = 231 * IN3; // 3.785411784 L, exact
const IMP_GAL = 0.00454609; // m³, exact (UK Weights and Measures Act 1985)

export const volumeConverter = defineUnitConverter({
  quantity: 'volume',
  title: 'Volume converter',
  baseUnit: 'm³',
  notes:
    'US gallon = 231 in³ = 3.785411784 L; US quart/pint/cup/fl oz/tablespoon/teaspoon = 1/4, 1/8, 1/16, 1/128, 1/256, 1/768 US gal; ' +
    'imperial gallon = 4.54609 L; imperial pint = 1/8 and imperial fl oz = 1/160 imp gal. Bare "gal", "pt", "qt", "cup" and "fl oz" are US.',
  aliases: ['liters to gallons', 'gallons to liters', 'cups to ml', 'cubic feet', 'capacity converter', 'fluid ounces'],
  units: [
    { symbol: 'm³', name: 'cubic metre', aliases: ['cubic meter', 'cubic meters', 'cbm'], factor: 1 },
    { symbol: 'L', name: 'litre', aliases: ['liter', 'liters', 'ltr', 'l'], factor: 1e-3 },
    { symbol: 'mL', name: 'millilitre', aliases: ['milliliter', 'milliliters', 'ml', 'cc'], factor: 1e-6 },
    { symbol: 'cL', name: 'centilitre', aliases: ['centiliter', 'centiliters'], factor: 1e-5 },
    { symbol: 'dL', name: 'decilitre', aliases: ['deciliter', 'deciliters'], factor: 1e-4 },
    { symbol: 'cm³', name: 'cubic centimetre', aliases: ['cubic centimeter', 'cubic centimeters', 'ccm'], factor: 1e-6 },
    { symbol: 'km³', name: 'cubic kilometre', aliases: ['cubic kilometer', 'cubic kilometers'], factor: 1e9 },
    { symbol: 'in³', name: 'cubic inch', plural: 'cubic inches', aliases: ['cu in'], factor: IN3 },
    { symbol: 'ft³', name: 'cubic foot', plural: 'cubic feet', aliases: ['cu ft', 'cf'], factor: IN3 * 1728 },
    { symbol: 'yd³', name: 'cubic yard', aliases: ['cu yd'], factor: IN3 * 46656 },
    { symbol: 'gal', name: 'US gallon', aliases: ['gallon', 'gallons', 'us gal', 'gal (us)'], factor: US_GAL },
    { symbol: 'qt', name: 'US quart', aliases: ['quart', 'quarts', 'us qt'], factor: US_GAL / 4 },
    { symbol: 'pt', name: 'US pint', aliases: ['pint', 'pints', 'us pt'], factor: US_GAL / 8 },
    { symbol: 'cup', name: 'US cup', aliases: ['cups', 'us cup'], factor: US_GAL / 16 },
    { symbol: 'fl oz', name: 'US fluid ounce', aliases: ['floz', 'fluid ounce', 'fluid ounces', 'us fl oz'], factor: US_GAL / 128 },
    { symbol: 'tbsp', name: 'US tablespoon', aliases: ['tablespoon', 'tablespoons', 'tbs', 'tbl'], factor: US_GAL / 256 },
    { symbol: 'tsp', name: 'US teaspoon', aliases: ['teaspoon', 'teaspoons'], factor: US_GAL / 768 },
    { symbol: 'imp gal', name: 'imperial gallon', aliases: ['uk gal', 'uk gallon', 'uk gallons', 'gal (uk)'], factor: IMP_GAL },
    { symbol: 'imp pt', name: 'imperial pint', aliases: ['uk pt', 'uk pint', 'uk pints'], factor: IMP_GAL / 8 },
    { symbol: 'imp fl oz', name: 'imperial fluid ounce', aliases: ['uk fl oz', 'uk fluid ounce', 'uk fluid ounces'], factor: IMP_GAL / 160 },
  ],
  examples: [
    {
      title: 'A US gallon in litres',
      input: { value: 1, from: 'gal', to: 'L' },
      output: { value: 1, from: 'gal', fromName: 'US gallon', to: 'L', toName: 'litre', result: 3.785411784, factor: 3.785411784, offset: 0, formula: 'L = gal × 3.785411784' },
    },
  ],
});
