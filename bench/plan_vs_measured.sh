#!/usr/bin/env bash
# The plan at the objective, checked against measurements on other CPU
# allotments (issue 50). A private PostgreSQL runs in a cgroup of its own
# (the load generator outside it); rightsize holds it to each allotment
# itself (--db-cpus: a CPU quota over a 20 ms period, put back after).
# For each workload of WORKLOADS and each allotment of CPUS:
#   1. `sweep --rate search --slo SLO --db-cpus A` measures the capacity at
#      the objective on A CPUs (open loop);
#   2. `plan --from` the search on FROM CPUs predicts, with --predict-cpus,
#      the capacity at the objective on every allotment, and the p99 at
#      0.5x and 0.8x of each allotment's measured capacity;
#   3. those rates run REPS times on that allotment (`run --rate R
#      --db-cpus A`): the median measured p99 beside the predicted one;
#   4. the reverse: the plan from the search on REVERSE CPUs predicts the
#      capacity on FROM CPUs.
# Prints one table per workload and invocation; see bench/README.md.
#
# Env options:
#   WORKLOADS="oltp_read_only tpcc"  oltp_read_only: 4 x 10,000 rows,
#                      16 in flight; tpcc: 1 warehouse, the transactions in
#                      the server, 10 in flight (its terminals)
#   CPUS="0.5 1 1.5"   the allotments
#   FROM=0.5           the allotment the plan is made from
#   REVERSE=1.5        the allotment the reverse plan is made from
#   SLO=50ms           the p99 objective
#   REPS=3             runs of each checked rate; the median p99 is compared
#   TIME=10            seconds measured per probe and run (after WARMUP)
#   WARMUP=3           seconds of warm-up per probe and run
#   INVOCATIONS=1      how many times the whole grid runs
#   OUT=bench/out      output directory (gitignored)
set -euo pipefail

WORKLOADS=${WORKLOADS:-"oltp_read_only tpcc"}
CPUS=${CPUS:-"0.5 1 1.5"}
FROM=${FROM:-0.5}
REVERSE=${REVERSE:-1.5}
SLO=${SLO:-50ms}
REPS=${REPS:-3}
TIME=${TIME:-10}
WARMUP=${WARMUP:-3}
INVOCATIONS=${INVOCATIONS:-1}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out
want_positive REPS TIME WARMUP INVOCATIONS
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

log "a private PostgreSQL on port $PORT, its processes in cgroup $CG (no limit: rightsize sets it)"
mkdir -p "$CPU"
if [ -d /sys/fs/cgroup/cpuacct ] && [ "$(readlink -f /sys/fs/cgroup/cpuacct)" != "$(readlink -f /sys/fs/cgroup/cpu)" ]; then mkdir -p "$ACCT"; fi
runuser -u postgres -- "$PGBIN/initdb" -D "$DIR/data" -A trust -U postgres --no-sync >"$DIR/initdb.txt"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.txt" -w -o "-p $PORT -c listen_addresses=127.0.0.1 \
  -c unix_socket_directories=$DIR -c fsync=off -c synchronous_commit=off -c shared_buffers=256MB -c max_connections=200" start >/dev/null
for pid in $(pgrep -f -- "-D $DIR/data") $(pgrep -P "$(head -1 "$DIR/data/postmaster.pid")"); do
  echo "$pid" >"$CPU/cgroup.procs"
  [ -d "$ACCT" ] && echo "$pid" >"$ACCT/cgroup.procs"
done
psql -qX -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -c "CREATE DATABASE bench"

# opts WORKLOAD: the workload's options, for prepare, sweep and run.
opts() {
  case "$1" in
    oltp_read_only) echo "--tables 4 --table-size 10000" ;;
    tpcc) echo "--warehouses 1 --in-server --think-scale 0" ;;
    *) die "workload $1: this script knows oltp_read_only and tpcc" ;;
  esac
}

# inflight WORKLOAD: the most events in flight (--threads): 16 for
# oltp_read_only, as the issue measured; TPC-C's 10 terminals of its one
# warehouse (more only queue on its district rows).
inflight() { case "$1" in tpcc) echo 10 ;; *) echo 16 ;; esac; }

