#!/usr/bin/env bash
# The whole test suite: install everything, type-check, then run every test with node's runner,
# in two passes: every test on SQLite (the embedded default), then the database-bound tests again
# on PostgreSQL (issue 21 item 7). The command fails if either pass fails; both always run.
#   bash scripts/test.sh                 # both passes (what `npm test` and CI run)
#   bash scripts/test.sh sqlite|postgres # one pass only
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -eq 0 ]; then passes=(sqlite postgres); else passes=("$@"); fi
for pass in "${passes[@]}"; do
  case "$pass" in sqlite | postgres) ;; *) echo "test.sh: unknown pass '$pass' (sqlite or postgres)" >&2; exit 2 ;; esac
done
bash scripts/setup.sh
source scripts/runtime.sh
ensure_runtime
npx --no-install tsc -p tsconfig.json --noEmit
# scripts/run-tests.ts: node:test's run() per file with the spec reporter, two files at a time.
# Each test has 10 min (TEST_TIMEOUT_MS) and each file 20 min (TEST_FILE_TIMEOUT_MS): a file hung
# anywhere, even outside a test, is killed and fails under its own name instead of eating CI's
# 90 minutes (node --test-timeout bounds only each test). No --test-force-exit: it drops suites a
# file registers after a top-level await; a file must close what it opens (the bound catches one that does not).

# The PostgreSQL pass: the tests whose subject is the database (db, platform, runs, MCP, and the
# dashboard, whose sessions are rows any node must serve).
POSTGRES_PATTERNS=("test/db/**/*.test.ts" "test/platform/**/*.test.ts" "test/runs/**/*.test.ts" "test/mcp/**/*.test.ts" "test/dashboard/**/*.test.ts")
# Files of those that only make sense on SQLite, so they run in the SQLite pass only:
declare -A SQLITE_ONLY=(
  # The caller cache's freshness from SQLite's PRAGMA data_version and the order of queries on the
  # one SQLite connection; on PostgreSQL that cache is bypassed (every call reads the database).
  # What must hold on both (a key revoked or an account suspended through another connection is
  # refused on the very next call) is in accounts.test.ts, mcp-account-state and sse-sessions.
  [test/platform/caller-cache.test.ts]=1
  # changeCounter itself: PRAGMA data_version is SQLite's.
  [test/db/change-counter.test.ts]=1
)

run_sqlite() {
  echo "== test pass 1/2: SQLite (each app on a SQLite file in its own DATA_DIR) =="
  node scripts/run-tests.ts "test/**/*.test.ts" "packages/sdk/test/**/*.test.ts"
}

run_postgres() {
  local file
  for file in "${!SQLITE_ONLY[@]}"; do
    # A renamed or removed file must be taken off the list, not silently run or skipped.
    [ -f "$file" ] || { echo "test.sh: SQLITE_ONLY names $file, which does not exist" >&2; return 1; }
  done
  local files=()
  shopt -s globstar nullglob
  for file in "${POSTGRES_PATTERNS[@]}"; do
    # Unquoted on purpose: the patterns are expanded here, by bash's globstar.
    for match in $file; do [ -n "${SQLITE_ONLY[$match]:-}" ] || files+=("$match"); done
  done
  shopt -u globstar nullglob
  echo "== test pass 2/2: PostgreSQL (TEST_DATABASE=postgres: one throwaway cluster, a fresh database per app; ${#files[@]} files, SQLite-only: ${!SQLITE_ONLY[*]}) =="
  TEST_DATABASE=postgres node scripts/with-postgres.ts node scripts/run-tests.ts "${files[@]}"
}

# Ctrl-C (or a TERM) ends the command once the running pass has stopped; it does not start the next pass.
trap 'echo "test.sh: interrupted" >&2; exit 130' INT
trap 'echo "test.sh: terminated" >&2; exit 143' TERM
failed=()
for pass in "${passes[@]}"; do
  # Run each pass to its end even when the one before failed, so CI reports both; fail at the end.
  status=0
  "run_$pass" || status=$?
  [ "$status" -eq 0 ] || failed+=("$pass (exit $status)")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo "test.sh: passed: ${passes[*]}"
