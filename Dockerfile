# syntax=docker/dockerfile:1
# The controller image: `make image`. The TypeScript sources are compiled to JavaScript (scripts/build.ts):
# Node.js's type stripping would keep its parser in memory, about 30 MiB of the controller's footprint.
# scripts/image-contents.sh assembles the app directory; CI runs the same script
# (test/packaging-image.test.ts), so the steps here are proven without a Docker engine.

# Base images pinned by digest (multi-platform index digests), so a rebuild gets the same bytes; bump both
# together, and check a new digest with `docker buildx imagetools inspect node:24-bookworm-slim`.
FROM node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d AS app
WORKDIR /build
COPY package.json package-lock.json ./
# The compiler (a development dependency) for the build stage only; the app gets production ones.
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/image-contents.sh scripts/build.ts ./scripts/
RUN scripts/image-contents.sh /build /app

# No shell, no package manager; the nonroot variant's user is 65532.
FROM gcr.io/distroless/nodejs24-debian12:nonroot@sha256:14d42e2511532589a7c7e01a753667a74fcc96266e137e8125006b87b0c32d0a
WORKDIR /app
# Owned by root and not writable by the runtime user: the root filesystem can be mounted read-only.
COPY --from=app --chown=0:0 /app /app
ENV NODE_ENV=production
# glibc's malloc, tuned for a long-lived process of many small allocations: one arena for every thread
# rather than one per thread (8 per core), and freed memory above 128 KiB given back to the system rather
# than kept while the allocator's thresholds climb (129 -> 110 MiB RSS after converging 2,000 objects, same
# CPU time, with two arenas). With two, the second, where V8's worker threads allocate, held 0.6 to 8.9 MiB
# after converging, from one replica to the next of one run; with one, a run's replicas were within 2.4 MiB.
ENV MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
USER 65532:65532
EXPOSE 8080
# node is PID 1 and handles SIGTERM itself (main.js drains the work queue and releases the Lease).
# No HEALTHCHECK: Kubernetes probes /healthz and /readyz.
# A 1 MiB young generation (V8 reserves 16 MiB by default, three times over) keeps the resident size
# close to the live heap. V8's memory saver mode lets its memory reducer give freed heap pages back to the
# system (without it, RSS stays at the peak of a convergence for good: 187 against 126 MiB after one of
# 1,000 objects, at the same CPU time). --max-opt=1 stops V8's tiers at its baseline compiler (Sparkplug):
# the controller waits on the network, and Maglev's and TurboFan's code, compilations and optimized
# code cost 8 MiB idle (84 -> 76) and 16 at the peak of 1,000 objects (120 -> 104), for a third more CPU
# while converging (14 -> 19 s per 1,000 objects). --liftoff-only does the same for WebAssembly: the one
# module is undici's HTTP/1.1 parser (every connection: the API server's, the control plane's), and TurboFan
# compiling it cost 7 MiB at the peak of 1,000 objects (105.5 -> 98.5) and 1.7 after, at the same CPU.
# `make bench` starts the controller with these flags.
ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=1", "--memory-saver-mode", "--max-opt=1", "--liftoff-only", "dist/main.js"]