# field FILE EXPR: a figure of a JSON file (python's expression on j).
field() { python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print($2)" "$1"; }

# predicted FROM_SEARCH RATE CPUS: the plan's capacity at the objective
# and p99 at RATE on CPUS, as "CAPACITY P99".
predicted() {
  local f=$DIR/plan-$RANDOM.json
  "$RS" plan --from "$1" --target-rate "$2" --slo "$SLO" --predict-cpus "$3" --format json >"$f" 2>"$f.txt" || true
  field "$f" "' '.join('%.1f %.2f' % (a['capacity_at_objective'], a['p99_ms_at_target']) for a in (j.get('sizing') or {}).get('objective', {}).get('at', []))" 2>/dev/null ||
    { echo "n/a n/a"; log "plan --from $1 at $2/s on $3 CPUs gave no prediction: $(head -1 "$f.txt")"; }
}

for inv in $(seq "$INVOCATIONS"); do
  for w in $WORKLOADS; do
    # shellcheck disable=SC2046 # the options are words
    "$RS" prepare "$w" $(opts "$w") --target "$URL" >"$DIR/prepare-$w.txt" 2>&1 || { tail "$DIR/prepare-$w.txt" >&2; die "prepare $w"; }
    declare -A cap=()
    for a in $CPUS; do
      log "invocation $inv, $w: capacity at p99 <= $SLO on $a CPUs (sweep --rate search)"
      s=$DIR/$w-$inv-search-$a.json
      # shellcheck disable=SC2046
      "$RS" sweep "$w" $(opts "$w") --target "$URL" --db-cpus "$a" --rate search --slo "$SLO" --threads "$(inflight "$w")" \
        --warmup "${WARMUP}s" --time "${TIME}s" --no-history --out "$s" >"$s.txt" 2>&1 || { tail -30 "$s.txt" >&2; die "search failed"; }
      cap[$a]=$(field "${s%.json}-sweep.json" "'%.1f' % (j['search'].get('capacity') or 0)" 2>/dev/null || echo 0.0)
    done
    from=$DIR/$w-$inv-search-$FROM-sweep.json
    printf '\n%s, invocation %d: plan from %s CPUs, objective p99 <= %s\n' "$w" "$inv" "$FROM" "$SLO"
    printf '%-6s %-12s %-12s %-8s | %-10s %-10s %-26s %s\n' CPUs "capacity" "predicted" "ratio" rate "pred p99" "measured p99 ms (runs)" "measured/predicted"
    for a in $CPUS; do
      if [ "${cap[$a]}" = 0.0 ]; then
        printf '%-6s %-12s (the search never met the objective on %s CPUs: nothing to check)\n' "$a" "none" "$a"
        continue
      fi
      read -r pcap _ < <(predicted "$from" "${cap[$a]}" "$a")
      first=1
      for share in 0.5 0.8; do
        r=$(awk -v c="${cap[$a]}" -v s="$share" 'BEGIN { printf "%.0f", c * s }')
        read -r _ pp99 < <(predicted "$from" "$r" "$a")
        p99s=()
        for k in $(seq "$REPS"); do
          f=$DIR/$w-$inv-run-$a-$share-$k.json
          # shellcheck disable=SC2046
          "$RS" run "$w" $(opts "$w") --target "$URL" --db-cpus "$a" --rate "$r" --threads "$(inflight "$w")" \
            --warmup "${WARMUP}s" --time "${TIME}s" --no-history --out "$f" >"$f.txt" 2>&1 || true
          p99s+=("$(field "$f" "'%.2f' % j['summary']['latency']['p99_ms']" 2>/dev/null || echo n/a)")
        done
        m=$(median "${p99s[@]}")
        if [ "$first" = 1 ]; then
          printf '%-6s %-12s %-12s %-8s | ' "$a" "${cap[$a]}/s" "$pcap/s" "$(ratio "$pcap" "${cap[$a]}")"
          first=0
        else
          printf '%-6s %-12s %-12s %-8s | ' "" "" "" ""
        fi
        printf '%-10s %-10s %-26s %s\n' "$r/s" "$pp99" "$m (${p99s[*]})" "$(ratio "$m" "$pp99")"
      done
    done
    read -r rcap _ < <(predicted "$DIR/$w-$inv-search-$REVERSE-sweep.json" "$(awk -v c="${cap[$FROM]}" 'BEGIN { print (c > 0 ? c : 1) }')" "$FROM")
    printf 'reverse: the plan from %s CPUs predicts %s/s on %s CPUs, measured %s/s: %s\n' "$REVERSE" "$rcap" "$FROM" "${cap[$FROM]}" "$(ratio "$rcap" "${cap[$FROM]}")"
    unset cap
  done
done
log "files in $DIR"
