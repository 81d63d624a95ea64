#!/usr/bin/env bash
# Installs the project's npm packages when they are missing or older than the lock file, and
# the Debian packages the tests use as independent ISO readers. Idempotent and quick when warm.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== npm ci"
  npm ci --no-audit --no-fund
fi
if [ -x scripts/install-test-deps.sh ]; then
  scripts/install-test-deps.sh
fi
