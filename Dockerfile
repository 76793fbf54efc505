# One image for every service: `--build-arg SERVICE=gateway` (catalog, scheduler, executor, ...).
# Multi-stage: dependencies and the build in a full Node image, the runtime on a slim one as a non-root user.
ARG NODE_VERSION=20.20

FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /repo
COPY package.json package-lock.json turbo.json tsconfig.base.json jest.preset.js ./
COPY packages ./packages
COPY apps ./apps
COPY e2e/package.json ./e2e/package.json
COPY bench/package.json ./bench/package.json
RUN npm ci --no-audit --no-fund && npx turbo run build && npm prune --omit=dev

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG SERVICE
ENV NODE_ENV=production SERVICE=${SERVICE}
WORKDIR /app
COPY --from=build --chown=node:node /repo/node_modules ./node_modules
COPY --from=build --chown=node:node /repo/packages ./packages
COPY --from=build --chown=node:node /repo/apps ./apps
COPY --from=build --chown=node:node /repo/package.json ./package.json
USER node
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "const p=process.env[process.env.SERVICE.toUpperCase()+'_PORT']||3000;fetch('http://127.0.0.1:'+p+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["sh", "-c", "exec node apps/${SERVICE}/dist/main.js"]
