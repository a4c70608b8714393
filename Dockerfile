# syntax=docker/dockerfile:1
# The LRS as a production image: dependencies built in a first stage
# (better-sqlite3 compiles against Node's headers when no prebuilt binary
# fits), only what runs copied into the second, run as the unprivileged
# `node` user under pm2-runtime, with the SQLite data in the /data volume.

FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY ecosystem.config.js ./
COPY src ./src
COPY bin ./bin

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=8080 \
    LRS_DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
# `docker exec CONTAINER lrs check` (and every lrs command) works on the store
RUN mkdir -p /data && chown node:node /data && ln -s /app/bin/lrs.js /usr/local/bin/lrs
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node_modules/.bin/pm2-runtime", "start", "ecosystem.config.js"]
