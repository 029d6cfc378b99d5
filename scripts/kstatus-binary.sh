#!/usr/bin/env bash
# Builds scripts/kstatus/main.go, a command that prints the verdict of sigs.k8s.io/cli-utils' kstatus on one
# object, from the Go module proxy, once per version, into the user's cache directory: the same wrapper-module
# pattern as scripts/kube-binaries.sh. Prints the binary's path as its last line. Safe to run concurrently
# (a lock serialises builders).
set -euo pipefail

CLI_UTILS_VERSION="${CLI_UTILS_VERSION:-v0.37.2}"

source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/kstatus" && pwd)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator/kstatus"
# The source's hash is in the path so an edit of main.go builds anew.
source_hash=$(sha256sum "$source_dir/main.go" | cut -c1-12)
binary="$cache_root/cli-utils-$CLI_UTILS_VERSION-$source_hash/kstatus"
mkdir -p "$cache_root"

if [ -x "$binary" ]; then echo "$binary"; exit 0; fi
exec 9>"$cache_root/.lock"
flock 9
if [ -x "$binary" ]; then echo "$binary"; exit 0; fi

command -v go >/dev/null || { echo "kstatus-binary: Go is needed to build the kstatus command" >&2; exit 1; }
work=$(mktemp -d "$cache_root/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local

echo "kstatus-binary: building kstatus on sigs.k8s.io/cli-utils $CLI_UTILS_VERSION" >&2
cp "$source_dir/main.go" "$work/"
cat >"$work/go.mod" <<GOMOD
module local/kstatus

go 1.22

require sigs.k8s.io/cli-utils $CLI_UTILS_VERSION
GOMOD
(cd "$work" && go mod tidy >/dev/null && go build -trimpath -ldflags "-s -w" -o "$work/kstatus" .)
mkdir -p "$(dirname "$binary")"
mv "$work/kstatus" "$binary"
echo "kstatus-binary: done: $binary" >&2
echo "$binary"
