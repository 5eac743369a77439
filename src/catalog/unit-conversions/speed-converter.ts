import { defineUnitConverter } from './unit-table.ts';

export const speedConverter = defineUnitConverter({
  quantity: 'speed',
  title: 'Speed converter',
  baseUnit: 'm/s',
  notes: 'mile = 1609.344 m, foot = 0.3048 m, knot = 1852 m per hour; speed of light c = 299792458 m/s.',
  aliases: ['mph to kph', 'km/h to mph', 'knots', 'velocity converter', 'meters per second'],
  units: [
    { symbol: 'm/s', name: 'metre per second', plural: 'metres per second', aliases: ['meter per second', 'meters per second', 'mps', 'm s-1'], factor: 1 },
    { symbol: 'km/h', name: 'kilometre per hour', plural: 'kilometres per hour', aliases: ['kilometer per hour', 'kilometers per hour', 'kph', 'kmh', 'kmph', 'km/hr'], factor: 1000 / 3600 },
    { symbol: 'mph', name: 'mile per hour', plural: 'miles per hour', aliases: ['mi/h', 'mi/hr'], factor: 1609.344 / 3600 },
    { symbol: 'kn', name: 'knot', aliases: ['kt', 'kts', 'nmi/h'], factor: 1852 / 3600 },
    { symbol: 'ft/s', name: 'foot per second', plural: 'feet per second', aliases: ['fps', 'ft/sec'], factor: 0.3048 },
    { symbol: 'km/s', name: 'kilometre per second', plural: 'kilometres per second', aliases: ['kilometer per second', 'kilometers per second'], factor: 1000 },
    { symbol: 'c', name: 'speed of light', aliases: ['light speed', 'lightspeed'], factor: 299792458 },
  ],
  examples: [
    {
      title: '60 mph in km/h',
      input: { from: '60 mph', to: 'kph' },
      output: { value: 60, from: 'mph', fromName: 'mile per hour', to: 'km/h', toName: 'kilometre per hour', result: 96.56064, factor: 1.609344, offset: 0, formula: 'km/h = mph × 1.609344' },
    },
  ],
});
