import { z } from 'zod';
import { defineTool, type ToolDefinition, type ToolExample } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';

// The shared machinery of the unit-conversions family. Each quantity is a table of units, every
// unit defined against the quantity's base unit by an exact definitional factor (and, for
// temperature, an offset). `defineUnitConverter` turns a table into a tool, so adding a quantity
// is adding a table, not another copy of the conversion code.

/** Significant digits kept in `result` and `factor`. */
export const SIGNIFICANT_DIGITS = 10;

export interface UnitDef {
  /** Canonical symbol, returned in the output and listed in `allowed`. Matched exactly and case-insensitively. */
  symbol: string;
  /** Singular name, e.g. "kilogram"; matched with an appended "s" too unless `plural` is given. */
  name: string;
  /** Plural name when it is not `name + "s"` (foot → feet). */
  plural?: string;
  /** More spellings: other symbols, spellings, abbreviations. */
  aliases?: readonly string[];
  /** base = (value + offset) × factor. */
  factor: number;
  /** Added before scaling; only affine quantities (temperature) use it. Default 0. */
  offset?: number;
}

export interface UnitTableSpec {
  /** The quantity in words, e.g. "mass"; the slug is `${quantity}-converter` unless `slug` is given. */
  quantity: string;
  slug?: string;
  title: string;
  /** Symbol of the unit whose factor is 1. */
  baseUnit: string;
  units: readonly UnitDef[];
  /** Appended to the generated description: what the units are, which definitions are used. */
  notes: string;
  aliases: readonly string[];
  /** When set, an amount whose base value is negative (below 0 K for temperature) is a 400 with this message. */
  negativeBaseMessage?: string;
  examples: readonly ToolExample<UnitConverterInput, UnitConverterOutput>[];
}

export const unitConverterInput = z.object({
  value: z
    .number()
    .optional()
    .describe('The amount to convert. May be omitted when `from` carries it, e.g. "5 kg".'),
  from: z
    .string()
    .min(1)
    .max(100)
    .describe('Unit to convert from, by symbol or name (case-insensitive), or a quantity such as "5 kg".'),
  to: z.string().min(1).max(100).describe('Unit to convert to, by symbol or name (case-insensitive).'),
});

export const unitConverterOutput = z.object({
  value: z.number().describe('The amount converted'),
  from: z.string().describe('Canonical symbol of the source unit'),
  fromName: z.string().describe('Name of the source unit'),
  to: z.string().describe('Canonical symbol of the target unit'),
  toName: z.string().describe('Name of the target unit'),
  result: z.number().describe(`The converted amount, rounded to ${SIGNIFICANT_DIGITS} significant digits`),
  factor: z.number().describe(`How many target units one source unit is (${SIGNIFICANT_DIGITS} significant digits)`),
  offset: z.number().describe('Added after multiplying by factor: 0 except for temperature'),
  formula: z.string().describe('The conversion as text, e.g. "lb = kg × 2.204622622"'),
});

export type UnitConverterInput = z.input<typeof unitConverterInput>;
export type UnitConverterOutput = z.output<typeof unitConverterOutput>;

/** Rounds to `SIGNIFICANT_DIGITS` significant digits; never returns -0. */
export function toSignificant(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x === 0 ? 0 : x;
  return Number(x.toPrecision(SIGNIFICANT_DIGITS)) || 0;
}

