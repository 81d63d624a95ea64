#!/usr/bin/env bash
# The README's demo command: on a fresh machine, with no Proxmox of your own.
#   1. starts the bundled Proxmox VE simulator (HTTPS, its own CA, a state file);
#   2. `pulumi up` of the demo stack (root Pulumi.yaml → examples/demo/: two VMs with
#      cloud-init) with a local file backend and a passphrase;
#   3. shows the VMs and their addresses;
#   4. runs the drift check (clean), stops one VM out of band through the simulator, and runs
#      the drift check again (drift found, named);
#   5. destroys the stack and stops the simulator.
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

step "starting the Proxmox VE simulator"
node dist/simulator/cli.js --port 0 --state-file "$demo/simulator.json" --ca-file "$demo/ca.pem" \
  >"$demo/simulator.out" 2>"$demo/simulator.err" &
sim_pid=$!
cleanup() { kill "$sim_pid" 2>/dev/null || true; rm -f Pulumi.demo.yaml; }
trap cleanup EXIT
for _ in $(seq 1 100); do [ -s "$demo/simulator.out" ] && break; sleep 0.1; done
ready=$(head -n 1 "$demo/simulator.out")
field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$ready" "$1"; }
endpoint=$(field url) token=$(field apiToken) admin=$(field adminUrl)
echo "simulator at $endpoint (nodes pve1, pve2; templates debian-12-cloud, ubuntu-24-04-cloud)"

export PULUMI_BACKEND_URL="file://$demo/backend" PULUMI_CONFIG_PASSPHRASE=demo
pulumi stack init demo --non-interactive >/dev/null
pulumi config set proxmox:endpoint "$endpoint" --stack demo
pulumi config set proxmox:caCert "$demo/ca.pem" --stack demo
pulumi config set --secret proxmox:apiToken "$token" --stack demo

step "pulumi up: two VMs, cloned, seeded with cloud-init, started"
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

step "pulumi destroy"
pulumi destroy --yes --skip-preview --non-interactive --stack demo
pulumi stack rm demo --yes --non-interactive >/dev/null

step "done in $((SECONDS - started)) s"
