#!/usr/bin/env bash
# The plan at the objective, checked against a measurement (issue 50, first
# part): a private PostgreSQL, its processes held to FROM CPUs by a cgroup
# v1 CPU quota (the load generator outside it), runs oltp_read_only
# (4 x 10,000 rows, cached) in an open loop of 16 in flight at RATES; then
# `rightsize plan --from` that sweep predicts the p99 on TO CPUs at each
# rate of CHECK, and the same rates are run REPS times with the quota set
# to TO: the plan's predicted p99 beside the median measured one. See
# bench/README.md.
#
# Env options:
#   FROM=0.5          the CPUs the sweep's database is held to
#   TO=1              the CPUs of the check
#   RATES=100,200,300,400,500   the sweep's rates (events/s)
#   CHECK="300 600"   the rates checked on TO CPUs (events/s)
#   SLO=50ms          the objective
#   REPS=3            runs of each check; the median p99 is compared
#   TIME=10           seconds measured per run (after 3 s of warm-up)
#   OUT=bench/out     output directory (gitignored)
set -euo pipefail

FROM=${FROM:-0.5}
TO=${TO:-1}
RATES=${RATES:-100,200,300,400,500}
CHECK=${CHECK:-"300 600"}
SLO=${SLO:-50ms}
REPS=${REPS:-3}
TIME=${TIME:-10}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out
want_positive REPS TIME
ensure_pkg python3 python3
build_rightsize
[ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] || die "no cgroup v1 cpu controller at /sys/fs/cgroup/cpu"

PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
DIR=$OUT/plan_vs_measured
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
CG=rightsize-bench-db-$$
CPU=/sys/fs/cgroup/cpu/$CG
ACCT=/sys/fs/cgroup/cpuacct/$CG
rm -rf "$DIR"
mkdir -p "$DIR"
chown postgres "$DIR"
URL="postgres://postgres@127.0.0.1:$PORT/bench?sslmode=disable"

stop() {
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DIR/data" -m fast stop >/dev/null 2>&1 || true
  rmdir "$CPU" "$ACCT" 2>/dev/null || true
}
trap stop EXIT

# quota CPUS: the cgroup's quota, CPUS of a 20 ms period.
quota() {
  local q
  q=$(python3 -c "print(int($1 * 20000))")
  echo 20000 >"$CPU/cpu.cfs_period_us"
  echo "$q" >"$CPU/cpu.cfs_quota_us"
}

log "a private PostgreSQL on port $PORT, its processes in cgroup $CG"
mkdir -p "$CPU"
if [ -d /sys/fs/cgroup/cpuacct ] && [ "$(readlink -f /sys/fs/cgroup/cpuacct)" != "$(readlink -f /sys/fs/cgroup/cpu)" ]; then mkdir -p "$ACCT"; fi
runuser -u postgres -- "$PGBIN/initdb" -D "$DIR/data" -A trust -U postgres --no-sync >"$DIR/initdb.txt"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.txt" -w -o "-p $PORT -c listen_addresses=127.0.0.1 \
  -c unix_socket_directories=$DIR -c fsync=off -c synchronous_commit=off -c shared_buffers=128MB" start >/dev/null
for pid in $(pgrep -f -- "-D $DIR/data") $(pgrep -P "$(head -1 "$DIR/data/postmaster.pid")"); do
  echo "$pid" >"$CPU/cgroup.procs"
  [ -d "$ACCT" ] && echo "$pid" >"$ACCT/cgroup.procs"
done
psql -qX -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -c "CREATE DATABASE bench"
"$RS" prepare oltp_read_only --tables 4 --table-size 10000 --target "$URL" >"$DIR/prepare.txt" 2>&1

quota "$FROM"
log "sweep on $FROM CPUs: --rate $RATES --threads 16 --slo $SLO"
"$RS" sweep oltp_read_only --tables 4 --table-size 10000 --target "$URL" --db-cgroup "/$CG" --rate "$RATES" \
  --threads 16 --slo "$SLO" --warmup 3s --time "${TIME}s" --no-history --out "$DIR/from.json" >"$DIR/sweep.txt" 2>&1 ||
  { tail -30 "$DIR/sweep.txt" >&2; die "sweep failed"; }
grep -A3 "^sweep verdict" "$DIR/sweep.txt" | head -4

quota "$TO"
printf '%-8s %-10s %-12s %-28s %s\n' rate plan "predicted" "measured p99 ms (runs)" "measured/predicted"
for r in $CHECK; do
  "$RS" plan --from "$DIR/from-sweep.json" --target-rate "$r" --slo "$SLO" --format json >"$DIR/plan-$r.json" 2>"$DIR/plan-$r.txt" || true
  read -r vcpu pred < <(python3 -c "
import json, sys
p = json.load(open('$DIR/plan-$r.json'))
o = (p.get('sizing') or {}).get('objective') or {}
print(o.get('vcpu', 0), '%.2f' % o.get('predicted_p99_ms', 0))")
  p99s=()
  for k in $(seq "$REPS"); do
    "$RS" run oltp_read_only --tables 4 --table-size 10000 --target "$URL" --db-cgroup "/$CG" --rate "$r" --threads 16 \
      --warmup 3s --time "${TIME}s" --no-history --out "$DIR/run-$r-$k.json" >"$DIR/run-$r-$k.txt" 2>&1 || true
    p99s+=("$(python3 -c "import json; print('%.2f' % json.load(open('$DIR/run-$r-$k.json'))['summary']['latency']['p99_ms'])")")
  done
  m=$(median "${p99s[@]}")
  printf '%-8s %-10s %-12s %-28s %s\n' "$r/s" "${vcpu} vCPU" "$pred ms" "$m (${p99s[*]})" "$(ratio "$m" "$pred")"
done
log "the plan predicts on whole vCPUs: it is checked here on $TO CPUs when it answers $TO; files in $DIR"
