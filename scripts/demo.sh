#!/usr/bin/env bash
# The README's demo command. For now it runs the engine smoke stack (the EngineCheck resource)
# through `pulumi up`, a drift check and `pulumi destroy`, with a local file backend.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
scripts/install-deps.sh >/dev/null
npm run --silent build

demo=.demo
rm -rf "$demo" && mkdir -p "$demo/backend" "$demo/program"
npm pack --silent --pack-destination "$demo" >/dev/null
cat >"$demo/program/package.json" <<JSON
{ "name": "demo", "private": true,
  "dependencies": { "@pulumi/pulumi": "3.276.0", "pulumi-proxmox": "file:$(ls "$PWD/$demo"/pulumi-proxmox-*.tgz)" } }
JSON
cat >"$demo/program/Pulumi.yaml" <<YAML
name: proxmox-demo
runtime: { name: nodejs, options: { typescript: false } }
main: index.js
YAML
cat >"$demo/program/index.js" <<'JS'
const { EngineCheck } = require("pulumi-proxmox/testing");
exports.digest = new EngineCheck("probe", { message: "hello" }).digest;
JS
cd "$demo/program"
npm install --silent --no-audit --no-fund --prefer-offline
export PULUMI_BACKEND_URL="file://$PWD/../backend" PULUMI_CONFIG_PASSPHRASE=demo
pulumi stack init demo --non-interactive
pulumi up --yes --non-interactive --skip-preview
echo "== drift check (expect no changes)"
pulumi preview --refresh --expect-no-changes --non-interactive
pulumi destroy --yes --non-interactive --skip-preview
