#!/usr/bin/env bash
# Counts per transaction, rightsize against sysbench 1.0, on the same
# tables and servers (issue 18: profile and count before optimising). For
# each server x workload and each client, one run under perf stat (the
# client's CPU, context switches and CPU migrations, per transaction) with
# /proc/interrupts read around it (rescheduling and function-call
# interrupts: the cross-CPU wake-ups of the whole host, client and server
# together), then a shorter run under strace -f -c (system calls per
# transaction, and the three most frequent). No hardware counters here (a
# VM): instructions per transaction are callgrind's, not this script's.
# See bench/README.md.
#
# Env options (as oltp_vs_sysbench.sh's):
#   TIME=10            seconds of the perf run
#   STRACE_TIME=5      seconds of the strace run (strace slows a client down:
#                      its throughput is not compared, only its counts)
#   THREADS=4 TABLES=4 TABLE_SIZE=100000
#   SERVERS="postgres mysql"
#   WORKLOADS="oltp_point_select oltp_read_write"
#   PREPARE=1          0: use the sbtest tables already there
#   OUT=bench/out
set -euo pipefail

TIME=${TIME:-10}
STRACE_TIME=${STRACE_TIME:-5}
THREADS=${THREADS:-4}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
SERVERS=${SERVERS:-"postgres mysql"}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_write"}
PREPARE=${PREPARE:-1}
TOOLS="sysbench rightsize"
RAND_TYPE=special

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out

DB=rs_bench
export PGSSLMODE=disable # as oltp_vs_sysbench.sh: both tools without TLS

ensure_pkg sysbench sysbench
ensure_pkg perf linux-perf
ensure_pkg strace strace
ensure_clients

build_rightsize

# client SERVER WORKLOAD TOOL SECONDS OUTBASE: the client's command line.
client() {
  local s=$1 w=$2 tool=$3 t=$4 base=$5
  case $tool in
    # shellcheck disable=SC2046
    sysbench) echo sysbench "$w" $(sb_conn "$s") --threads="$THREADS" --tables="$TABLES" --table-size="$TABLE_SIZE" \
      --time="$t" --rand-type="$RAND_TYPE" --report-interval=0 run ;;
    rightsize) echo "$RS" run "$w" --target "$(rs_url "$s")" --threads "$THREADS" --tables "$TABLES" --table-size "$TABLE_SIZE" \
      --time "${t}s" --rand-type "$RAND_TYPE" --report-interval 10s --no-history --out "$base.json" ;;
  esac
}

# transactions TOOL OUTBASE: how many transactions the run did.
transactions() {
  case $1 in
    sysbench) awk '/transactions:/ { print $2; exit }' "$2.txt" ;;
    rightsize) jq -r '.summary.count' "$2.json" ;;
  esac
}

prepare() {
  local s=$1
  create_db "$s"
  # shellcheck disable=SC2046
  sysbench oltp_read_write $(sb_conn "$s") --tables="$TABLES" cleanup >/dev/null 2>&1 || true
  # shellcheck disable=SC2046
  sysbench oltp_read_write $(sb_conn "$s") --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 prepare >/dev/null
}

rows=()
for s in $SERVERS; do
  [ "$PREPARE" = 1 ] && { log "preparing $TABLES x $TABLE_SIZE rows on $s (sysbench)"; prepare "$s"; }
  for w in $WORKLOADS; do
    for tool in $TOOLS; do
      base="$OUT/counts_${tool}_${s}_$w"
      log "$tool $s $w: perf stat, ${TIME}s"
      # shellcheck disable=SC2046
      perf_counts "$base" $(client "$s" "$w" "$tool" "$TIME" "$base")
      n=$(transactions "$tool" "$base")
      log "$tool $s $w: strace -f -c, ${STRACE_TIME}s"
      # shellcheck disable=SC2046
      strace_counts "$base" $(client "$s" "$w" "$tool" "$STRACE_TIME" "$base.st")
      ns=$(transactions "$tool" "$base.st")
      allocs=-
      [ "$tool" = rightsize ] && allocs=$(jq -r '.client.allocs_per_event // 0 | . * 10 | round / 10' "$base.json")
      rows+=("$(printf '%-9s %-8s %-18s %9s %9s %9s %9s %9s %9s %7s  %s' "$tool" "$s" "$w" \
        "$(per "$n" "$TIME" 0)" "$(per "$PC_CPU_US" "$n" 1)" \
        "$(per "$PC_CS" "$n")" "$(per "$PC_MIG" "$n" 3)" "$(per "$PC_IPI" "$n")" "$(per "$SC_CALLS" "$ns" 1)" "$allocs" "$(strace_top "$ns")")")
    done
  done
done

{
  printf '%-9s %-8s %-18s %9s %9s %9s %9s %9s %9s %7s  %s\n' tool server workload tps 'cpu_us' 'ctxsw' 'migr' 'ipi' 'syscalls' 'allocs' 'most frequent system calls per transaction'
  printf '%s\n' "${rows[@]}"
  echo
  echo "per transaction: cpu_us = the client's CPU (perf task-clock); ctxsw and migr = the client's context switches and CPU"
  echo "migrations; ipi = rescheduling + function-call interrupts of the whole host (client and server); syscalls = the"
  echo "client's system calls under strace -f (a ${STRACE_TIME}s run of its own); allocs = rightsize's Go heap allocations"
  echo "(client.allocs_per_event; sysbench is C, -). tps is the perf run's, one run: compare"
  echo "throughput with oltp_vs_sysbench.sh's medians, not here."
} | tee "$OUT/counts_oltp.txt"
