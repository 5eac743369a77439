import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../support/run-tool.ts';
import { isServiceError, type ServiceError } from '../../src/core/errors.ts';
import type { AnyTool } from '../../src/core/define-tool.ts';
import { massConverter } from '../../src/catalog/unit-conversions/mass-converter.ts';
import { lengthConverter } from '../../src/catalog/unit-conversions/length-converter.ts';
import { temperatureConverter } from '../../src/catalog/unit-conversions/temperature-converter.ts';
import { volumeConverter } from '../../src/catalog/unit-conversions/volume-converter.ts';
import { areaConverter } from '../../src/catalog/unit-conversions/area-converter.ts';
import { speedConverter } from '../../src/catalog/unit-conversions/speed-converter.ts';
import { timeConverter } from '../../src/catalog/unit-conversions/time-converter.ts';
import { dataConverter } from '../../src/catalog/unit-conversions/data-converter.ts';
import { energyConverter } from '../../src/catalog/unit-conversions/energy-converter.ts';
import { pressureConverter } from '../../src/catalog/unit-conversions/pressure-converter.ts';
import { normalizeUnitKey, splitQuantity, toSignificant } from '../../src/catalog/unit-conversions/unit-table.ts';

const ALL: AnyTool[] = [
  massConverter,
  lengthConverter,
  temperatureConverter,
  volumeConverter,
  areaConverter,
  speedConverter,
  timeConverter,
  dataConverter,
  energyConverter,
  pressureConverter,
];

interface Conversion {
  value: number;
  from: string;
  to: string;
  result: number;
  factor: number;
  offset: number;
  formula: string;
}

async function convert(tool: AnyTool, input: Record<string, unknown>): Promise<Conversion> {
  return (await runTool(tool, input)).result as Conversion;
}

async function result(tool: AnyTool, value: number, from: string, to: string): Promise<number> {
  return (await convert(tool, { value, from, to })).result;
}

/** Asserts that `promise` rejects with a 400 validation_error whose first issue names `field`; returns the error. */
async function rejects400(promise: Promise<unknown>, field: string): Promise<ServiceError> {
  let caught: unknown;
  await assert.rejects(promise, (error) => {
    caught = error;
    return true;
  });
  assert.ok(isServiceError(caught), `expected a ServiceError, got ${String(caught)}`);
  assert.equal(caught.status, 400);
  assert.equal(caught.error, 'validation_error');
  const issues = caught.extra.issues as { field: string; allowed?: (string | number)[] }[];
  assert.equal(issues[0]?.field, field);
  return caught;
}

describe('unit-conversions family', () => {
  it('has one converter per quantity with the expected slugs', () => {
    assert.deepEqual(
      ALL.map((t) => t.operationId),
      [
        'unit_conversions_mass_converter',
        'unit_conversions_length_converter',
        'unit_conversions_temperature_converter',
        'unit_conversions_volume_converter',
        'unit_conversions_area_converter',
        'unit_conversions_speed_converter',
        'unit_conversions_time_converter',
        'unit_conversions_data_converter',
        'unit_conversions_energy_converter',
        'unit_conversions_pressure_converter',
      ],
    );
    for (const tool of ALL) {
      assert.equal(tool.credits, 1);
      assert.ok(tool.aliases.length > 0);
      assert.ok(tool.examples.length > 0);
      assert.match(tool.description, /10 significant digits/);
    }
  });
});

