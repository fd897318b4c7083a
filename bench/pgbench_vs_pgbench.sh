#!/usr/bin/env bash
# rightsize's pgbench workload next to pgbench itself (Debian's, -M
# prepared), on the same tables, same clients and time, alternating which
# runs first, REPS times: throughput and client CPU per transaction (user +
# sys of the tool's process, from /usr/bin/time) of each, their medians and
# ratios, for the built-in tpcb-like, select-only and a user's script
# (bench/files/pgbench_user.sql). The tables are made by rightsize prepare
# (pgbench running on them is the interoperability check as a side effect).
# See bench/README.md.
#
# Env options:
#   TIME=20        seconds per run
#   CLIENTS=8      pgbench -c, rightsize --threads
#   JOBS=1         pgbench -j (its default: one thread drives every client)
#   SCALE=10       pgbench's scaling factor (prepare --scale)
#   REPS=5         runs of each tool per script, alternating; medians shown
#   SCRIPTS="tpcb-like select-only user"
#   OUT=bench/out  output directory (gitignored)
set -euo pipefail

TIME=${TIME:-20}
TIME=${TIME%s}
CLIENTS=${CLIENTS:-8}
JOBS=${JOBS:-1}
SCALE=${SCALE:-10}
REPS=${REPS:-5}
SCRIPTS=${SCRIPTS:-"tpcb-like select-only user"}
SERVERS=postgres

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out

case $TIME in '' | *[!0-9]*) die "TIME=$TIME: want whole seconds" ;; esac
want_positive CLIENTS JOBS SCALE REPS
ensure_pkg pgbench postgresql-client
ensure_clients
build_rightsize

DB=rs_pgbench
export PGSSLMODE=disable # both tools over plain TCP
URL=$(rs_url postgres)
PGURL="postgresql://$PG_USER@$PG_HOST:$PG_PORT/$DB"
USER_SQL=$SCRIPT_DIR/files/pgbench_user.sql

create_db postgres
log "prepare: rightsize prepare pgbench --scale $SCALE"
"$RS" prepare pgbench --scale "$SCALE" --target "$URL" >"$OUT/pgbench_prepare.txt" 2>&1 ||
  { cat "$OUT/pgbench_prepare.txt" >&2; die "prepare failed"; }

# script_args TOOL SCRIPT: the options that select SCRIPT, the same for
# both tools.
script_args() {
  case $2 in
    user) echo "-f $USER_SQL" ;;
    *) echo "-b $2" ;;
  esac
}

FAILED=0
NOTES=()
declare -A R M

run_pgbench() { # run_pgbench SCRIPT REP
  local w=$1 k=$2 base="$OUT/pgbench_pg_${1}_$2"
  log "pgbench   $w (${TIME}s, run $k of $REPS)"
  # shellcheck disable=SC2046
  if ! /usr/bin/time -f '%U %S' -o "$base.time" \
      pgbench -n -M prepared -c "$CLIENTS" -j "$JOBS" -T "$TIME" $(script_args pgbench "$w") "$PGURL" >"$base.txt" 2>&1; then
    log "pgbench $w FAILED, see $base.txt"; tail -5 "$base.txt" >&2; FAILED=1; return 0
  fi
  local count tps
  count=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$base.txt")
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$base.txt" | head -1)
  R[$w/pg_tps]+=" $(awk -v t="${tps:-0}" 'BEGIN { printf "%.1f", t }')"
  R[$w/pg_cpu]+=" $(cpu_us_per "$base.time" "${count:-0}")"
}

run_rightsize() { # run_rightsize SCRIPT REP
  local w=$1 k=$2 base="$OUT/pgbench_rs_${1}_$2" rc=0
  log "rightsize $w (${TIME}s, run $k of $REPS)"
  rm -f "$base.json"
  # shellcheck disable=SC2046
  /usr/bin/time -f '%U %S' -o "$base.time" \
    "$RS" run pgbench $(script_args rightsize "$w") --target "$URL" --threads "$CLIENTS" --time "${TIME}s" \
      --report-interval 10s --no-history --out "$base.json" >"$base.txt" 2>&1 || rc=$?
  if ! jq -e '.summary.count' "$base.json" >/dev/null 2>&1; then
    log "rightsize $w FAILED (exit $rc, no summary), see $base.txt"; tail -5 "$base.txt" >&2
    FAILED=1; return 0
  fi
  rs_complete "$base.json" "$rc" "$w" "rightsize $w" "$base.txt" || log "rightsize $w: exit $rc ${PARTIAL}"
  local count
  count=$(jq -r '.summary.count' "$base.json")
  R[$w/rs_tps]+=" $(jq -r '.summary.throughput | . * 10 | round / 10' "$base.json")"
  R[$w/rs_cpu]+=" $(cpu_us_per "$base.time" "$count")"
}

for w in $SCRIPTS; do
  for k in $(seq 1 "$REPS"); do
    next_order pgbench rightsize
    for t in $ORDER; do "run_$t" "$w" "$k"; done
  done
done
medians

TABLE=$OUT/pgbench_vs_pgbench.txt
{
  printf '# rightsize vs %s -M prepared: clients=%s jobs=%s scale=%s time=%ss, median of %s alternating runs, %s, nproc=%s\n' \
    "$(pgbench --version)" "$CLIENTS" "$JOBS" "$SCALE" "$TIME" "$REPS" "$(date -u +%FT%TZ)" "$(nproc)"
  fmt='%-12s %10s %10s %6s %10s %10s %6s\n'
  printf "$fmt" script pg_tps rs_tps tps_x pg_us/txn rs_us/txn cpu_x
  for w in $SCRIPTS; do
    printf "$fmt" "$w${R[$w/flag]:-}" "${M[$w/pg_tps]:-n/a}" "${M[$w/rs_tps]:-n/a}" \
      "$(ratio "${M[$w/rs_tps]:-}" "${M[$w/pg_tps]:-}")" \
      "${M[$w/pg_cpu]:-n/a}" "${M[$w/rs_cpu]:-n/a}" "$(ratio "${M[$w/rs_cpu]:-}" "${M[$w/pg_cpu]:-}")"
  done
  for w in $SCRIPTS; do
    for f in pg_tps rs_tps pg_cpu rs_cpu; do
      [ -z "${R[$w/$f]:-}" ] || echo "# runs $w $f:${R[$w/$f]}"
    done
  done
  notes_lines
  echo "# tps_x = rightsize/pgbench throughput (>1: rightsize faster);"
  echo "# cpu_x = rightsize/pgbench client CPU per transaction (<1: rightsize lighter)."
} | tee "$TABLE"

[ "$FAILED" -eq 0 ] || die "some runs failed; see logs in $OUT"
