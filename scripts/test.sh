#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, type-checks, lints, and runs the
# unit, integration and end-to-end tests (the latter through the real Pulumi engine).
#   scripts/test.sh            # everything
#   scripts/test.sh unit       # one vitest project: unit | integration | e2e
# Everything runs against the simulator's PVE 8.4 profile; a full run then repeats a
# representative subset (the files in VERSION_MATRIX_FILES) against the 7.4 and 9.1 profiles.
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
# dist/ is fresh: the e2e global setup packs it without building again (see global-setup.ts).
export PULUMI_PROXMOX_E2E_PREBUILT=1

# The PVE 7 and 9 paths: the provider's calls and errors (http-api), doctor's checks, the clone
# and observe steps, and one engine run that grows a disk and waits for the guest agent. The
# simulator's own per-release behaviour, and doctor's privilege table (which starts every release
# itself), are covered in the main run.
VERSION_MATRIX_FILES=(
  test/cli/doctor.int.test.ts
  test/provider/pve/api/http-api.int.test.ts
  test/provider/vm/steps/clone.int.test.ts
  test/provider/vm/steps/observe.int.test.ts
  test/provider/vm/steps/pool-step.int.test.ts
  test/examples/single-vm.e2e.test.ts
)

# A plain summary line that any CI reader understands, from vitest's own JSON report.
summary() {
  node -e '
    const r = require(process.argv[1]);
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`${process.argv[2]}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  ' "$1" "$2"
}

echo "== tests (PVE 8.4)"
mkdir -p .e2e
projects=()
for p in "$@"; do projects+=(--project "$p"); done
status=0
PVE_SIM_VERSION=8.4 npx vitest run "${projects[@]}" --reporter=default --reporter=json \
  --outputFile.json=.e2e/vitest.json || status=$?
summary ./.e2e/vitest.json "tests"

if [ "$#" -eq 0 ]; then
  # The two releases run at the same time: their files mostly wait on simulated tasks, so on two
  # cores together they take about as long as one alone. Each writes its own log, printed in order.
  echo "== version matrix: PVE 7.4 and 9.1 ($((SECONDS - started)) s so far)"
  pids=()
  for version in 7.4 9.1; do
    PVE_SIM_VERSION="$version" npx vitest run --project integration --project e2e \
      "${VERSION_MATRIX_FILES[@]}" --reporter=default --reporter=json \
      --outputFile.json=".e2e/vitest-pve${version}.json" >".e2e/pve${version}.log" 2>&1 &
    pids+=("$!")
  done
  for i in 0 1; do
    version=$([ "$i" -eq 0 ] && echo 7.4 || echo 9.1)
    wait "${pids[$i]}" || status=$?
    echo "-- PVE ${version}"
    cat ".e2e/pve${version}.log"
    summary "./.e2e/vitest-pve${version}.json" "tests on PVE ${version}"
  done
fi
echo "== done in $((SECONDS - started)) s"
exit "$status"
