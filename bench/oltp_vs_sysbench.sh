#!/usr/bin/env bash
# Side-by-side comparison of rightsize and sysbench 1.0 on the same tables,
# same servers, same parameters. See bench/README.md.
#
# Env options:
#   TIME=30            seconds per run (each tool, each server x workload)
#   THREADS=4          client threads
#   TABLES=4           sbtest tables
#   TABLE_SIZE=100000  rows per table
#   SERVERS="postgres mysql"
#   WORKLOADS="oltp_point_select oltp_read_write"
#   TOOLS="sysbench rightsize"  drop one to run only the other's half
#   REPS=3             runs of each tool per server x workload, alternating;
#                      the table shows the median of each figure
#   OUT=bench/out      output directory (gitignored)
set -euo pipefail

TIME=${TIME:-30}
THREADS=${THREADS:-4}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
SERVERS=${SERVERS:-"postgres mysql"}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_write"}
TOOLS=${TOOLS:-"sysbench rightsize"}
REPS=${REPS:-3}
RAND_TYPE=special # sysbench's default; passed explicitly to both tools

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out

DB=rs_bench

# sysbench's pgsql driver goes through libpq, whose default is sslmode=prefer:
# against a server with ssl=on it silently uses TLS (about half the
# throughput). Force plain TCP so both tools are measured without TLS.
export PGSSLMODE=disable

# ---------------------------------------------------------------- packages
ensure_pkg sysbench sysbench
ensure_clients

# ---------------------------------------------------------------- build
if has_tool rightsize; then build_rightsize; fi

FAILED=0
NOTES=()
declare -A R # results, keyed "server/workload/field": one value per repetition
declare -A M # medians of R

run_sysbench() { # run_sysbench SERVER WORKLOAD REP
  local s=$1 w=$2 k=$3 base="$OUT/sysbench_${1}_${2}_$3"
  log "sysbench  $s $w (${TIME}s, run $k of $REPS)"
  # shellcheck disable=SC2046
  if ! /usr/bin/time -f '%U %S' -o "$base.time" \
      sysbench "$w" $(sb_conn "$s") --threads="$THREADS" --tables="$TABLES" \
        --table-size="$TABLE_SIZE" --time="$TIME" --rand-type="$RAND_TYPE" \
        --percentile=99 --report-interval=0 run >"$base.txt" 2>&1; then
    log "sysbench $s $w FAILED, see $base.txt"; tail -5 "$base.txt" >&2; FAILED=1; return 0
  fi
  local count tps p99
  count=$(awk '/transactions:/ { print $2; exit }' "$base.txt")
  tps=$(sed -n 's/.*transactions:.*(\([0-9.]*\) per sec.).*/\1/p' "$base.txt" | head -1)
  p99=$(awk '/99th percentile:/ { print $3; exit }' "$base.txt")
  R[$s/$w/sb_tps]+=" ${tps:-n/a}"
  R[$s/$w/sb_p99]+=" ${p99:-n/a}"
  R[$s/$w/sb_cpu]+=" $(cpu_us_per "$base.time" "${count:-0}")"
}

run_rightsize() { # run_rightsize SERVER WORKLOAD REP
  local s=$1 w=$2 k=$3 base="$OUT/rightsize_${1}_${2}_$3"
  log "rightsize $s $w (${TIME}s, run $k of $REPS)"
  rm -f "$base.json"
  local rc=0
  /usr/bin/time -f '%U %S' -o "$base.time" \
    "$RS" run "$w" --target "$(rs_url "$s")" --threads "$THREADS" --tables "$TABLES" \
      --table-size "$TABLE_SIZE" --time "${TIME}s" --rand-type "$RAND_TYPE" \
      --report-interval 10s --out "$base.json" >"$base.txt" 2>&1 || rc=$?
  if ! jq -e '.summary.count' "$base.json" >/dev/null 2>&1; then
    log "rightsize $s $w FAILED (exit $rc, no summary), see $base.txt"; tail -5 "$base.txt" >&2
    FAILED=1; return 0
  fi
  rs_complete "$base.json" "$rc" "$s/$w" "$s $w" "$base.txt" ||
    log "rightsize $s $w: exit $rc ${PARTIAL}"
  local count
  count=$(jq -r '.summary.count' "$base.json")
  R[$s/$w/rs_tps]+=" $(jq -r '.summary.throughput | . * 100 | round / 100' "$base.json")"
  R[$s/$w/rs_p99]+=" $(jq -r '.summary.latency.p99_ms | . * 100 | round / 100' "$base.json")"
  R[$s/$w/rs_cpu]+=" $(cpu_us_per "$base.time" "$count")"
}

