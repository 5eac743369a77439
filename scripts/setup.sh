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
  # --ignore-scripts: nothing may download at install time but from the npm registry, and the only
  # packages with install scripts are the Observatory's (a dev dependency of the agreement bench:
  # its scripts fetch CA and HSTS-preload lists from the web and build libpq); none of ours needs one.
  npm ci --ignore-scripts --loglevel=error --no-audit --no-fund >&2
  echo "$want" > "$stamp"
fi
