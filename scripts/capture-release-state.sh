#!/usr/bin/env bash
# Captures the state a released pulumi-proxmox writes, for the compatibility test of later
# releases (test/provider/vm/state/released-states.e2e.test.ts):
#
#   scripts/capture-release-state.sh <rev> <label>
#
# 1. checks <rev> out in a temporary git worktree and builds it with this checkout's toolchain
#    (its node_modules is a hardlinked copy of this one's);
# 2. installs the build as `pulumi-proxmox` into a temporary workspace;
# 3. runs test/provider/vm/state/fixtures/releases/program.js with `pulumi up` against that
#    release's own simulator, its `half` VM failing after the clone (a partial create), with
#    the passphrase in capture.json there;
# 4. writes test/provider/vm/state/fixtures/releases/<label>/: `stack.json` (`pulumi stack export`)
#    and one `vm-<vmid>.json.gz` per VM in the state (the simulator's record and volumes).
# The worktree and the workspace are removed at the end, whatever happens.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <rev> <label>" >&2
  exit 2
fi
rev="$1"
label="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fixtures="$root/test/provider/vm/state/fixtures/releases"
# shellcheck source=bootstrap.sh
source "$root/scripts/bootstrap.sh" >/dev/null

tmp="$(mktemp -d)"
release="$tmp/release"
cleanup() {
  git -C "$root" worktree remove --force "$release" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

git -C "$root" worktree add --detach --quiet "$release" "$rev"
cp -al "$root/node_modules" "$release/node_modules"
(cd "$release" && npx tsc -p tsconfig.build.json)

workspace="$tmp/workspace"
mkdir -p "$workspace"
cp -al "$root/node_modules" "$workspace/node_modules"
mkdir "$workspace/node_modules/pulumi-proxmox"
cp -r "$release/package.json" "$release/dist" "$workspace/node_modules/pulumi-proxmox/"

rm -rf "${fixtures:?}/$label"
node "$root/scripts/capture-release-state.ts" "$release" "$workspace" "$fixtures" "$label"
echo "captured $(git -C "$root" rev-parse --short "$rev") into ${fixtures#"$root"/}/$label"
