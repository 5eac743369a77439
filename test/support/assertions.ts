// Shared assertions for the catalog tests.
import assert from 'node:assert/strict';
import type { AnyTool } from '../../src/core/define-tool.ts';
import { isServiceError, type ServiceError } from '../../src/core/errors.ts';
import { runTool } from './run-tool.ts';

/** Asserts the call fails with a 400 validation_error whose issues name `field` (and, if given, list `allowed`). */
export async function rejectsField(tool: AnyTool, input: unknown, field: string, allowed?: readonly string[]): Promise<void> {
  await assert.rejects(runTool(tool, input), (err: unknown) => {
    assert.ok(isServiceError(err), `expected a ServiceError, got ${String(err)}`);
    assert.equal(err.status, 400);
    assert.equal(err.error, 'validation_error');
    const issues = err.extra['issues'] as { field: string; allowed?: string[] }[];
    const issue = issues.find((i) => i.field === field);
    assert.ok(issue, `no issue for ${field}: ${JSON.stringify(issues)}`);
    if (allowed) assert.deepEqual(issue.allowed, allowed);
    return true;
  });
}

/** The ServiceError `promise` rejects with; fails with `whenNot` when it settles without one. */
export async function serviceErrorOf(promise: Promise<unknown>, whenNot: string): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isServiceError(error), `expected a ServiceError, got ${String(error)}`);
    return error;
  }
  assert.fail(whenNot);
}
