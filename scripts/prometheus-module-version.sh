# shellcheck shell=bash
# The Prometheus Go module version promtool-binary.sh and prometheus-binary.sh build, sourced by both so
# the rules promtool checks and the server the tests query are the same release. The module's v0.316.0 is
# Prometheus v3.16.0 (Prometheus tags its Go module v0.<major><minor>.<patch>).
PROMETHEUS_MODULE_VERSION="${PROMETHEUS_MODULE_VERSION:-v0.316.0}"
