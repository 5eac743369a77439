// A test file that passes, for the runner's own test.
import assert from 'node:assert/strict';
import { test } from 'node:test';

test('adds', () => assert.equal(1 + 1, 2));
