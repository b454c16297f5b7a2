#!/usr/bin/env bash
# The browser tests drive the system Chromium (browser downloads are impossible here).
# Install it when missing: as root through apt; otherwise say what to install.
set -euo pipefail
for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then exit 0; fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Chromium for the browser tests (apt-get install chromium)..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The browser tests need Chromium: install it (Debian: 'sudo apt-get install chromium')," >&2
echo "or set CHROMIUM_PATH to a Chromium/Chrome executable." >&2
exit 1
