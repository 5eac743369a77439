import { defineUnitConverter } from './unit-table.ts';

const FT_LBF = 0.3048 * 0.45359237 * 9.80665; // J, exact from ft, lb and standard gravity

export const energyConverter = defineUnitConverter({
  quantity: 'energy',
  title: 'Energy converter',
  baseUnit: 'J',
  notes:
    'cal is the thermochemical calorie (4.184 J); kcal (food Calorie, "Cal") = 4184 J; Wh = 3600 J; ' +
    'BTU is the International Table BTU (1055.05585262 J); eV = 1.602176634e-19 J (exact since 2019); ' +
    'ft·lbf = 0.3048 m × 0.45359237 kg × 9.80665 m/s²; erg = 1e-7 J; US therm = 105480400 J.',
  aliases: ['joules to calories', 'kcal to kJ', 'kWh to joules', 'BTU converter', 'electronvolt', 'work and heat units'],
  units: [
    { symbol: 'J', name: 'joule', factor: 1 },
    { symbol: 'kJ', name: 'kilojoule', factor: 1e3 },
    { symbol: 'MJ', name: 'megajoule', factor: 1e6 },
    { symbol: 'GJ', name: 'gigajoule', factor: 1e9 },
    { symbol: 'cal', name: 'calorie', aliases: ['thermochemical calorie'], factor: 4.184 },
    { symbol: 'kcal', name: 'kilocalorie', aliases: ['Cal', 'food calorie', 'food calories'], factor: 4184 },
    { symbol: 'Wh', name: 'watt-hour', aliases: ['watt hour', 'watt hours'], factor: 3600 },
    { symbol: 'kWh', name: 'kilowatt-hour', aliases: ['kilowatt hour', 'kilowatt hours'], factor: 3.6e6 },
    { symbol: 'MWh', name: 'megawatt-hour', aliases: ['megawatt hour', 'megawatt hours'], factor: 3.6e9 },
    { symbol: 'eV', name: 'electronvolt', aliases: ['electron volt', 'electron volts'], factor: 1.602176634e-19 },
    { symbol: 'BTU', name: 'British thermal unit', aliases: ['btu_it', 'btus'], factor: 1055.05585262 },
    { symbol: 'ft·lbf', name: 'foot-pound', aliases: ['ft·lb', 'ft-lbf', 'ft-lb', 'foot pound', 'foot pounds', 'foot-pounds'], factor: FT_LBF },
    { symbol: 'erg', name: 'erg', factor: 1e-7 },
    { symbol: 'thm', name: 'therm', aliases: ['us therm'], factor: 105480400 },
  ],
  examples: [
    {
      title: 'A 250 kcal snack in kilojoules',
      input: { value: 250, from: 'kcal', to: 'kJ' },
      output: { value: 250, from: 'kcal', fromName: 'kilocalorie', to: 'kJ', toName: 'kilojoule', result: 1046, factor: 4.184, offset: 0, formula: 'kJ = kcal × 4.184' },
    },
  ],
});
