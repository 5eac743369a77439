import { defineUnitConverter } from './unit-table.ts';

// Base unit kelvin; each scale is kelvin = (value + offset) × factor.
export const temperatureConverter = defineUnitConverter({
  quantity: 'temperature',
  title: 'Temperature converter',
  baseUnit: 'K',
  notes:
    'Temperature is affine: K = °C + 273.15; °F = °C × 9/5 + 32; °R = K × 9/5; the formula shows the factor and the offset. ' +
    'Temperatures below absolute zero (0 K) are rejected with a 400.',
  aliases: ['celsius to fahrenheit', 'fahrenheit to celsius', 'kelvin converter', 'rankine', 'temperature unit conversion'],
  negativeBaseMessage: 'is below absolute zero (0 K = −273.15 °C = −459.67 °F)',
  units: [
    { symbol: '°C', name: 'degree Celsius', plural: 'degrees Celsius', aliases: ['C', 'celsius', 'centigrade', 'degC', 'deg C'], factor: 1, offset: 273.15 },
    { symbol: '°F', name: 'degree Fahrenheit', plural: 'degrees Fahrenheit', aliases: ['F', 'fahrenheit', 'degF', 'deg F'], factor: 5 / 9, offset: 459.67 },
    { symbol: 'K', name: 'kelvin', aliases: ['kelvins', 'degree kelvin', 'degrees kelvin', '°K'], factor: 1 },
    { symbol: '°R', name: 'degree Rankine', plural: 'degrees Rankine', aliases: ['R', 'Ra', 'rankine', 'degR'], factor: 5 / 9 },
  ],
  examples: [
    {
      title: '100 °F in Celsius',
      input: { value: 100, from: 'F', to: 'celsius' },
      output: {
        value: 100,
        from: '°F',
        fromName: 'degree Fahrenheit',
        to: '°C',
        toName: 'degree Celsius',
        result: 37.77777778,
        factor: 0.5555555556,
        offset: -17.77777778,
        formula: '°C = °F × 0.5555555556 − 17.77777778',
      },
    },
    {
      title: 'Body temperature, 37 °C, in Fahrenheit',
      input: { from: '37 °C', to: '°F' },
      output: {
        value: 37,
        from: '°C',
        fromName: 'degree Celsius',
        to: '°F',
        toName: 'degree Fahrenheit',
        result: 98.6,
        factor: 1.8,
        offset: 32,
        formula: '°F = °C × 1.8 + 32',
      },
    },
  ],
});
