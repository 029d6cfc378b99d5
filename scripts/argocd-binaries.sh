#!/usr/bin/env bash
# Builds the parts of Argo CD the end-to-end test runs as local processes (argocd-application-controller,
# argocd-repo-server) and an in-memory Redis for their cache, from the Go module proxy, once per version,
# into the user's cache directory: the same wrapper-module pattern as scripts/kube-binaries.sh.
# Prints the bin directory as its last line. Safe to run concurrently (a lock serialises builders).
set -euo pipefail

# v3.2.x, the newest line the module proxy can build as published: from v3.3 on, argo-cd's go.mod replaces
# gitops-engine with a directory of its own repository (./gitops-engine) that the module zip leaves out,
# and no published gitops-engine version has the API v3.3 calls (KubectlCmd.ManageServerSideDiffDryRuns:
# v3.3.19 fails to compile against both the pseudo-version its go.mod names and the newest one). v3.2
# requires a published gitops-engine pseudo-version and builds unchanged, except v3.2.12, whose tag calls a
# function (settings.ValidateExternalURL) it does not contain.
ARGOCD_VERSION="${ARGOCD_VERSION:-v3.2.11}"
MINIREDIS_VERSION="${MINIREDIS_VERSION:-v2.35.0}"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator/argocd"
bin="$cache_root/argocd-$ARGOCD_VERSION-miniredis-$MINIREDIS_VERSION/bin"
mkdir -p "$cache_root"

have_all() {
  [ -x "$bin/argocd" ] && [ -x "$bin/redis-server" ]
}
if have_all; then echo "$bin"; exit 0; fi

exec 9>"$cache_root/.lock"
flock 9
if have_all; then echo "$bin"; exit 0; fi

command -v go >/dev/null || { echo "argocd-binaries: Go is needed to build Argo CD" >&2; exit 1; }
work=$(mktemp -d "$cache_root/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$bin.partial"
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local

log() { echo "argocd-binaries: $*" >&2; }

build_argocd() {
  local dir="$work/argocd" gomod
  mkdir -p "$dir/cmd/argocd" "$dir/cmd/redis-server"
  gomod=$(cd "$dir" && go mod download -json "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  {
    echo "module local/argocd-binaries"
    echo
    echo "go $(sed -n 's/^go //p' "$gomod")"
    echo
    echo "require ("
    echo "  github.com/argoproj/argo-cd/v3 $ARGOCD_VERSION"
    echo "  github.com/alicebob/miniredis/v2 $MINIREDIS_VERSION"
    echo ")"
    echo
    # Replace directives only count in the main module: copy argo-cd's block (not a local-path one).
    sed -n '/^replace (/,/^)/p' "$gomod"
  } >"$dir/go.mod"
  # One binary, dispatched on its name like upstream's cmd/main.go, but linking only the two servers and the
  # git credential helper the repo-server calls back into (upstream's links the CLI, dex and the API server).
  cat >"$dir/cmd/argocd/main.go" <<'GO'
package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	gitaskpass "github.com/argoproj/argo-cd/v3/cmd/argocd-git-ask-pass/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
)

func main() {
	name := filepath.Base(os.Args[0])
	if v := os.Getenv("ARGOCD_BINARY_NAME"); v != "" {
		name = v
	}
	var command *cobra.Command
	switch name {
	case "argocd-application-controller":
		command = appcontroller.NewCommand()
	case "argocd-repo-server":
		command = reposerver.NewCommand()
	default:
		command = gitaskpass.NewCommand()
	}
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}
GO
  cat >"$dir/cmd/redis-server/main.go" <<'GO'
// An in-memory Redis for Argo CD's cache: `redis-server ADDR` serves until killed.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alicebob/miniredis/v2"
)

func main() {
	addr := "127.0.0.1:6379"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	server := miniredis.NewMiniRedis()
	if err := server.StartAddr(addr); err != nil {
		fmt.Fprintf(os.Stderr, "redis-server: cannot listen on %s: %v\n", addr, err)
		os.Exit(1)
	}
	fmt.Printf("redis-server: listening on %s\n", server.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	server.Close()
}
GO
  (cd "$dir" && go mod tidy -e >/dev/null 2>&1 || true)
  log "building Argo CD $ARGOCD_VERSION (application-controller, repo-server)"
  (cd "$dir" && go build -trimpath -ldflags "-s -w -X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION#v}" \
    -o "$bin.partial/argocd" ./cmd/argocd)
  ln -sf argocd "$bin.partial/argocd-application-controller"
  ln -sf argocd "$bin.partial/argocd-repo-server"
  ln -sf argocd "$bin.partial/argocd-git-ask-pass"
  # The Application and AppProject CRDs of the same version, for the tests to install.
  local moddir
  moddir=$(cd "$dir" && go list -m -f '{{.Dir}}' github.com/argoproj/argo-cd/v3)
  mkdir -p "$bin.partial/crds"
  cp "$moddir/manifests/crds/application-crd.yaml" "$moddir/manifests/crds/appproject-crd.yaml" "$bin.partial/crds/"
  chmod u+w "$bin.partial/crds/"*
  log "building miniredis $MINIREDIS_VERSION"
  (cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$bin.partial/redis-server" ./cmd/redis-server)
}

build_argocd

rm -rf "$bin"
mv "$bin.partial" "$bin"
log "done: $bin"
echo "$bin"
