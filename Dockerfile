# One Dockerfile, one image per app: the build argument APP names it.
#   docker build --build-arg APP=storage -t workspace-assistant-storage .
# APP: gateway, storage, chat, mcp-registry, workflow-runner, webhook-ingest, embedded or admin.
# Every image also carries the admin CLI: `node dist/apps/admin/src/main.js help`.
ARG APP=gateway
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency, then the bundles of APP, the admin CLI and (for the apps that
# serve it) the web app. The bundles leave npm packages external.
FROM ${NODE_IMAGE} AS build
ARG APP
WORKDIR /app
ENV NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN case "$APP" in \
      gateway|storage|chat|mcp-registry|workflow-runner|webhook-ingest|embedded|admin) ;; \
      *) echo "unknown APP '$APP'" >&2; exit 1 ;; \
    esac \
 && projects="$APP,admin" \
 && if [ "$APP" = gateway ] || [ "$APP" = embedded ]; then projects="$projects,web"; fi \
 && npx nx run-many -t build -p "$projects" --outputStyle=static

# --- production dependencies only, without install scripts (none of them needs one).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime: node_modules and bundles owned by root, run as the image's unprivileged `node`
# user (uid 1000), so the process cannot change its own code.
FROM ${NODE_IMAGE} AS runtime
ARG APP
# HOST: a container's interfaces are its own; the embedded runtime listens on 127.0.0.1 otherwise.
ENV NODE_ENV=production APP=${APP} PORT=3000 HEALTH_PORT=9000 HOST=0.0.0.0
WORKDIR /app
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
# dist/apps/<app>/src/main.js with the service's migrations beside it, and dist/apps/admin.
COPY --from=build /app/dist ./dist
COPY deploy/docker/healthcheck.cjs ./deploy/docker/healthcheck.cjs
USER 1000:1000
# Gateway and embedded HTTP, webhook-ingest's direct door (WEBHOOK_PORT), services' health port.
EXPOSE 3000 3001 9000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.cjs"]
# `exec` leaves node as PID 1: it gets SIGTERM itself, drains and exits 128 + signal.
CMD ["/bin/sh", "-c", "exec node dist/apps/${APP}/src/main.js"]