describe('mass-converter', () => {
  it('converts 5 kg to 11.02311311 lb (5 / 0.45359237), the amount given inside `from`', async () => {
    assert.deepEqual(await convert(massConverter, { from: '5 kg', to: 'lb' }), {
      value: 5,
      from: 'kg',
      fromName: 'kilogram',
      to: 'lb',
      toName: 'pound',
      result: 11.02311311,
      factor: 2.204622622,
      offset: 0,
      formula: 'lb = kg × 2.204622622',
    });
  });

  it('matches units by symbol, name and plural, ignoring case', async () => {
    assert.equal(await result(massConverter, 1, 'POUNDS', 'Grams'), 453.59237);
    assert.equal(await result(massConverter, 1, 'LBS', 'kilogram'), 0.45359237);
    assert.equal(await result(massConverter, 16, 'oz', 'lb'), 1);
    assert.equal(await result(massConverter, 1, 'stone', 'lb'), 14);
    assert.equal(await result(massConverter, 2, 'tonnes', 'kg'), 2000);
    assert.equal(await result(massConverter, 1, 'ton', 'lb'), 2000);
    assert.equal(await result(massConverter, 1, 'long ton', 'kg'), 1016.046909); // 2240 × 0.45359237 = 1016.0469088
    assert.equal(await result(massConverter, 1500, 'mg', 'g'), 1.5);
    assert.equal(await result(massConverter, 1, 'troy ounce', 'g'), 31.1034768);
    assert.equal(await result(massConverter, 5, 'ct', 'g'), 1);
  });

  it('accepts a matching `value` next to the amount in `from`, and rejects a different one', async () => {
    assert.equal((await convert(massConverter, { value: 5, from: '5 kg', to: 'g' })).result, 5000);
    await rejects400(runTool(massConverter, { value: 6, from: '5 kg', to: 'g' }), 'value');
  });

  it('needs an amount somewhere', async () => {
    await rejects400(runTool(massConverter, { from: 'kg', to: 'g' }), 'value');
  });

  it('answers an unknown unit with a 400 naming the field and listing the accepted symbols', async () => {
    const error = await rejects400(runTool(massConverter, { value: 1, from: 'furlong', to: 'kg' }), 'from');
    const issues = error.extra.issues as { field: string; allowed: string[] }[];
    assert.ok(issues[0]?.allowed.includes('kg'));
    assert.ok(issues[0]?.allowed.includes('lb'));
    const toError = await rejects400(runTool(massConverter, { from: '3 kg', to: 'parsec' }), 'to');
    assert.ok((toError.extra.issues as { allowed: string[] }[])[0]?.allowed.includes('oz'));
    // A number followed by an unknown unit is also an unknown `from` unit.
    await rejects400(runTool(massConverter, { from: '3 furlongs', to: 'kg' }), 'from');
  });

  it('rejects a non-numeric value through the schema', async () => {
    await rejects400(runTool(massConverter, { value: '5', from: 'kg', to: 'g' }), 'value');
  });
});

describe('length-converter', () => {
  it('uses the exact international definitions', async () => {
    assert.equal(await result(lengthConverter, 1, 'mile', 'm'), 1609.344);
    assert.equal(await result(lengthConverter, 1, 'in', 'cm'), 2.54);
    assert.equal(await result(lengthConverter, 1, 'foot', 'm'), 0.3048);
    assert.equal(await result(lengthConverter, 3, 'feet', 'yd'), 1);
    assert.equal(await result(lengthConverter, 1, 'nmi', 'km'), 1.852);
    assert.equal(await result(lengthConverter, 10, 'km', 'mi'), 6.213711922); // 10000 / 1609.344 = 6.2137119224
    assert.equal(await result(lengthConverter, 1, 'meters', 'inches'), 39.37007874); // 1 / 0.0254
    assert.equal(await result(lengthConverter, 1000, 'mil', 'in'), 1);
  });

  it('parses amounts with signs, decimals, exponents and thousands separators', async () => {
    assert.equal((await convert(lengthConverter, { from: '1,500 m', to: 'km' })).result, 1.5);
    assert.equal((await convert(lengthConverter, { from: '2.5e3m', to: 'km' })).result, 2.5);
    assert.equal((await convert(lengthConverter, { from: '.5 in', to: 'mm' })).result, 12.7);
    assert.equal((await convert(lengthConverter, { from: '-2 ft', to: 'in' })).result, -24);
  });

  it('tells nanometres from nautical miles by case', async () => {
    assert.equal(await result(lengthConverter, 1, 'nm', 'm'), 1e-9);
    assert.equal(await result(lengthConverter, 1, 'NM', 'm'), 1852);
  });
});

