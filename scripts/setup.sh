#!/usr/bin/env bash
# Installs everything the service needs: the Node runtime, npm packages and Debian packages.
# Idempotent and quick when nothing changed, so start.sh and test.sh call it every time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/runtime.sh"
cd "$ROOT"
ensure_runtime

# System packages for the engines; a missing one only disables its tools (503), so a machine
# without apt (or without root) still runs the JSON platform.
if [ -f scripts/system-packages.sh ]; then bash scripts/system-packages.sh; fi

stamp="$ROOT/node_modules/.setup-stamp"
want="$(node -v) $(sha256sum package.json package-lock.json 2>/dev/null | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing npm packages with $(node -v)" >&2
  npm ci --loglevel=error --no-audit --no-fund >&2
  echo "$want" > "$stamp"
fi
