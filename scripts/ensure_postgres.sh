#!/usr/bin/env bash
# The connector tests start their own PostgreSQL server (tests/postgres_server.py) from the
# system's binaries; they never use a server that happens to run on this machine.
# Install the binaries when missing: as root through apt; otherwise say what to install.
set -euo pipefail
if [ -n "${POSTGRES_BIN_DIR:-}" ] && [ -x "${POSTGRES_BIN_DIR}/initdb" ]; then exit 0; fi
for candidate in /usr/lib/postgresql/*/bin/initdb; do
  if [ -x "$candidate" ]; then exit 0; fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing PostgreSQL for the connector tests (apt-get install postgresql)..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  exit 0
fi
echo "The connector tests need PostgreSQL's server binaries (initdb, postgres): install them" >&2
echo "(Debian: 'sudo apt-get install postgresql'), or set POSTGRES_BIN_DIR to their directory." >&2
exit 1
