# Every target runs on the Node.js 24 that package.json pins (node_modules/.bin/node), whatever node the
# machine has.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: all run test check typecheck lint format generate simulator controller cluster-up cluster-down \
	kind-up kube-binaries kube-openapi bench image single-file

all: test

# npm ci refuses this lock file (npm drops other platforms' optional packages from it), so install from
# the lock with npm install; the stamp makes it run only when the lock changes.
node_modules/.installed: package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $@

## run: the main job on the embedded default: local API server, CRDs, simulator, controller, examples.
run: node_modules/.installed
	node scripts/run-local.ts

## test: everything CI runs: type-check, lint and format, generated files, unit and integration tests.
test: node_modules/.installed check
	vitest run

check: typecheck lint

typecheck: node_modules/.installed
	tsc --noEmit

lint: node_modules/.installed
	biome check .

format: node_modules/.installed
	biome check --write .

## generate: regenerate crds/ from the zod schemas, then their copies, RBAC and Argo CD snippets.
generate: node_modules/.installed
	node scripts/generate.ts
	node scripts/generate-packaging.ts
	node scripts/generate-docs.ts

## kube-openapi: capture the core/v1 schemas the CRDs embed from the pinned kube-apiserver (after a
## Kubernetes version bump; then `make generate`). test/kube-openapi.test.ts fails when they are stale.
kube-openapi: node_modules/.installed
	node scripts/capture-kube-openapi.ts

simulator: node_modules/.installed
	node src/simulator/main.ts

controller: node_modules/.installed
	node src/main.ts

kube-binaries:
	@scripts/kube-binaries.sh

cluster-up: node_modules/.installed
	@node scripts/cluster.ts up

cluster-down: node_modules/.installed
	@node scripts/cluster.ts down

## kind-up: for people with Docker: a kind cluster with the CRDs installed (CI does not use it).
kind-up:
	kind create cluster --name agent-operator
	kubectl apply --server-side -f crds/

bench: node_modules/.installed
	node bench/run.ts

## single-file: kubectl-agd as one executable per platform needing no Node.js (Node.js single executable
## applications), each in dist/single-file/kubectl-agd_<os>_<arch>.tar.gz, with SHA256SUMS and the krew
## manifest agd.yaml. PLATFORMS=linux-amd64,linux-arm64 by default (darwin-arm64 too, built on a Mac);
## BASE_URL is where the archives are published ({{version}} becomes v<version>).
single-file: node_modules/.installed
	node scripts/single-file.ts $(if $(PLATFORMS),--platforms $(PLATFORMS)) $(if $(BASE_URL),--base-url '$(BASE_URL)')

## image: the controller image, tagged with the version the chart and manifests/ deploy (the chart's
## appVersion), so an install finds it once it is loaded into the cluster or pushed (docs/install.md: The image).
VERSION := $(shell sed -n 's/^appVersion: "\(.*\)"/\1/p' helm/agent-deployment-operator/Chart.yaml)
IMAGE ?= agent-deployment-operator:$(VERSION)
image:
	docker build -t $(IMAGE) .
