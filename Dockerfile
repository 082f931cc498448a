# syntax=docker/dockerfile:1
# The runtimectl image: one persona per container (runtimectl fleet render writes the
# Kubernetes or Compose files that run it). Built in two stages so the compilers needed for
# the native addons (isolated-vm, better-sqlite3) never reach the image that runs.
# Not built on the machine where this project is developed (it has no Docker engine); the
# tests in features/fleet check this file's structure instead. See features/fleet/README.md.

FROM node:20-bookworm AS build
WORKDIR /opt/runtimectl
COPY package.json package-lock.json ./
# bin/ first: npm ci runs its `prepare` script (bin/build-cli.mjs), which builds nothing
# before the sources are here.
COPY bin ./bin
# npm ci compiles isolated-vm and better-sqlite3 from source (python3, make and g++ are in the
# node:20-bookworm image); dev dependencies (the real Deno, test tools) stay out.
RUN npm ci --omit=dev --no-audit --no-fund
COPY cli ./cli
COPY kernel ./kernel
COPY features ./features
COPY plugins ./plugins
COPY sandboxes ./sandboxes
COPY skills ./skills
COPY policies ./policies
COPY schemas ./schemas
COPY tsconfig.json README.md ./
# The precompiled CLI (.build/runtimectl.mjs): runtimectl starts without compiling TypeScript.
RUN node bin/build-cli.mjs
# Fail the build, not the first pod, when the kernel cannot start here.
RUN node --no-node-snapshot bin/runtimectl.js --version

FROM node:20-bookworm-slim AS runtime
# bubblewrap: the OS-level sandbox around executor subprocesses; tini: a PID 1 that forwards
# SIGTERM to the kernel and reaps what it leaves.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 runtimectl \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin runtimectl \
 && mkdir -p /state /var/cache/runtimectl /etc/runtimectl/persona \
 && chown 10001:10001 /state /var/cache/runtimectl
COPY --from=build --chown=root:root /opt/runtimectl /opt/runtimectl
RUN ln -s /opt/runtimectl/bin/runtimectl.js /usr/local/bin/runtimectl
ENV NODE_ENV=production \
    RUNTIMECTL_CACHE_DIR=/var/cache/runtimectl \
    SCIDEX_AGENT_STATE_DIR=/state
VOLUME ["/state"]
# The code is root-owned and read-only to the user that runs it.
USER 10001:10001
WORKDIR /state
ENTRYPOINT ["/usr/bin/tini", "--", "runtimectl"]
CMD ["--help"]
