#!/usr/bin/env bash
# Quick start: install everything, then serve on the embedded defaults (SQLite + local disk in DATA_DIR).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec ./bin/tool-service serve "$@"
