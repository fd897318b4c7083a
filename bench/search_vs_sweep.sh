#!/usr/bin/env bash
# The capacity search next to a dense fixed sweep over the same range, on
# the local PostgreSQL (issue 33's acceptance): oltp_read_only, open loop.
#
# 1. `sweep --rate search --slo SLO`: the highest rate per instance that
#    meets the objective and is kept up with, and how many probes it took.
# 2. A fixed sweep of STEPS rates evenly from the search's first probe to
#    1.5 times its capacity, with the same --slo: its knee (slo or
#    sustained, whichever its verdict names) and its step count.
# 3. A run at 0.8x and one at 1.5x the searched capacity: whether each met
#    the objective and kept up.
# REPS times; the table lists every repetition and the medians. See
# bench/README.md.
#
# Env options:
#   SLO=100ms      the objective (p99; p95=20ms for the p95)
#   TIME=10        seconds measured per step, WARMUP=3 before each
#   THREADS=16     the most events in flight per instance
#   TABLES=4 TABLE_SIZE=20000
#   STEPS=10       the dense sweep's steps
#   REPS=1
#   OUT=bench/out  output directory (gitignored)
set -euo pipefail

SLO=${SLO:-100ms}
TIME=${TIME:-10}
WARMUP=${WARMUP:-3}
THREADS=${THREADS:-16}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-20000}
STEPS=${STEPS:-10}
REPS=${REPS:-1}
SERVERS=postgres

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out
want_positive TIME THREADS TABLES TABLE_SIZE STEPS REPS
case $WARMUP in *[!0-9]*) die "WARMUP=$WARMUP: want whole seconds" ;; esac
ensure_clients
build_rightsize

DB=rs_search
URL=$(rs_url postgres)
create_db postgres
log "prepare: $TABLES tables of $TABLE_SIZE rows"
"$RS" prepare oltp_read_only --tables "$TABLES" --table-size "$TABLE_SIZE" --target "$URL" >"$OUT/search_prepare.txt" 2>&1 ||
  { cat "$OUT/search_prepare.txt" >&2; die "prepare failed"; }

common=(--tables "$TABLES" --table-size "$TABLE_SIZE" --target "$URL" --threads "$THREADS" --time "${TIME}s" --warmup "${WARMUP}s" --no-history --prepare never)
rows=()
for rep in $(seq 1 "$REPS"); do
  d=$OUT/search_rep$rep
  rm -rf "$d" && mkdir -p "$d"
  log "rep $rep: the search"
  "$RS" sweep oltp_read_only --rate search --slo "$SLO" --out "$d/search.json" "${common[@]}" >"$d/search.txt" 2>&1 ||
    { cat "$d/search.txt" >&2; die "the search failed"; }
  sw=$d/search-sweep.json
  outcome=$(jq -r '.search.outcome' "$sw")
  cap=$(jq -r '.search.capacity_per_instance // 0' "$sw")
  probes=$(jq -r '.search.probes | length' "$sw")
  first=$(jq -r '.search.probes[0].x' "$sw")
  [ "$outcome" = found ] || log "rep $rep: the search's outcome is $outcome: $(jq -r .search.stopped "$sw")"
  # The dense sweep: STEPS rates evenly from the first probe to 1.5x the capacity.
  rates=$(awk -v a="$first" -v c="$cap" -v n="$STEPS" 'BEGIN { b = 1.5 * c; if (b <= a) b = 2 * a;
    for (i = 0; i < n; i++) { r = a + (b - a) * i / (n - 1); printf "%s%.0f", (i ? "," : ""), r } }')
  log "rep $rep: the dense sweep over $rates"
  "$RS" sweep oltp_read_only --rate "$rates" --slo "$SLO" --out "$d/dense.json" "${common[@]}" >"$d/dense.txt" 2>&1 ||
    { cat "$d/dense.txt" >&2; die "the dense sweep failed"; }
  dw=$d/dense-sweep.json
  knee_method=$(jq -r '.knee.method // "none"' "$dw")
  knee=$(jq -r 'if .knee then .steps[.knee.index].throughput else 0 end' "$dw")
  sustained=$(jq -r '[.knees[] | select(.method == "sustained" and .index >= 0)][0] as $k | if $k then .steps[$k.index].throughput else 0 end' "$dw")
  pct=$(jq -r '.search.percentile' "$sw")
  for m in 0.8 1.5; do
    r=$(awk -v c="$cap" -v m="$m" 'BEGIN { printf "%.0f", c * m }')
    log "rep $rep: a run at ${m}x of the capacity ($r/s)"
    "$RS" run oltp_read_only --rate "$r" --out "$d/run$m.json" "${common[@]}" >"$d/run$m.txt" 2>&1 ||
      { cat "$d/run$m.txt" >&2; die "the run at $r/s failed"; }
    lat=$(jq -r --arg p "$pct" '.summary.latency[$p + "_ms"]' "$d/run$m.json")
    done_pct=$(jq -r '100 * .summary.throughput / .summary.offered' "$d/run$m.json")
    slo_ms=$(jq -r '.search.slo_ms' "$sw")
    ok=$(awk -v l="$lat" -v s="$slo_ms" -v d="$done_pct" 'BEGIN { print (l <= s && d >= 95) ? "met" : "missed" }')
    eval "run_$(echo $m | tr . _)=\"$(printf '%.1f ms, %.0f%% done: %s' "$lat" "$done_pct" "$ok")\""
  done
  rows+=("$(printf '%s|%s|%.0f|%s|%s (%.0f/s)|%.0f|%s|%s|%s|%s' "$rep" "$outcome" "$cap" "$probes" "$knee_method" "$knee" "$sustained" "$STEPS" \
    "$(ratio "$cap" "$knee")" "$run_0_8" "$run_1_5")")
done

{
  printf 'capacity search vs a dense fixed sweep: oltp_read_only on PostgreSQL, objective %s, %s in flight, %ss + %ss warm-up per step\n\n' "$SLO" "$THREADS" "$TIME" "$WARMUP"
  printf '%-4s %-8s %10s %7s %-22s %10s %6s %11s  %-28s %-28s\n' rep outcome capacity/s probes "dense knee" sustained steps search/knee "at 0.8x" "at 1.5x"
  for row in "${rows[@]}"; do
    IFS='|' read -r a b c d e f g h i j <<<"$row"
    printf '%-4s %-8s %10s %7s %-22s %10s %6s %11s  %-28s %-28s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h" "$i" "$j"
  done
  printf '\nfiles: %s/search_rep*/\n' "$OUT"
} | tee "$OUT/search_vs_sweep.txt"
