#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, type-checks, lints, and runs the
# unit, integration and end-to-end tests (the latter through the real Pulumi engine).
#   scripts/test.sh            # everything
#   scripts/test.sh unit       # one vitest project: unit | integration | e2e
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

source scripts/bootstrap.sh
scripts/install-deps.sh
scripts/install-test-deps.sh

echo "== build, type-check, lint"
npm run --silent build
npm run --silent typecheck
npm run --silent lint

echo "== tests"
mkdir -p .e2e
projects=()
for p in "$@"; do projects+=(--project "$p"); done
status=0
npx vitest run "${projects[@]}" --reporter=default --reporter=json --outputFile.json=.e2e/vitest.json || status=$?

# A plain closing line that any CI reader understands, from vitest's own JSON report.
node -e '
  const r = require("./.e2e/vitest.json");
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
'
echo "== done in $((SECONDS - started)) s"
exit "$status"
