#!/usr/bin/env bash
# Builds glua, the command-line front end of gopher-lua (the Lua 5.1 VM Argo CD runs health checks in),
# from the Go module proxy, once per version, into the user's cache directory, the way
# scripts/kube-binaries.sh builds the Kubernetes binaries. Prints the binary's path as its last line.
# Safe to run concurrently (a lock serialises builders).
set -euo pipefail

GOPHER_LUA_VERSION="${GOPHER_LUA_VERSION:-v1.1.1}"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator/lua"
bin="$cache_root/gopher-lua-$GOPHER_LUA_VERSION/glua"
mkdir -p "$cache_root"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

exec 9>"$cache_root/.lock"
flock 9
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

command -v go >/dev/null || { echo "lua-interpreter: Go is needed to build glua" >&2; exit 1; }
work=$(mktemp -d "$cache_root/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "lua-interpreter: building gopher-lua $GOPHER_LUA_VERSION" >&2
GOBIN="$work" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
  "github.com/yuin/gopher-lua/cmd/glua@$GOPHER_LUA_VERSION" >&2
mkdir -p "$(dirname "$bin")"
mv "$work/glua" "$bin"
echo "$bin"
