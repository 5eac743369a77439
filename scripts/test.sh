#!/usr/bin/env bash
# The whole test suite: install everything, type-check, then run every test with node's runner.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
source scripts/runtime.sh
ensure_runtime
npx --no-install tsc -p tsconfig.json --noEmit
# --test-force-exit: a file whose tests are done exits even if something it started still holds
# its event loop, so a failure that leaves a child behind fails with its name instead of hanging CI.
exec node --test --test-concurrency=2 --test-timeout=600000 --test-force-exit --test-reporter=spec "test/**/*.test.ts" "packages/sdk/test/**/*.test.ts"
