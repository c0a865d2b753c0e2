# syntax=docker/dockerfile:1
# Parley: build the native add-ons in a full image, run in a slim one as a non-root user.

# The admin console: a static build (Vite) of packages/console, which imports the SDK's sources.
FROM node:20-bookworm AS console
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY packages/console/package.json packages/console/
RUN npm ci --workspace packages/console --include-workspace-root=false
COPY packages/client/src packages/client/src
COPY packages/console packages/console
RUN npm run build -w packages/console

FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The server's own dependencies only (no workspaces). better-sqlite3 compiles from source; sharp brings
# its prebuilt libvips from npm.
RUN npm ci --omit=dev --workspaces=false
COPY bin ./bin
COPY src ./src
COPY tsconfig.json ./
COPY --from=console /app/packages/console/dist ./packages/console/dist

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "bin/parley.mjs", "serve"]
