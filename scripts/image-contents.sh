#!/usr/bin/env bash
# Assembles the controller's runtime directory: package files, the compiled controller (dist/), and
# production dependencies installed from the lock file. The Dockerfile runs it to build the image and
# test/packaging-image.test.ts runs it into a temp dir, so CI proves the same steps without Docker.
# Usage: scripts/image-contents.sh SOURCE_DIR TARGET_DIR
set -euo pipefail

src_dir=$(cd "${1:?usage: image-contents.sh SOURCE_DIR TARGET_DIR}" && pwd)
target=${2:?usage: image-contents.sh SOURCE_DIR TARGET_DIR}

mkdir -p "$target"
cp "$src_dir/package.json" "$src_dir/package-lock.json" "$target/"
# The controller and the kubectl plugin compiled to JavaScript, with the data files they read: only what
# src/main.ts and src/cli.ts import (never the simulator, the local API-server launcher or a test).
node "$src_dir/scripts/build.ts" "$target/dist"

cd "$target"
# npm ci refuses this lock file (npm drops other platforms' optional packages from it); npm install
# --omit=dev still takes every version from it. No install scripts run: no production dependency needs one.
npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error
# Keep the lock file as the source had it (npm may rewrite it) and drop npm's bookkeeping.
cp "$src_dir/package-lock.json" "$target/package-lock.json"
rm -f node_modules/.package-lock.json
# Type declarations and source maps are never loaded at run time (they are half the size).
find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete
