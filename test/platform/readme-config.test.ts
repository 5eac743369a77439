// The configuration table (docs/configuration.md, linked from the README) is written by hand, so
// this keeps it true: every variable the service reads (config.ts's schema, engines' own settings
// included) is named in the table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CONFIG_KEYS } from '../../src/config.ts';

const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

describe('the configuration table (docs/configuration.md)', () => {
  it('names every environment variable the service reads', () => {
    const start = DOC.indexOf('# Configuration');
    assert.ok(start >= 0, 'docs/configuration.md opens with its heading');
    const table = DOC.slice(start);
    const rows = table.split('\n').filter((line) => line.startsWith('| `'));
    const named = new Set(rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1])));
    assert.ok(CONFIG_KEYS.length > 40, `${CONFIG_KEYS.length} keys read`);
    assert.deepEqual(CONFIG_KEYS.filter((key) => !named.has(key)), []);
  });
});
