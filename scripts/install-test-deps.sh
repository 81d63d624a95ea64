#!/usr/bin/env bash
# Installs the Debian packages the seed tests read ISOs and YAML with (test/provider/vm/seed):
#   xorriso (xorriso), isoinfo (genisoimage), 7z (p7zip-full), blkid (util-linux),
#   python3 + PyYAML (python3-yaml: cloud-init's own YAML loader, the oracle for our emitter),
#   cloud-init (its `schema` and `devel net-convert` commands check the documents we render).
# Idempotent: installs only what is missing. Run as root (CI) or with sudo.
set -euo pipefail

missing=()
command -v xorriso >/dev/null 2>&1 || missing+=(xorriso)
command -v isoinfo >/dev/null 2>&1 || missing+=(genisoimage)
command -v 7z >/dev/null 2>&1 || missing+=(p7zip-full)
command -v blkid >/dev/null 2>&1 || missing+=(util-linux)
python3 -c 'import yaml' >/dev/null 2>&1 || missing+=(python3 python3-yaml)
command -v cloud-init >/dev/null 2>&1 || missing+=(cloud-init)

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-test-deps: all seed test readers present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
started=$SECONDS
log="$(cd "$(dirname "$0")/.." && pwd)/.tools/apt-test-deps.log"
mkdir -p "$(dirname "$log")"
echo "install-test-deps: installing ${missing[*]} from Debian (about a minute on a first run; log: $log)"
if ! { $sudo apt-get update && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y \
  --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "install-test-deps: apt-get failed; the full log is $log" >&2
  exit 1
fi
echo "install-test-deps: done in $((SECONDS - started)) s"
