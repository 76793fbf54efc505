# One image for every Conduit service; the container's SERVICE variable picks which one runs:
#   docker build -t conduit .                       (all six services)
#   docker run -e SERVICE=gateway -p 3000:3000 conduit
# A slimmer image of some services only: --build-arg SERVICES="executor".
# Stages: prune (turbo keeps only the workspaces those services need), build (npm ci from the pruned lockfile,
# tsc, then drop dev dependencies), runtime (slim Node, non-root, tini as PID 1, a HEALTHCHECK on /readyz).
# Node 26, the Active LTS line (since 2026-10-28; Node 20 reached end of life in April 2026), pinned by digest so a
# rebuild gets the same bytes: a tag moves, a digest does not. Refresh both together (docker buildx imagetools inspect
# node:26-bookworm-slim / node:26-bookworm). The README says which Node versions are supported and tested.
ARG NODE_IMAGE=node:26-bookworm-slim@sha256:9e6f9357d371591e32ab6f2d8a26d63bdd0d17c29eee3f4f3e7e454d9634bf73
ARG NODE_BUILD_IMAGE=node:26-bookworm@sha256:057896e7e3f542ff82f7e65f106ac04e646775316449e676dfe8fb053d3b43ef
ARG TURBO_VERSION=2.11.9

FROM ${NODE_IMAGE} AS prune
ARG TURBO_VERSION
ARG SERVICES="gateway catalog scheduler executor monitoring webhook-dispatcher"
WORKDIR /repo
COPY . .
# The gateway serves the web console (apps/console/dist): it comes along whenever the gateway does. It is no package
# dependency of the gateway (it is built on the SDK, whose types come from the gateway), so it is named here.
RUN npx --yes turbo@${TURBO_VERSION} prune $(for s in ${SERVICES}; do printf '@conduit/%s ' "$s"; done) \
      $(case " ${SERVICES} " in *" gateway "*) echo @conduit/console ;; esac) --docker --out-dir /pruned

FROM ${NODE_BUILD_IMAGE} AS build
WORKDIR /repo
# Manifests first: the dependency layer is rebuilt only when a package.json or the lockfile changes.
COPY --from=prune /pruned/json/ ./
RUN npm ci --no-audit --no-fund
COPY --from=prune /pruned/full/ ./
# turbo prune leaves out the root files that are not workspaces.
COPY tsconfig.base.json ./
RUN npx turbo run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# tini as PID 1: it forwards SIGTERM so each service drains, and reaps; Node as PID 1 would ignore a re-raised signal.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /repo/package.json ./package.json
COPY --from=build --chown=node:node /repo/node_modules ./node_modules
COPY --from=build --chown=node:node /repo/packages ./packages
COPY --from=build --chown=node:node /repo/apps ./apps
COPY --chown=node:node deploy/docker/healthcheck.mjs deploy/docker/migrate-all.sh deploy/docker/start.sh ./
# The "node" user of the official image (uid 1000), which the Kubernetes securityContext expects.
USER node
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "/app/healthcheck.mjs"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["sh", "/app/start.sh"]
