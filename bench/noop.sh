#!/usr/bin/env bash
# The load generator's own ceiling: rightsize's noop workload (events that do
# nothing; no database, no I/O) closed loop at 1, 2 and 4 virtual users, with
# HDR recording and interval ticks on as in every run. Prints the median
# events/s and client CPU per event of REPS runs each. See bench/README.md.
#
# Env options:
#   TIME=10        seconds per run
#   REPS=3         runs per virtual-user count (median shown)
#   VUS="1 2 4"    virtual-user counts
#   OUT=bench/out  output directory (gitignored)
set -euo pipefail

TIME=${TIME:-10}
TIME=${TIME%s}
REPS=${REPS:-3}
VUS=${VUS:-"1 2 4"}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out

case $TIME in '' | *[!0-9]*) die "TIME=$TIME: want whole seconds" ;; esac
want_positive REPS
ensure_pkg jq jq
ensure_pkg /usr/bin/time time

build_rightsize

table=$OUT/noop.txt
{
  printf 'rightsize noop, closed loop, %s s per run, median of %s runs, %s CPUs\n' "$TIME" "$REPS" "$(nproc)"
  printf '%-4s %14s %12s   %s\n' vus 'events/s' 'µs/event' 'runs (events/s)'
} >"$table"
for v in $VUS; do
  rates=() cpus=()
  for k in $(seq 1 "$REPS"); do
    base=$OUT/noop_${v}vu_$k
    log "noop, $v virtual user(s), run $k of $REPS"
    /usr/bin/time -f '%U %S' -o "$base.time" \
      "$RS" run noop --threads "$v" --time "${TIME}s" --no-history --out "$base.json" >"$base.txt" 2>&1 ||
      die "run failed: see $base.txt"
    n=$(jq -r '.summary.count' "$base.json")
    rates+=("$(jq -r '.summary.throughput | floor' "$base.json")")
    cpus+=("$(cpu_us_per "$base.time" "$n" 3)")
  done
  printf '%-4s %14s %12s   %s\n' "$v" "$(median "${rates[@]}")" "$(median "${cpus[@]}")" "${rates[*]}" >>"$table"
done
cat "$table"
