#!/usr/bin/env bash
# The Dockerfile's steps, run without a Docker engine (none runs on our
# machines), on a clean copy of the committed tree: the build stage's
# `npm ci --omit=dev` on package.json and package-lock.json alone, the
# runtime stage's files only, started as an unprivileged user the way the
# image's CMD does, then its HEALTHCHECK command and a statement round trip.
# What it cannot check: the base image, apt packages, the image size.
#
#   npm run image-check      (about 3 minutes: better-sqlite3 compiles)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

echo "build stage: COPY package.json package-lock.json; npm ci --omit=dev"
mkdir -p "$work/app" "$work/data"
git -C "$root" archive HEAD package.json package-lock.json ecosystem.config.js src bin | tar -x -C "$work/app"
(cd "$work/app" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
echo "runtime dependencies: $(cd "$work/app" && npm ls --omit=dev --all --parseable 2>/dev/null | tail -n +2 | wc -l) packages"
for dev in $(node -p "Object.keys(require('$root/package.json').devDependencies).join(' ')"); do
  if [ -e "$work/app/node_modules/$dev" ]; then echo "FAIL: devDependency $dev in the image"; exit 1; fi
done

echo "runtime stage: USER node (here: nobody), LRS_DATA_DIR=/data, CMD pm2-runtime"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
user=(); if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then chown -R 65534:65534 "$work"; user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
(cd "$work/app" && exec env -i PATH="$PATH" HOME="$work" NODE_ENV=production PORT="$port" HOST=127.0.0.1 LRS_DATA_DIR="$work/data" \
  LRS_ADMIN_USER=admin LRS_ADMIN_PASSWORD=image-check LRS_INSTANCES=2 PM2_HOME="$work/pm2" \
  "${user[@]}" node_modules/.bin/pm2-runtime start ecosystem.config.js) > "$work/lrs.log" 2>&1 &
pid=$!

echo "HEALTHCHECK"
for i in $(seq 1 60); do
  if PORT=$port node -e "fetch('http://127.0.0.1:' + process.env.PORT + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; then break; fi
  [ "$i" = 60 ] && { echo "FAIL: not ready"; cat "$work/lrs.log"; exit 1; }
  sleep 1
done

echo "a statement round trip"
id=$(node -e "console.log(require('crypto').randomUUID())")
auth=(-u admin:image-check -H 'X-Experience-API-Version: 2.0.0')
curl -sf "${auth[@]}" -H 'Content-Type: application/json' -X PUT "http://127.0.0.1:$port/xapi/statements?statementId=$id" \
  -d '{"actor":{"mbox":"mailto:image@example.com"},"verb":{"id":"http://adlnet.gov/expapi/verbs/experienced"},"object":{"id":"http://example.com/image"}}'
curl -sf "${auth[@]}" "http://127.0.0.1:$port/xapi/statements?statementId=$id" | grep -q "$id"
[ -s "$work/data/lrs.sqlite" ] || { echo "FAIL: no database file in LRS_DATA_DIR"; exit 1; }
echo "PASS: the image's steps install, start as an unprivileged user, answer the health check and store a statement in /data"
