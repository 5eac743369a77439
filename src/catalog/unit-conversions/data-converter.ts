import { defineUnitConverter } from './unit-table.ts';

// Base unit: byte. SI prefixes are powers of 1000, IEC binary prefixes powers of 1024.
export const dataConverter = defineUnitConverter({
  quantity: 'data',
  title: 'Digital storage converter',
  baseUnit: 'B',
  notes:
    'A byte is 8 bits. SI units are powers of 1000 (kB = 1000 B, MB = 10^6 B, ...); IEC binary units are powers of 1024 ' +
    '(KiB = 1024 B, MiB = 1024² B, ...). Bits and bytes differ only by case in short symbols (Mb = megabit, MB = megabyte): ' +
    'an exact-case symbol is always honoured, and a spelling that matches both only when case is ignored (e.g. "mb") is a 400 asking for the exact case.',
  aliases: ['data storage converter', 'bytes to megabytes', 'GB to GiB', 'MiB to MB', 'bits to bytes', 'file size converter'],
  units: [
    { symbol: 'bit', name: 'bit', aliases: ['b'], factor: 1 / 8 },
    { symbol: 'B', name: 'byte', aliases: ['octet', 'octets'], factor: 1 },
    { symbol: 'kB', name: 'kilobyte', aliases: ['KB'], factor: 1e3 },
    { symbol: 'MB', name: 'megabyte', factor: 1e6 },
    { symbol: 'GB', name: 'gigabyte', factor: 1e9 },
    { symbol: 'TB', name: 'terabyte', factor: 1e12 },
    { symbol: 'PB', name: 'petabyte', factor: 1e15 },
    { symbol: 'KiB', name: 'kibibyte', aliases: ['kiB'], factor: 1024 },
    { symbol: 'MiB', name: 'mebibyte', factor: 1024 ** 2 },
    { symbol: 'GiB', name: 'gibibyte', factor: 1024 ** 3 },
    { symbol: 'TiB', name: 'tebibyte', factor: 1024 ** 4 },
    { symbol: 'PiB', name: 'pebibyte', factor: 1024 ** 5 },
    { symbol: 'kbit', name: 'kilobit', aliases: ['kb', 'Kb'], factor: 1e3 / 8 },
    { symbol: 'Mbit', name: 'megabit', aliases: ['Mb'], factor: 1e6 / 8 },
    { symbol: 'Gbit', name: 'gigabit', aliases: ['Gb'], factor: 1e9 / 8 },
    { symbol: 'Tbit', name: 'terabit', aliases: ['Tb'], factor: 1e12 / 8 },
    { symbol: 'Kibit', name: 'kibibit', aliases: ['Kib'], factor: 1024 / 8 },
    { symbol: 'Mibit', name: 'mebibit', aliases: ['Mib'], factor: 1024 ** 2 / 8 },
    { symbol: 'Gibit', name: 'gibibit', aliases: ['Gib'], factor: 1024 ** 3 / 8 },
  ],
  examples: [
    {
      title: 'One GiB in GB',
      input: { value: 1, from: 'GiB', to: 'GB' },
      output: { value: 1, from: 'GiB', fromName: 'gibibyte', to: 'GB', toName: 'gigabyte', result: 1.073741824, factor: 1.073741824, offset: 0, formula: 'GB = GiB × 1.073741824' },
    },
    {
      title: 'A 500 GB disk in GiB',
      input: { from: '500 GB', to: 'gibibytes' },
      output: { value: 500, from: 'GB', fromName: 'gigabyte', to: 'GiB', toName: 'gibibyte', result: 465.6612873, factor: 0.9313225746, offset: 0, formula: 'GiB = GB × 0.9313225746' },
    },
  ],
});
