import { defineUnitConverter } from './unit-table.ts';

const FT2 = 0.3048 ** 2; // m²
const MI2 = 1609.344 ** 2; // m²

export const areaConverter = defineUnitConverter({
  quantity: 'area',
  title: 'Area converter',
  baseUnit: 'm²',
  notes:
    'Squares of the exact lengths (ft = 0.3048 m, mi = 1609.344 m); acre = 43560 ft² = 4046.8564224 m²; hectare = 10000 m²; are = 100 m².',
  aliases: ['square feet to square meters', 'acres to hectares', 'sq ft', 'land area converter', 'surface area units'],
  units: [
    { symbol: 'm²', name: 'square metre', aliases: ['square meter', 'square meters', 'sq m', 'sqm'], factor: 1 },
    { symbol: 'km²', name: 'square kilometre', aliases: ['square kilometer', 'square kilometers', 'sq km'], factor: 1e6 },
    { symbol: 'cm²', name: 'square centimetre', aliases: ['square centimeter', 'square centimeters', 'sq cm'], factor: 1e-4 },
    { symbol: 'mm²', name: 'square millimetre', aliases: ['square millimeter', 'square millimeters', 'sq mm'], factor: 1e-6 },
    { symbol: 'ha', name: 'hectare', factor: 1e4 },
    { symbol: 'a', name: 'are', factor: 100 },
    { symbol: 'in²', name: 'square inch', plural: 'square inches', aliases: ['sq in'], factor: FT2 / 144 },
    { symbol: 'ft²', name: 'square foot', plural: 'square feet', aliases: ['sq ft', 'sqft', 'sf'], factor: FT2 },
    { symbol: 'yd²', name: 'square yard', aliases: ['sq yd'], factor: FT2 * 9 },
    { symbol: 'ac', name: 'acre', factor: FT2 * 43560 },
    { symbol: 'mi²', name: 'square mile', aliases: ['sq mi'], factor: MI2 },
  ],
  examples: [
    {
      title: 'An acre in square metres',
      input: { value: 1, from: 'acre', to: 'm2' },
      output: { value: 1, from: 'ac', fromName: 'acre', to: 'm²', toName: 'square metre', result: 4046.856422, factor: 4046.856422, offset: 0, formula: 'm² = ac × 4046.856422' },
    },
  ],
});
