// A test file that registers a suite after a top-level await (here, a child process's run):
// the runner must count it. With node's --test-force-exit the file's process exited once the
// tests known at that moment had ended, and the later suite was never run nor counted.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';

describe('registered first', () => {
  it('adds', () => assert.equal(1 + 1, 2));
});

await promisify(execFile)(process.execPath, ['-e', '']);

describe('registered after an await', () => {
  it('multiplies', () => assert.equal(2 * 3, 6));
});
