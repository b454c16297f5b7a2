#!/bin/sh
# Create a virtualenv at VENV and pip-install into it: the Docker image's step
# (`scripts/install_venv.sh /opt/venv -e '/app[studio]'`), and what tests/deploy/test_install.py
# runs on the host (offline: `--no-deps --no-index`, the dependencies from the project's venv).
# The venv gets no pip of its own: PYTHON's pip installs into it (`pip --python`), which
# saves ensurepip's seconds and keeps the image smaller.
# usage: [PYTHON=python3.11] scripts/install_venv.sh VENV [pip install arguments; default: this project]
set -eu
venv=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$root"
python=${PYTHON:-python3}
"$python" -m venv --without-pip "$venv"
"$python" -m pip --python "$venv/bin/python" install --quiet --disable-pip-version-check "$@"
