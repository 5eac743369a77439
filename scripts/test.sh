#!/usr/bin/env bash
# The whole test suite: install everything, type-check, then run every test with node's runner.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
source scripts/runtime.sh
ensure_runtime
npx --no-install tsc -p tsconfig.json --noEmit
# scripts/run-tests.ts: node:test's run() per file with the spec reporter, two files at a time.
# Each test has 10 min (TEST_TIMEOUT_MS) and each file 20 min (TEST_FILE_TIMEOUT_MS): a file hung
# anywhere, even outside a test, is killed and fails under its own name instead of eating CI's
# 90 minutes (node --test-timeout bounds only each test). Children exit once their tests are done
# (--test-force-exit), so one a test left behind does not hold its file open.
exec node scripts/run-tests.ts "test/**/*.test.ts" "packages/sdk/test/**/*.test.ts"
