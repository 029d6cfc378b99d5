#!/usr/bin/env bash
# Builds the Kubernetes binaries the tests and the local run need (kube-apiserver, kubectl, etcd, helm)
# from the Go module proxy, once per version, into the user's cache directory. No release binary can be
# downloaded here, so each is built from its Go module through a small wrapper module.
# Prints the bin directory as its last line. Safe to run concurrently (a lock serialises builders).
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
HELM_VERSION="${HELM_VERSION:-v3.22.0}"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator/kube-binaries"
bin="$cache_root/kube-$KUBE_VERSION-etcd-$ETCD_VERSION-helm-$HELM_VERSION/bin"
mkdir -p "$cache_root"

have_all() {
  [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kubectl" ] && [ -x "$bin/etcd" ] && [ -x "$bin/helm" ]
}
if have_all; then echo "$bin"; exit 0; fi

exec 9>"$cache_root/.lock"
flock 9
if have_all; then echo "$bin"; exit 0; fi

command -v go >/dev/null || { echo "kube-binaries: Go is needed to build the Kubernetes binaries" >&2; exit 1; }
# Kubernetes 1.36, etcd 3.6.16 and helm 3.22 all declare `go 1.26.0`; say so plainly instead of failing mid-build.
go_version=$(go env GOVERSION)
[ "$(printf '%s\n' go1.26 "$go_version" | sort -V | head -1)" = go1.26 ] ||
  { echo "kube-binaries: Go 1.26 or newer is needed (found $go_version)" >&2; exit 1; }
work=$(mktemp -d "$cache_root/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$bin.partial"
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local

log() { echo "kube-binaries: $*" >&2; }

build_kubernetes() {
  local dir="$work/kubernetes" minor major gomod
  mkdir -p "$dir"
  major=$(echo "$KUBE_VERSION" | sed -E 's/^v([0-9]+)\..*/\1/')
  minor=$(echo "$KUBE_VERSION" | sed -E 's/^v[0-9]+\.([0-9]+)\..*/\1/')
  local staging_version="v0.${KUBE_VERSION#v1.}"
  gomod=$(cd "$dir" && go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  {
    echo "module local/kube-binaries"
    echo
    echo "go $(sed -n 's/^go //p' "$gomod")"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    echo "replace ("
    # Every staging module that kubernetes replaces with a local path, pinned to its published tag.
    sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod" | while read -r mod; do
      echo "  $mod => $mod $staging_version"
    done
    echo ")"
  } >"$dir/go.mod"
  cat >"$dir/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  (cd "$dir" && go mod tidy -e >/dev/null 2>&1 || true)
  local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=$major -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/client-go/pkg/version.gitVersion=$KUBE_VERSION -X k8s.io/client-go/pkg/version.gitMajor=$major -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  log "building kube-apiserver $KUBE_VERSION"
  (cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$bin.partial/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
  log "building kubectl $KUBE_VERSION"
  (cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$bin.partial/kubectl" k8s.io/kubernetes/cmd/kubectl)
}

build_etcd() {
  local dir="$work/etcd"
  mkdir -p "$dir"
  cat >"$dir/go.mod" <<GOMOD
module local/etcd-binary

go 1.24

require (
	go.etcd.io/etcd/server/v3 $ETCD_VERSION
	go.etcd.io/etcd/api/v3 $ETCD_VERSION
	go.etcd.io/etcd/client/pkg/v3 $ETCD_VERSION
	go.etcd.io/etcd/client/v3 $ETCD_VERSION
	go.etcd.io/etcd/pkg/v3 $ETCD_VERSION
)
GOMOD
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"$dir/tools.go"
  (cd "$dir" && go mod tidy -e >/dev/null 2>&1 || true)
  log "building etcd $ETCD_VERSION"
  (cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$bin.partial/etcd" go.etcd.io/etcd/server/v3)
}

build_helm() {
  local dir="$work/helm"
  mkdir -p "$dir"
  log "building helm $HELM_VERSION"
  (cd "$dir" && GOBIN="$bin.partial" go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
}

[ -x "$bin.partial/etcd" ] || build_etcd
[ -x "$bin.partial/helm" ] || build_helm
{ [ -x "$bin.partial/kube-apiserver" ] && [ -x "$bin.partial/kubectl" ]; } || build_kubernetes

rm -rf "$bin"
mv "$bin.partial" "$bin"
log "done: $bin"
echo "$bin"
