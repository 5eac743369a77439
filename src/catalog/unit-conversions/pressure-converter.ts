import { defineUnitConverter } from './unit-table.ts';

const G = 9.80665; // standard gravity, m/s²
const MMHG = 13595.1 * G * 1e-3; // conventional millimetre of mercury = 133.322387415 Pa

export const pressureConverter = defineUnitConverter({
  quantity: 'pressure',
  title: 'Pressure converter',
  baseUnit: 'Pa',
  notes:
    'atm = 101325 Pa; bar = 100000 Pa; torr = 1/760 atm; psi = lbf/in² = 0.45359237 × 9.80665 / 0.0254² Pa; ' +
    'mmHg and inHg are the conventional values (13595.1 kg/m³ × 9.80665 m/s² per metre of mercury: 133.322387415 Pa per mm).',
  aliases: ['psi to bar', 'bar to psi', 'kPa converter', 'atmospheres', 'tire pressure', 'mmHg to kPa'],
  units: [
    { symbol: 'Pa', name: 'pascal', aliases: ['N/m2'], factor: 1 },
    { symbol: 'hPa', name: 'hectopascal', factor: 100 },
    { symbol: 'kPa', name: 'kilopascal', factor: 1e3 },
    { symbol: 'MPa', name: 'megapascal', factor: 1e6 },
    { symbol: 'GPa', name: 'gigapascal', factor: 1e9 },
    { symbol: 'bar', name: 'bar', aliases: ['bars'], factor: 1e5 },
    { symbol: 'mbar', name: 'millibar', aliases: ['mb'], factor: 100 },
    { symbol: 'atm', name: 'standard atmosphere', aliases: ['atmosphere', 'atmospheres'], factor: 101325 },
    { symbol: 'Torr', name: 'torr', factor: 101325 / 760 },
    { symbol: 'mmHg', name: 'millimetre of mercury', plural: 'millimetres of mercury', aliases: ['millimeter of mercury', 'millimeters of mercury', 'mm hg'], factor: MMHG },
    { symbol: 'inHg', name: 'inch of mercury', plural: 'inches of mercury', aliases: ['in hg', '"hg'], factor: MMHG * 25.4 },
    { symbol: 'psi', name: 'pound per square inch', plural: 'pounds per square inch', aliases: ['lbf/in2', 'lb/in2'], factor: (0.45359237 * G) / 0.0254 ** 2 },
    { symbol: 'ksi', name: 'kilopound per square inch', aliases: ['kpsi'], factor: (453.59237 * G) / 0.0254 ** 2 },
  ],
  examples: [
    {
      title: 'Tyre pressure, 32 psi, in bar',
      input: { from: '32 psi', to: 'bar' },
      output: { value: 32, from: 'psi', fromName: 'pound per square inch', to: 'bar', toName: 'bar', result: 2.206322334, factor: 0.06894757293, offset: 0, formula: 'bar = psi × 0.06894757293' },
    },
    {
      title: 'One atmosphere in mmHg',
      input: { value: 1, from: 'atm', to: 'mmHg' },
      output: { value: 1, from: 'atm', fromName: 'standard atmosphere', to: 'mmHg', toName: 'millimetre of mercury', result: 759.9998917, factor: 759.9998917, offset: 0, formula: 'mmHg = atm × 759.9998917' },
    },
  ],
});
