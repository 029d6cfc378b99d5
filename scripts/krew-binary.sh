#!/usr/bin/env bash
# Builds krew (sigs.k8s.io/krew/cmd/krew) from the Go module proxy, once per version, into the user's cache
# directory, like scripts/promtool-binary.sh: krew's go.mod has no replace directive, so `go install
# module@version` builds it exactly as its own go.mod pins it. test/plugin-install.test.ts installs the
# single file with it (`kubectl krew install --manifest ... --archive ...`). First build, with an empty Go
# build cache and the modules already downloaded: 3 min 6 s on 2 shared cores (58 s of CPU, 300 MB of
# memory). Prints the binary's path as its last line. Safe to run concurrently (a lock serialises builders).
set -euo pipefail

# The newest krew the module proxy serves (v0.4.4 and v0.4.5 are not on it).
KREW_VERSION="${KREW_VERSION:-v0.4.3}"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator/krew"
bin="$cache_root/krew-$KREW_VERSION/bin"
mkdir -p "$cache_root"

if [ -x "$bin/krew" ]; then echo "$bin/krew"; exit 0; fi
exec 9>"$cache_root/.lock"
flock 9
if [ -x "$bin/krew" ]; then echo "$bin/krew"; exit 0; fi

command -v go >/dev/null || { echo "krew-binary: Go is needed to build krew" >&2; exit 1; }
export CGO_ENABLED=0 GOTOOLCHAIN=local
rm -rf "$bin.partial"
mkdir -p "$bin.partial"
echo "krew-binary: building krew $KREW_VERSION" >&2
(cd "$cache_root" && GOBIN="$bin.partial" go install -trimpath -ldflags "-s -w" \
  "sigs.k8s.io/krew/cmd/krew@$KREW_VERSION")
rm -rf "$bin"
mv "$bin.partial" "$bin"
echo "krew-binary: done: $bin/krew" >&2
echo "$bin/krew"
