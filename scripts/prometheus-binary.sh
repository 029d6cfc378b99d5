#!/usr/bin/env bash
# Builds the Prometheus server (github.com/prometheus/prometheus/cmd/prometheus) from the Go module proxy,
# once per version, into the user's cache directory, at promtool's module version
# (prometheus-module-version.sh) and the way promtool-binary.sh builds promtool: `go install module@version`,
# as its own go.mod pins it. Without the `builtinassets` tag the web UI's assets are not embedded (the
# tests use the HTTP API only); `remove_all_sd` leaves out every service discovery but static_configs.
# It takes promtool's lock, so the two never compile their common packages at the same time: the second
# build reuses the first's Go build cache. First build on 2 cores shared with other work: 11 min 34 s with
# an empty Go build cache (259 s of CPU, 950 MB of memory), 2 min 24 s (102 s of CPU) after promtool's.
# Prints the binary's path as its last line. Safe to run concurrently (a lock serialises builders).
set -euo pipefail

# shellcheck source=prometheus-module-version.sh
source "$(dirname "${BASH_SOURCE[0]}")/prometheus-module-version.sh"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator"
bin="$cache_root/prometheus/prometheus-$PROMETHEUS_MODULE_VERSION/bin"
mkdir -p "$cache_root/prometheus" "$cache_root/promtool"

if [ -x "$bin/prometheus" ]; then echo "$bin/prometheus"; exit 0; fi
exec 9>"$cache_root/promtool/.lock"
flock 9
if [ -x "$bin/prometheus" ]; then echo "$bin/prometheus"; exit 0; fi

command -v go >/dev/null || { echo "prometheus-binary: Go is needed to build Prometheus" >&2; exit 1; }
export CGO_ENABLED=0 GOTOOLCHAIN=local
rm -rf "$bin.partial"
mkdir -p "$bin.partial"
echo "prometheus-binary: building prometheus $PROMETHEUS_MODULE_VERSION" >&2
(cd "$cache_root/prometheus" && GOBIN="$bin.partial" go install -trimpath -ldflags "-s -w" -tags remove_all_sd \
  "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_MODULE_VERSION")
rm -rf "$bin"
mv "$bin.partial" "$bin"
echo "prometheus-binary: done: $bin/prometheus" >&2
echo "$bin/prometheus"
