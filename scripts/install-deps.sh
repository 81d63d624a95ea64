#!/usr/bin/env bash
# Installs the project's npm packages when they are missing or older than the lock file.
# Idempotent and quick when warm. (The tests' Debian readers are install-test-deps.sh's job: the
# demo needs none of them.)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  started=$SECONDS
  echo "install-deps: installing the npm packages (npm ci, about 30 s on a first run)"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  echo "install-deps: done in $((SECONDS - started)) s"
fi
