#!/usr/bin/env bash
# Builds scripts/cel-cost/main.go, a command that prints the API server's cost figures for a CRD's CEL rules
# (k8s.io/apiextensions-apiserver's own estimate, and the runtime cost of a status write), from the Go module
# proxy, once per version, into the user's cache directory: the same wrapper-module pattern as
# scripts/kstatus-binary.sh, at the Kubernetes version of scripts/kube-binaries.sh. Prints the binary's path as
# its last line. Safe to run concurrently (a lock serialises builders).
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
# Kubernetes' staging modules are tagged v0.<minor>.<patch> for Kubernetes v1.<minor>.<patch>.
staging_version="v0.${KUBE_VERSION#v1.}"

source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/cel-cost" && pwd)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator/cel-cost"
# The source's hash is in the path so an edit of main.go builds anew.
source_hash=$(sha256sum "$source_dir/main.go" | cut -c1-12)
binary="$cache_root/kube-$KUBE_VERSION-$source_hash/cel-cost"
mkdir -p "$cache_root"

if [ -x "$binary" ]; then echo "$binary"; exit 0; fi
exec 9>"$cache_root/.lock"
flock 9
if [ -x "$binary" ]; then echo "$binary"; exit 0; fi

command -v go >/dev/null || { echo "cel-cost-binary: Go is needed to build the cel-cost command" >&2; exit 1; }
work=$(mktemp -d "$cache_root/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local

echo "cel-cost-binary: building cel-cost on k8s.io/apiextensions-apiserver $staging_version" >&2
cp "$source_dir/main.go" "$work/"
cat >"$work/go.mod" <<GOMOD
module local/cel-cost

go 1.26.0

require (
	k8s.io/apiextensions-apiserver $staging_version
	k8s.io/apimachinery $staging_version
	k8s.io/apiserver $staging_version
)
GOMOD
(cd "$work" && go mod tidy >/dev/null && go build -trimpath -ldflags "-s -w" -o "$work/cel-cost" .)
mkdir -p "$(dirname "$binary")"
mv "$work/cel-cost" "$binary"
echo "cel-cost-binary: done: $binary" >&2
echo "$binary"
