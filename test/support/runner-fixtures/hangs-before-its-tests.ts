// A test file that never gets to its tests: a top-level wait no per-test timeout covers.
import { test } from 'node:test';

setInterval(() => {}, 1000);
await new Promise(() => {});
test('never registered', () => {});