describe('temperature-converter', () => {
  it('converts 100 °F to 37.77777778 °C and shows the affine formula', async () => {
    assert.deepEqual(await convert(temperatureConverter, { value: 100, from: 'F', to: 'C' }), {
      value: 100,
      from: '°F',
      fromName: 'degree Fahrenheit',
      to: '°C',
      toName: 'degree Celsius',
      result: 37.77777778,
      factor: 0.5555555556,
      offset: -17.77777778,
      formula: '°C = °F × 0.5555555556 − 17.77777778',
    });
  });

  it('handles Celsius, Fahrenheit, kelvin and Rankine', async () => {
    assert.equal(await result(temperatureConverter, 0, '°C', '°F'), 32);
    assert.equal(await result(temperatureConverter, 100, 'celsius', 'fahrenheit'), 212);
    assert.equal(await result(temperatureConverter, -40, 'C', 'F'), -40);
    assert.equal(await result(temperatureConverter, 0, 'K', 'C'), -273.15);
    assert.equal(await result(temperatureConverter, 25, 'degrees celsius', 'kelvin'), 298.15);
    assert.equal(await result(temperatureConverter, 0, 'F', 'R'), 459.67);
    assert.equal(await result(temperatureConverter, 100, 'K', 'rankine'), 180);
    assert.equal(await result(temperatureConverter, 32, 'F', 'K'), 273.15);
    const f = await convert(temperatureConverter, { from: '20 °C', to: 'K' });
    assert.equal(f.formula, 'K = °C × 1 + 273.15');
  });

  it('accepts absolute zero exactly but rejects anything colder', async () => {
    assert.equal(await result(temperatureConverter, -273.15, 'C', 'K'), 0);
    assert.equal(await result(temperatureConverter, -459.67, 'F', 'C'), -273.15);
    await rejects400(runTool(temperatureConverter, { value: -274, from: 'C', to: 'F' }), 'value');
    await rejects400(runTool(temperatureConverter, { value: -1, from: 'K', to: 'C' }), 'value');
    await rejects400(runTool(temperatureConverter, { from: '-500 F', to: 'C' }), 'from');
  });
});

describe('data-converter', () => {
  it('distinguishes SI and IEC prefixes: 1 GiB = 1.073741824 GB', async () => {
    assert.equal(await result(dataConverter, 1, 'GiB', 'GB'), 1.073741824);
    assert.equal(await result(dataConverter, 1, 'KiB', 'B'), 1024);
    assert.equal(await result(dataConverter, 1, 'kB', 'B'), 1000);
    assert.equal(await result(dataConverter, 1, 'TiB', 'TB'), 1.099511628); // 1024^4 / 10^12 = 1.099511627776
    assert.equal(await result(dataConverter, 500, 'GB', 'GiB'), 465.6612873);
    assert.equal(await result(dataConverter, 1, 'byte', 'bits'), 8);
    assert.equal(await result(dataConverter, 100, 'Mbit', 'MB'), 12.5);
  });

  it('uses case to tell bits from bytes and refuses to guess when case is lost', async () => {
    assert.equal(await result(dataConverter, 1, 'Mb', 'B'), 125000);
    assert.equal(await result(dataConverter, 1, 'MB', 'B'), 1000000);
    assert.equal(await result(dataConverter, 1, 'megabytes', 'B'), 1000000);
    const error = await rejects400(runTool(dataConverter, { value: 1, from: 'mb', to: 'B' }), 'from');
    assert.deepEqual((error.extra.issues as { allowed: string[] }[])[0]?.allowed, ['MB', 'Mbit']);
  });

  it('rejects a result too large for a double', async () => {
    await rejects400(runTool(dataConverter, { value: 1e308, from: 'PiB', to: 'bit' }), 'value');
  });
});

