#!/usr/bin/env bash
# The cores figures on the 16-core device machine (../shared/device/README.md), one call:
# the writer process alone fed as 16 workers feed it (this tree against an older one, alternating),
# the cores sweep, workers without the one-thread GC at 8 and 16, and 2 and 16 workers after a 10 s
# warm-up with CPU profiles of every process. Prepare here:
#   ../shared/device/pack.sh                      (.devpkg/node.tar.xz, .devpkg/tree.tar.xz)
#   git log --oneline -1 > .devpkg/commit.txt
#   (cd <older checkout> && tar --exclude=./node_modules --exclude=./.git -cf - . | xz -T0 -3) > .devpkg/base.tar.xz
#   cp tools/device-cores.sh .devpkg/run.sh
# then `run` with carry [".devpkg"] and the command:
#   tar -xJf .devpkg/node.tar.xz -C /opt && tar -xJf .devpkg/tree.tar.xz -C /opt && bash .devpkg/run.sh
# For the mongodb engine (FerretDB) in a call of its own: `strip` a copy of the FerretDB binary and
# `xz -6` it into .devpkg/ferretdb.xz (unstripped, the pack passes the 64 MiB that travel), unpack it there,
# set FERRETDB_BIN to it and run `node bench/run.js cores --engine ferretdb` (BENCH_ENGINE is not read).
# About 7 minutes. Settings: FW, FS, FEED_BASE (writer-feed: `--root` feeds the older tree ids as this one,
# `--strings` every term as its string), W, D, R, O (the sweep), RATE (statements/s offered to every
# count besides, bench/cores.js BENCH_RATE; default 4000, under one worker's peak; `none`: skip), GW, PW
# (`none`: skip that part), and *_T time limits.
# At most 8 files come back from $OUT: keep to these.
set -u
REPO=$PWD
export PATH=/opt/nodebin/bin:$PATH
mkdir -p /opt/base && tar -xJf $REPO/.devpkg/base.tar.xz -C /opt/base && ln -sfn /opt/lrs/node_modules /opt/base/node_modules
cd /opt/lrs
export BENCH_COMMIT=$(cut -d" " -f1 $REPO/.devpkg/commit.txt)
T0=$(date +%s)
log () { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a $OUT/steps.txt; }
{ nproc; lscpu | grep -E 'Model name|MHz'; cat /proc/loadavg; } > $OUT/machine.txt 2>&1
log "writer-feed"
timeout ${FEED_T:-110} node bench/writer-feed.js --workers ${FW:-16} --seconds ${FS:-5} --repeat 2 --root . ${FEED_BASE:---strings} /opt/base > $OUT/writer-feed.txt 2>&1
log "cores sqlite"
RATE_ENV=$([ "${RATE:-4000}" = none ] || echo "BENCH_RATE=${RATE:-4000}")
env $RATE_ENV BENCH_WORKERS=${W:-1,2,4,8,16} BENCH_DURATION=${D:-6} BENCH_REPEAT=${R:-2} BENCH_WARMUP=2 BENCH_OVERLOAD=${O:-4,16} timeout ${CORES_T:-360} node bench/run.js cores > $OUT/cores.txt 2>&1
cp ecosystem.config.js /tmp/eco.js
log "cores sqlite, workers without --single-threaded-gc"
sed -i "s|, '--single-threaded-gc'\]|]|" ecosystem.config.js
[ "${GW:-}" != none ] && ! grep -q single-threaded-gc ecosystem.config.js && BENCH_ALONE=0 BENCH_WORKERS=${GW:-8,16} BENCH_DURATION=${D:-6} BENCH_REPEAT=1 BENCH_WARMUP=2 BENCH_OVERLOAD=none timeout ${GC_T:-70} node bench/run.js cores > $OUT/cores-parallel-gc.txt 2>&1
log "2 and 16 workers after 10 s warm-up, profiled"
cp /tmp/eco.js ecosystem.config.js
sed -i "s|'--single-threaded-gc'\]|'--single-threaded-gc', '--cpu-prof', '--cpu-prof-dir=/tmp/prof-workers']|" ecosystem.config.js
node -e "
const fs=require('fs');let s=fs.readFileSync('ecosystem.config.js','utf8');
s=s.replace(\"  stop_exit_codes: stopExitCodes,\n  env: { NODE_ENV: 'production' }\n}\",\"  stop_exit_codes: stopExitCodes,\n  node_args: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-writer'],\n  env: { NODE_ENV: 'production' }\n}\");fs.writeFileSync('ecosystem.config.js',s)"
grep -c cpu-prof ecosystem.config.js >> $OUT/steps.txt
for n in ${PW:-2 16}; do
  [ "$n" = none ] && break
  BENCH_ALONE=0 BENCH_WORKERS=$n BENCH_DURATION=${D:-6} BENCH_REPEAT=1 BENCH_WARMUP=10 BENCH_OVERLOAD=none timeout ${PROF_T:-70} node bench/run.js cores >> $OUT/cores-warm-prof.txt 2>&1
  mv /tmp/prof-workers /tmp/prof-workers-$n; mv /tmp/prof-writer /tmp/prof-writer-$n
done
tar -czf $OUT/profiles.tgz -C /tmp $(cd /tmp && ls -d prof-*) 2>/dev/null
log "done"
tar -czf $OUT/results.tgz -C bench/results . 2>/dev/null
tail -2 $OUT/writer-feed.txt | cut -c1-600; grep -hE "st/s|check" $OUT/cores.txt $OUT/cores-parallel-gc.txt $OUT/cores-warm-prof.txt | cut -c1-230
