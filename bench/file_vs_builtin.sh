#!/usr/bin/env bash
# A workload file against the built-in workload it mirrors: the file
# bench/files/point_select.yaml (one SELECT by primary key, autocommit,
# uniform id) and oltp_point_select --rand-type uniform, on the same
# sbtest1 of TABLE_SIZE rows, same threads and time, alternating which runs
# first, REPS times. Prints, per server, the medians of throughput and
# client CPU per transaction (user+sys of the rightsize process) and the
# file's ratios to the built-in: the cost of a workload described as data.
#
# Env options:
#   SERVERS="postgres mysql"  the loopback servers to measure
#   TIME=10 THREADS=4 REPS=3 TABLE_SIZE=100000
#   OUT=bench/out             output directory (gitignored)
set -euo pipefail

SERVERS=${SERVERS:-"postgres mysql"}
TIME=${TIME:-10}
TIME=${TIME%s}
THREADS=${THREADS:-4}
REPS=${REPS:-3}
TABLE_SIZE=${TABLE_SIZE:-100000}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out

case $TIME in '' | *[!0-9]*) die "TIME=$TIME: want whole seconds" ;; esac
want_positive THREADS REPS TABLE_SIZE
ensure_clients
build_rightsize

DB=rs_filebench
FILE=$OUT/point_select.yaml
sed "s/max: 100000}/max: $TABLE_SIZE}/" "$SCRIPT_DIR/files/point_select.yaml" >"$FILE"

table=$OUT/file_vs_builtin.txt
{
  printf 'workload file vs built-in: SELECT by primary key, autocommit, %s threads, %s s, %s rows, median of %s alternating runs\n' \
    "$THREADS" "$TIME" "$TABLE_SIZE" "$REPS"
  printf '%-9s %-18s %12s %14s   %s\n' server workload tps 'µs CPU/tx' 'runs (tps)'
} >"$table"
for s in $SERVERS; do
  create_db "$s"
  url=$(rs_url "$s")
  log "$s: prepare sbtest1 ($TABLE_SIZE rows)"
  "$RS" prepare oltp_point_select --tables 1 --table-size "$TABLE_SIZE" --target "$url" >"$OUT/file_prepare_$s.txt" 2>&1 ||
    die "prepare failed: see $OUT/file_prepare_$s.txt"
  declare -A tps=() cpu=()
  for k in $(seq 1 "$REPS"); do
    next_order builtin file
    for which in $ORDER; do
      base=$OUT/file_${s}_${which}_$k
      if [ "$which" = builtin ]; then
        args=(oltp_point_select --tables 1 --table-size "$TABLE_SIZE" --rand-type uniform)
      else
        args=("$FILE")
      fi
      log "$s: $which, run $k of $REPS"
      /usr/bin/time -f '%U %S' -o "$base.time" "$RS" run "${args[@]}" --target "$url" --threads "$THREADS" \
        --time "${TIME}s" --no-history --out "$base.json" >"$base.txt" 2>&1 || die "run failed: see $base.txt"
      n=$(jq -r '.summary.count' "$base.json")
      tps[$which]+="$(jq -r '.summary.throughput | floor' "$base.json") "
      cpu[$which]+="$(cpu_us_per "$base.time" "$n" 1) "
    done
  done
  for which in builtin file; do
    # shellcheck disable=SC2086 # separate words
    printf '%-9s %-18s %12s %14s   %s\n' "$s" "$which" "$(median ${tps[$which]})" "$(median ${cpu[$which]})" "${tps[$which]}" >>"$table"
  done
  # shellcheck disable=SC2086
  printf '%-9s %-18s %12s %14s\n' "$s" "file / built-in" "$(ratio "$(median ${tps[file]})" "$(median ${tps[builtin]})")" \
    "$(ratio "$(median ${cpu[file]})" "$(median ${cpu[builtin]})")" >>"$table"
  "$RS" cleanup oltp_point_select --tables 1 --target "$url" >/dev/null 2>&1 || true
  unset tps cpu
done
cat "$table"
