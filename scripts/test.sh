#!/usr/bin/env bash
# The whole test suite: install everything, type-check, then run every test with node's runner.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
source scripts/runtime.sh
ensure_runtime
npx --no-install tsc -p tsconfig.json --noEmit
exec node --test --test-concurrency=2 --test-timeout=600000 --test-reporter=spec "test/**/*.test.ts" "packages/sdk/test/**/*.test.ts"
