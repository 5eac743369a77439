#!/usr/bin/env bash
# Installs the Debian packages the engines drive (LibreOffice, Chromium, pandoc, poppler, ffmpeg,
# calibre, 7-Zip, fonts, bubblewrap for sandboxing). Idempotent: when every package is already installed it only runs
# dpkg-query and exits. Without root or without apt-get it warns and exits 0; the service still
# starts and the tools whose program is missing answer 503 (see src/engines/).
set -uo pipefail

PACKAGES=(
  libreoffice-writer-nogui
  libreoffice-calc-nogui
  libreoffice-impress-nogui
  python3-uno
  chromium
  pandoc
  poppler-utils
  # audio (issue 12 section 2)
  ffmpeg
  # ebooks: ebook-convert (section 3)
  calibre
  # archives (section 4): Debian 12's 7zip is upstream 7-Zip (program 7zz); p7zip-full is the old
  # p7zip fork's wrapper (7z), now a second package of the same code. One package, upstream's CLI.
  # Built without the non-free RAR code: RAR reading needs another answer (unrar is non-free).
  7zip
  fonts-dejavu-core
  fonts-liberation
  fonts-noto-core
  bubblewrap
  # the SSRF tests run in a network namespace with only loopback (test/support/isolated-network.ts):
  # unshare (util-linux) makes it, ip (iproute2) brings its lo up
  util-linux
  iproute2
  # the README's examples are curl commands, and test/platform/readme-examples.test.ts runs them
  curl
  # many nodes (issue 21): the tests start their own PostgreSQL cluster and Redis server on free
  # ports; the service uses them when DATABASE_URL is postgres:// and REDIS_URL is set
  postgresql
  redis-server
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  if [ "$status" != "install ok installed" ]; then missing+=("$pkg"); fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-packages: apt-get not found; missing packages: ${missing[*]} (their tools will answer 503)" >&2
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "system-packages: not root; missing packages: ${missing[*]} (their tools will answer 503)" >&2
  echo "system-packages: install them with: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 0
fi

echo "system-packages: installing ${missing[*]}" >&2
if ! apt-get update >&2; then
  echo "system-packages: apt-get update failed; continuing without ${missing[*]}" >&2
  exit 0
fi
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
  echo "system-packages: apt-get install failed; tools needing ${missing[*]} will answer 503" >&2
  exit 0
fi
exit 0
