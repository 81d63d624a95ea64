#!/usr/bin/env bash
# The README's demo command: on a fresh machine, with no Proxmox of your own.
#   1. starts the bundled Proxmox VE simulator (HTTPS, its own CA, a state file) as a cluster
#      nobody has set up: no template, `local` taking `import` content;
#   2. serves a small disk image on loopback (examples/demo/image-server.js);
#   3. `pulumi up` of the demo stack (root Pulumi.yaml → examples/demo/): PVE downloads the image
#      and makes a template of it, then two VMs are cloned from it with cloud-init; a local file
#      backend and a passphrase;
#   4. shows the VMs and their addresses;
#   5. runs the drift check (clean), stops one VM out of band through the simulator, and runs
#      the drift check again (drift found, named);
#   6. destroys the stack (VMs, template, image) and stops the simulator and the image server.
# Everything it writes lives in .demo/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step() { printf '\n\033[1m== %s\033[0m (%d s)\n' "$*" "$((SECONDS - started))"; }

step "set-up: Node, the Pulumi engine, the package"
source scripts/bootstrap.sh
scripts/install-deps.sh
npm run --silent build

demo="$PWD/.demo"
rm -rf "$demo" && mkdir -p "$demo/backend"
# The demo program depends on the package by name, as a user's would: install the packed
# tarball (a copy, not a link, so Pulumi serializes the provider as a require of the package).
tarball=$(npm pack --silent --pack-destination "$demo" | tail -n 1)
npm install --no-save --no-audit --no-fund --prefer-offline --silent "$demo/$tarball"

pids=()
cleanup() { [ ${#pids[@]} = 0 ] || kill "${pids[@]}" 2>/dev/null || true; rm -f Pulumi.demo.yaml; }
trap cleanup EXIT
# Starts a process that prints one JSON line when ready; waits for that line.
start() {
  local out=$1 && shift
  "$@" >"$demo/$out.out" 2>"$demo/$out.err" &
  pids+=($!)
  for _ in $(seq 1 100); do [ -s "$demo/$out.out" ] && break; sleep 0.1; done
  [ -s "$demo/$out.out" ] || { echo "demo: $out did not start: $(cat "$demo/$out.err")" >&2; exit 1; }
}
field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$1" "$2"; }

step "starting the Proxmox VE simulator: no template, and local takes import content"
start simulator node dist/simulator/cli.js --port 0 --state-file "$demo/simulator.json" \
  --ca-file "$demo/ca.pem" --no-templates --storage-content local=iso,vztmpl,backup,import
ready=$(head -n 1 "$demo/simulator.out")
endpoint=$(field "$ready" url) token=$(field "$ready" apiToken) admin=$(field "$ready" adminUrl)
echo "simulator at $endpoint (nodes pve1, pve2; storages local, local-lvm, shared; no VM)"

step "serving the demo's disk image on loopback"
start image-server node examples/demo/image-server.js
served=$(head -n 1 "$demo/image-server.out")
image_url=$(field "$served" url) image_sha256=$(field "$served" sha256)
echo "image at $image_url ($(field "$served" bytes) bytes, sha256 $image_sha256)"

export PULUMI_BACKEND_URL="file://$demo/backend" PULUMI_CONFIG_PASSPHRASE=demo
pulumi stack init demo --non-interactive >/dev/null
pulumi config set proxmox:endpoint "$endpoint" --stack demo
pulumi config set proxmox:caCert "$demo/ca.pem" --stack demo
pulumi config set --secret proxmox:apiToken "$token" --stack demo
pulumi config set imageUrl "$image_url" --stack demo
pulumi config set imageSha256 "$image_sha256" --stack demo

step "pulumi up: PVE downloads the image, makes a template, and two VMs are cloned from it"
pulumi up --yes --skip-preview --non-interactive --stack demo

step "the VMs"
pulumi stack output --stack demo

step "drift check: nothing changed, expect exit 0"
node dist/cli/index.js drift --stack demo --report "$demo/drift-clean.json" && code=0 || code=$?
echo "drift exit code: $code"
[ "$code" = 0 ] || { echo "demo: expected a clean drift check" >&2; exit 1; }

vmid=$(pulumi stack output vmids --json --stack demo | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8"))[0])')
step "stopping VM $vmid behind Pulumi's back (the simulator's admin API)"
curl -fsS --cacert "$demo/ca.pem" -X POST "$admin/vms/$vmid/stop" >/dev/null

step "drift check again: expect exit 2, naming the VM"
node dist/cli/index.js drift --stack demo --report "$demo/drift-found.json" && code=0 || code=$?
echo "drift exit code: $code (report: .demo/drift-found.json)"
[ "$code" = 2 ] || { echo "demo: expected the drift check to find the stopped VM" >&2; exit 1; }

step "pulumi destroy: the VMs, then the template and its image"
pulumi destroy --yes --skip-preview --non-interactive --stack demo
pulumi stack rm demo --yes --non-interactive >/dev/null

step "done in $((SECONDS - started)) s"
