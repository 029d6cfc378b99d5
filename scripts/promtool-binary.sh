#!/usr/bin/env bash
# Builds promtool (github.com/prometheus/prometheus/cmd/promtool) from the Go module proxy, once per version,
# into the user's cache directory, like scripts/kube-binaries.sh builds helm: prometheus' go.mod has no
# replace directive, so `go install module@version` builds it exactly as its own go.mod pins it.
# Prints the binary's path as its last line. Safe to run concurrently (a lock serialises builders).
set -euo pipefail

# shellcheck source=prometheus-module-version.sh
source "$(dirname "${BASH_SOURCE[0]}")/prometheus-module-version.sh"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator/promtool"
bin="$cache_root/prometheus-$PROMETHEUS_MODULE_VERSION/bin"
mkdir -p "$cache_root"

if [ -x "$bin/promtool" ]; then echo "$bin/promtool"; exit 0; fi
exec 9>"$cache_root/.lock"
flock 9
if [ -x "$bin/promtool" ]; then echo "$bin/promtool"; exit 0; fi

command -v go >/dev/null || { echo "promtool-binary: Go is needed to build promtool" >&2; exit 1; }
export CGO_ENABLED=0 GOTOOLCHAIN=local
rm -rf "$bin.partial"
mkdir -p "$bin.partial"
echo "promtool-binary: building promtool $PROMETHEUS_MODULE_VERSION" >&2
(cd "$cache_root" && GOBIN="$bin.partial" go install -trimpath -ldflags "-s -w" \
  "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION")
rm -rf "$bin"
mv "$bin.partial" "$bin"
echo "promtool-binary: done: $bin/promtool" >&2
echo "$bin/promtool"
