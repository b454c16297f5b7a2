#!/bin/sh
# Build the frontend into frontend/dist from package-lock.json: `make frontend` and the
# Docker image run this (the image's first stage), so both build it the same way.
set -eu
cd "$(dirname "$0")/../frontend"
if [ ! -f node_modules/.installed ] || [ package-lock.json -nt node_modules/.installed ]; then
    npm ci --no-audit --no-fund
    touch node_modules/.installed
fi
npm run build