# ---------------------------------------------------------------- prepare
# Tables are prepared once per server by sysbench itself, so rightsize runs on
# tables it did not create (compatibility check as a side effect).
for s in $SERVERS; do
  log "preparing $s: database $DB, $TABLES x $TABLE_SIZE rows (sysbench cleanup + prepare)"
  create_db "$s"
  # shellcheck disable=SC2046
  sysbench oltp_read_write $(sb_conn "$s") --tables="$TABLES" cleanup >"$OUT/prepare_$s.txt" 2>&1 \
    || { cat "$OUT/prepare_$s.txt" >&2; die "sysbench cleanup failed on $s"; }
  # shellcheck disable=SC2046
  sysbench oltp_read_write $(sb_conn "$s") --tables="$TABLES" --table-size="$TABLE_SIZE" \
    --threads="$THREADS" prepare >>"$OUT/prepare_$s.txt" 2>&1 \
    || { cat "$OUT/prepare_$s.txt" >&2; die "sysbench prepare failed on $s"; }
done

# ---------------------------------------------------------------- runs
# The data set (TABLES x TABLE_SIZE rows, ~25 MB per 100k rows) was just
# written by sysbench prepare, so it is already in the server's cache when the
# first run starts: both tools see the same warm caches. We still alternate
# which tool goes first per server x workload so that any residual drift
# (checkpoints, autovacuum after oltp_read_write, purge) does not always
# penalise the same tool.
for s in $SERVERS; do
  for w in $WORKLOADS; do
    for k in $(seq 1 "$REPS"); do
      next_order sysbench rightsize
      for t in $ORDER; do
        if has_tool "$t"; then "run_$t" "$s" "$w" "$k"; fi
      done
    done
  done
done
# Medians of the repetitions; the raw values go to the table's footer.
medians

# ---------------------------------------------------------------- report
TABLE=$OUT/oltp_vs_sysbench.txt
{
  printf '# rightsize vs sysbench %s: threads=%s tables=%s table-size=%s time=%ss rand-type=%s, median of %s alternating runs, %s, nproc=%s\n' \
    "$(sysbench --version | awk '{print $2}')" "$THREADS" "$TABLES" "$TABLE_SIZE" "$TIME" \
    "$RAND_TYPE" "$REPS" "$(date -u +%FT%TZ)" "$(nproc)"
  fmt='%-9s %-18s %10s %10s %6s %8s %8s %9s %9s %6s\n'
  printf "$fmt" server workload sb_tps rs_tps tps_x sb_p99ms rs_p99ms sb_us/txn rs_us/txn cpu_x
  for s in $SERVERS; do
    for w in $WORKLOADS; do
      printf "$fmt" "$s" "$w${R[$s/$w/flag]:-}" \
        "${M[$s/$w/sb_tps]:-n/a}" "${M[$s/$w/rs_tps]:-n/a}" \
        "$(ratio "${M[$s/$w/rs_tps]:-}" "${M[$s/$w/sb_tps]:-}")" \
        "${M[$s/$w/sb_p99]:-n/a}" "${M[$s/$w/rs_p99]:-n/a}" \
        "${M[$s/$w/sb_cpu]:-n/a}" "${M[$s/$w/rs_cpu]:-n/a}" \
        "$(ratio "${M[$s/$w/rs_cpu]:-}" "${M[$s/$w/sb_cpu]:-}")"
    done
  done
  for s in $SERVERS; do
    for w in $WORKLOADS; do runs_lines "$s" "$w" sb_tps rs_tps sb_cpu rs_cpu; done
  done
  notes_lines
  echo "# tps_x = rightsize/sysbench throughput (>1: rightsize faster);"
  echo "# cpu_x = rightsize/sysbench client CPU per transaction (<1: rightsize lighter)."
} | tee "$TABLE"

[ "$FAILED" -eq 0 ] || die "some runs failed; see logs in $OUT"