describe('other quantities', () => {
  it('volume', async () => {
    assert.equal(await result(volumeConverter, 1, 'gallon', 'liters'), 3.785411784);
    assert.equal(await result(volumeConverter, 1, 'imp gal', 'L'), 4.54609);
    assert.equal(await result(volumeConverter, 1, 'cup', 'ml'), 236.5882365); // 3785.411784 / 16 = 236.5882365
    assert.equal(await result(volumeConverter, 3, 'tsp', 'tbsp'), 1);
    assert.equal(await result(volumeConverter, 1, 'ft3', 'L'), 28.31684659); // 0.3048^3 m³ = 28.316846592 L
    assert.equal(await result(volumeConverter, 1, 'm³', 'L'), 1000);
  });

  it('area', async () => {
    assert.equal(await result(areaConverter, 1, 'acre', 'm2'), 4046.856422);
    assert.equal(await result(areaConverter, 1, 'ha', 'm^2'), 10000);
    assert.equal(await result(areaConverter, 1, 'square mile', 'acres'), 640);
    assert.equal(await result(areaConverter, 1, 'ft²', 'in²'), 144);
    assert.equal(await result(areaConverter, 1, 'sq ft', 'm²'), 0.09290304);
  });

  it('speed', async () => {
    assert.equal(await result(speedConverter, 60, 'mph', 'km/h'), 96.56064);
    assert.equal(await result(speedConverter, 36, 'kph', 'm/s'), 10);
    assert.equal(await result(speedConverter, 1, 'knot', 'km/h'), 1.852);
    assert.equal(await result(speedConverter, 1, 'c', 'km/s'), 299792.458);
  });

  it('time', async () => {
    assert.equal(await result(timeConverter, 1, 'day', 's'), 86400);
    assert.equal(await result(timeConverter, 90, 'minutes', 'hours'), 1.5);
    assert.equal(await result(timeConverter, 1, 'year', 'days'), 365.2425);
    assert.equal(await result(timeConverter, 1, 'month', 'days'), 30.436875);
    assert.equal(await result(timeConverter, 1500, 'ms', 's'), 1.5);
  });

  it('energy', async () => {
    assert.equal(await result(energyConverter, 1, 'kWh', 'MJ'), 3.6);
    assert.equal(await result(energyConverter, 1, 'kcal', 'J'), 4184);
    assert.equal(await result(energyConverter, 1, 'Cal', 'cal'), 1000);
    assert.equal(await result(energyConverter, 1, 'BTU', 'J'), 1055.055853);
    assert.equal(await result(energyConverter, 1, 'ft·lbf', 'J'), 1.355817948); // 0.3048 × 0.45359237 × 9.80665
    assert.equal(await result(energyConverter, 1, 'eV', 'J'), 1.602176634e-19);
  });

  it('pressure', async () => {
    assert.equal(await result(pressureConverter, 1, 'atm', 'bar'), 1.01325);
    assert.equal(await result(pressureConverter, 1, 'psi', 'Pa'), 6894.757293); // 0.45359237 × 9.80665 / 0.0254²
    assert.equal(await result(pressureConverter, 760, 'Torr', 'atm'), 1);
    assert.equal(await result(pressureConverter, 1, 'mmHg', 'Pa'), 133.3223874);
    assert.equal(await result(pressureConverter, 1, 'inHg', 'hPa'), 33.8638864);
  });

  it('converts every unit to itself unchanged and round-trips through the base unit', async () => {
    for (const tool of ALL) {
      const allowed = await runTool(tool, { value: 1, from: 'not-a-unit', to: 'x' }).then(
        () => [] as string[],
        (e: ServiceError) => (e.extra.issues as { allowed: string[] }[])[0]?.allowed ?? [],
      );
      assert.ok(allowed.length >= 4, `${tool.slug} lists its units`);
      for (const symbol of allowed) {
        assert.equal(await result(tool, 300, symbol, symbol), 300, `${tool.slug} ${symbol}`);
        const first = allowed[0] ?? '';
        const there = await result(tool, 300, symbol, first);
        const back = (await convert(tool, { value: there, from: first, to: symbol })).result;
        assert.ok(Math.abs(back - 300) < 1e-6, `${tool.slug} ${symbol} round trip gave ${back}`);
      }
    }
  });
});

describe('unit-table helpers', () => {
  it('normalizes spellings', () => {
    assert.equal(normalizeUnitKey(' °C '), 'c');
    assert.equal(normalizeUnitKey('m²'), 'm2');
    assert.equal(normalizeUnitKey('km / h'), 'km/h');
    assert.equal(normalizeUnitKey('℃'), 'c');
  });

  it('splits quantities', () => {
    assert.deepEqual(splitQuantity('5 kg'), { value: 5, unit: 'kg' });
    assert.deepEqual(splitQuantity('-1.5e2 °F'), { value: -150, unit: '°F' });
    assert.deepEqual(splitQuantity('1,000,000 B'), { value: 1000000, unit: 'B' });
    assert.equal(splitQuantity('kg'), undefined);
    assert.equal(splitQuantity('5'), undefined);
  });

  it('rounds to 10 significant digits', () => {
    assert.equal(toSignificant(1 / 3), 0.3333333333);
    assert.equal(toSignificant(123456789012), 123456789000);
    assert.equal(toSignificant(-0), 0);
  });
});
