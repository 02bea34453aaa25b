# One image for every service; the command picks the app:
#   docker run IMAGE node dist/apps/storage/src/main.js
# Apps: gateway, storage, chat, mcp-registry, workflow-runner, webhook-ingest, embedded.

# --- build: all dependencies, then bundle every app with Nx (tools/build-app.mjs) ---
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
RUN npx nx run-many -t build --outputStyle=static

# --- production dependencies only: the bundles leave npm packages external ---
FROM node:20-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime ---
FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
# dist/apps/<app>/src/main.js, with each service's migrations in dist/apps/<app>/migrations.
COPY --from=build /app/dist ./dist
# The image's own non-root user (uid 1000); Kubernetes checks runAsNonRoot against it.
USER 1000
# Gateway HTTP, and /healthz + /readyz of the other services (set HEALTH_PORT=9000).
EXPOSE 3000 9000
# Node is PID 1 and handles SIGTERM itself: each main.ts drains and exits 128 + signal.
CMD ["node", "dist/apps/gateway/src/main.js"]
