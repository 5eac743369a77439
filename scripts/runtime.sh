#!/usr/bin/env bash
# Sourced by every script: puts a Node >= 22 first on PATH. Where the system Node is older, Node 24
# is installed from the npm registry (package node@24) into the git-ignored .runtime/ folder.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNTIME_DIR="$ROOT/.runtime"

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_runtime() {
  if [ -x "$RUNTIME_DIR/node_modules/node/bin/node" ]; then
    export PATH="$RUNTIME_DIR/node_modules/node/bin:$PATH"
    return
  fi
  if command -v node >/dev/null 2>&1 && [ "$(node_major node)" -ge 22 ]; then
    return
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup: npm is needed to install Node 24 (apt-get install npm)" >&2
    exit 1
  fi
  echo "setup: system Node is older than 22; installing Node 24 into .runtime/ from the npm registry" >&2
  mkdir -p "$RUNTIME_DIR"
  npm install --no-save --no-package-lock --loglevel=error --prefix "$RUNTIME_DIR" node@24 >&2
  export PATH="$RUNTIME_DIR/node_modules/node/bin:$PATH"
  [ "$(node_major node)" -ge 22 ] || { echo "setup: Node 24 install failed" >&2; exit 1; }
}