/** Canonical spelling keeping case: "°C" → "C", "m²"/"m^2" → "m2", "km / h" → "km/h", "μ" → "µ". */
function caseKeepingKey(raw: string): string {
  return raw
    .normalize('NFKC')
    .replace(/[°º^]/g, '')
    .replace(/²/g, '2')
    .replace(/³/g, '3')
    .replace(/μ/g, 'µ')
    .replace(/\s*\/\s*/g, '/')
    .replace(/\s*[·*⋅]\s*/g, '·')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The case-insensitive key of a spelling. */
export function normalizeUnitKey(raw: string): string {
  return caseKeepingKey(raw).toLowerCase();
}

interface UnitIndex {
  exact: Map<string, UnitDef>;
  folded: Map<string, UnitDef[]>;
}

function spellings(unit: UnitDef): string[] {
  return [unit.symbol, unit.name, unit.plural ?? `${unit.name}s`, ...(unit.aliases ?? [])];
}

function buildIndex(quantity: string, units: readonly UnitDef[]): UnitIndex {
  const exact = new Map<string, UnitDef>();
  const folded = new Map<string, UnitDef[]>();
  for (const unit of units) {
    for (const spelling of spellings(unit)) {
      const key = caseKeepingKey(spelling);
      const owner = exact.get(key);
      if (owner !== undefined && owner !== unit) {
        throw new Error(`${quantity} units: "${spelling}" names both ${owner.symbol} and ${unit.symbol}`);
      }
      exact.set(key, unit);
      const lower = normalizeUnitKey(spelling);
      const list = folded.get(lower) ?? [];
      if (!list.includes(unit)) list.push(unit);
      folded.set(lower, list);
    }
  }
  return { exact, folded };
}

type Lookup = { unit: UnitDef } | { ambiguous: UnitDef[] } | undefined;

function lookup(index: UnitIndex, raw: string): Lookup {
  const hit = index.exact.get(caseKeepingKey(raw));
  if (hit !== undefined) return { unit: hit };
  const folded = index.folded.get(normalizeUnitKey(raw));
  if (folded === undefined) return undefined;
  const [only] = folded;
  if (folded.length === 1 && only !== undefined) return { unit: only };
  return { ambiguous: folded };
}

// A number (optionally signed, with a decimal point, thousands commas or an exponent).
const NUMBER = /^[+-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;

/** Splits "5 kg" / "-3.2e3 J" / "1,000 lb" into its number and unit text; undefined if it does not start with a number. */
export function splitQuantity(raw: string): { value: number; unit: string } | undefined {
  const trimmed = raw.trim();
  const match = NUMBER.exec(trimmed);
  if (match === null) return undefined;
  const unit = trimmed.slice(match[0].length).trim();
  if (unit === '') return undefined;
  const value = Number(match[0].replace(/,/g, ''));
  if (!Number.isFinite(value)) {
    throw invalidInput('The amount in `from` is too large', [{ field: 'from', message: `${match[0]} is not a finite 64-bit number` }]);
  }
  return { value, unit };
}

function formatNumber(x: number): string {
  return String(toSignificant(x));
}

export function defineUnitConverter(spec: UnitTableSpec): ToolDefinition<typeof unitConverterInput, typeof unitConverterOutput> {
  const index = buildIndex(spec.quantity, spec.units);
  const base = spec.units.find((u) => u.symbol === spec.baseUnit);
  if (base === undefined || base.factor !== 1 || (base.offset ?? 0) !== 0) {
    throw new Error(`${spec.quantity} units: base unit ${spec.baseUnit} must exist with factor 1 and no offset`);
  }
  const allowed = spec.units.map((u) => u.symbol);
  const unitList = spec.units.map((u) => `${u.symbol} (${u.name})`).join(', ');
  const sampleQuantity = spec.examples.map((e) => e.input.from).find((f) => splitQuantity(f) !== undefined) ?? `5 ${spec.baseUnit}`;

  function resolve(field: 'from' | 'to', raw: string): UnitDef {
    const found = lookup(index, raw);
    if (found === undefined) {
      throw invalidInput(`Unknown ${spec.quantity} unit "${raw}"`, [
        { field, message: `unknown ${spec.quantity} unit "${raw}"; use one of the allowed symbols or their names`, allowed },
      ]);
    }
    if ('ambiguous' in found) {
      const options = found.ambiguous.map((u) => u.symbol);
      throw invalidInput(`Ambiguous ${spec.quantity} unit "${raw}"`, [
        { field, message: `"${raw}" could mean ${options.join(' or ')}; write the symbol with its exact case`, allowed: options },
      ]);
    }
    return found.unit;
  }

  return defineTool({
    family: 'unit-conversions',
    slug: spec.slug ?? `${spec.quantity}-converter`,
    title: spec.title,
    description:
      `Converts a ${spec.quantity} from one unit to another. Units are matched case-insensitively by symbol or name ` +
      `(singular or plural; where case alone tells two units apart, an exact-case symbol wins and a case-folded spelling ` +
      `matching both is a 400); \`from\` may also carry the amount, e.g. "${sampleQuantity}". ` +
      `The result and factor are rounded to ${SIGNIFICANT_DIGITS} significant digits; the conversion uses exact definitional factors. ` +
      `An unknown unit is a 400 listing the accepted symbols. ${spec.notes} Units: ${unitList}.`,
    aliases: spec.aliases,
    credits: 1,
    input: unitConverterInput,
    output: unitConverterOutput,
    examples: spec.examples,
    run(input) {
      let value = input.value;
      let fromUnit: UnitDef;
      const direct = lookup(index, input.from);
      const quantity = direct === undefined ? splitQuantity(input.from) : undefined;
      if (quantity !== undefined) {
        if (value !== undefined && value !== quantity.value) {
          throw invalidInput('`value` and the amount in `from` disagree', [
            { field: 'value', message: `is ${value} but \`from\` says ${quantity.value}; give the amount once` },
          ]);
        }
        value = quantity.value;
        fromUnit = resolve('from', quantity.unit);
      } else {
        fromUnit = resolve('from', input.from);
      }
      const toUnit = resolve('to', input.to);
      if (value === undefined) {
        throw invalidInput('No amount to convert', [
          { field: 'value', message: 'required unless `from` carries the amount, e.g. "5 kg"' },
        ]);
      }

      const fromOffset = fromUnit.offset ?? 0;
      const toOffset = toUnit.offset ?? 0;
      const baseValue = (value + fromOffset) * fromUnit.factor;
      // Factors are positive, so the base value is negative exactly when value + offset is.
      if (spec.negativeBaseMessage !== undefined && value + fromOffset < 0) {
        throw invalidInput(`${value} ${fromUnit.symbol} ${spec.negativeBaseMessage}`, [
          { field: input.value === undefined ? 'from' : 'value', message: spec.negativeBaseMessage },
        ]);
      }
      const raw = fromUnit === toUnit ? value : baseValue / toUnit.factor - toOffset;
      if (!Number.isFinite(raw)) {
        throw invalidInput('The result is too large to represent', [
          { field: input.value === undefined ? 'from' : 'value', message: 'converted amount overflows a 64-bit float' },
        ]);
      }
      const factor = toSignificant(fromUnit.factor / toUnit.factor);
      const offset = toSignificant(fromOffset * (fromUnit.factor / toUnit.factor) - toOffset);
      const scaled = `${fromUnit.symbol} × ${formatNumber(factor)}`;
      const formula =
        offset === 0
          ? `${toUnit.symbol} = ${scaled}`
          : `${toUnit.symbol} = ${scaled} ${offset < 0 ? '−' : '+'} ${formatNumber(Math.abs(offset))}`;
      return {
        value,
        from: fromUnit.symbol,
        fromName: fromUnit.name,
        to: toUnit.symbol,
        toName: toUnit.name,
        result: toSignificant(raw),
        factor,
        offset,
        formula,
      };
    },
  });
}
