#!/usr/bin/env bash
# A distributed TPC-C run next to the same run in one process: the run is
# driven once by one rightsize process and once by SHARDS processes on
# shards of it (--shard i/SHARDS, started together through a history
# catalog), whose results 'rightsize merge' adds. The table compares tpmC,
# throughput, latency percentiles, errors and the generators' client CPU.
# See bench/README.md.
#
# Env options:
#   TIME=30          measured seconds per run ("30s" works too)
#   WARMUP=5         warm-up seconds
#   WAREHOUSES=4     TPC-C warehouses
#   THREADS=8        terminals in the whole run (each shard drives its share)
#   SHARDS=4         generator processes
#   THINK=0          --think-scale (0: no keying or think time)
#   OUT=bench/out    output directory (gitignored)
set -euo pipefail

TIME=${TIME:-30}
TIME=${TIME%s}
WARMUP=${WARMUP:-5}
WARMUP=${WARMUP%s}
WAREHOUSES=${WAREHOUSES:-4}
THREADS=${THREADS:-8}
SHARDS=${SHARDS:-4}
THINK=${THINK:-0}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out
SERVERS=postgres

for v in TIME WARMUP WAREHOUSES THREADS SHARDS; do
  case ${!v} in '' | *[!0-9]*) die "$v=${!v}: want a whole number" ;; esac
done
[ "$SHARDS" -ge 1 ] && [ "$THREADS" -ge "$SHARDS" ] || die "want 1 <= SHARDS <= THREADS"

ensure_clients
export PGSSLMODE=disable
DB=rs_tpcc_shards
TARGET="postgres://postgres@127.0.0.1:5432/$DB?sslmode=disable"
HIST="sqlite:$OUT/tpcc_shards_history.db"

build_rightsize

log "loading $WAREHOUSES warehouses into $DB"
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $DB"
"$RS" prepare tpcc --target "$TARGET" --warehouses "$WAREHOUSES" --threads 4 >"$OUT/tpcc_shards_prepare.txt" 2>&1

common=(--target "$TARGET" --warehouses "$WAREHOUSES" --threads "$THREADS" --think-scale "$THINK"
  --warmup "${WARMUP}s" --time "${TIME}s" --seed 42 --history "$HIST")

log "one process: $THREADS terminals"
/usr/bin/time -f '%U %S' -o "$OUT/tpcc_shards_one.time" \
  "$RS" run tpcc "${common[@]}" --out "$OUT/tpcc_shards_one.json" >"$OUT/tpcc_shards_one.txt" 2>&1

RUN_ID=tpcc-shards-$(date -u +%Y%m%dT%H%M%SZ)
log "$SHARDS processes on shards of run $RUN_ID"
pids=()
for ((i = 0; i < SHARDS; i++)); do
  /usr/bin/time -f '%U %S' -o "$OUT/tpcc_shards_$i.time" \
    "$RS" run tpcc "${common[@]}" --shard "$i/$SHARDS" --run-id "$RUN_ID" \
    --out "$OUT/tpcc_shards_$i.json" >"$OUT/tpcc_shards_$i.txt" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || die "a shard failed: see $OUT/tpcc_shards_*.txt"; done
"$RS" merge --run "$RUN_ID" --history "$HIST" -o "$OUT/tpcc_shards_merged.json" >"$OUT/tpcc_shards_merge.txt" 2>&1 ||
  die "merge failed: see $OUT/tpcc_shards_merge.txt"

one=$OUT/tpcc_shards_one.json
mrg=$OUT/tpcc_shards_merged.json
f() { jq -r "$1" "$2"; }
shard_cpu=0
for ((i = 0; i < SHARDS; i++)); do
  shard_cpu=$(awk -v a="$shard_cpu" '{ print a + $(NF-1) + $NF }' "$OUT/tpcc_shards_$i.time")
done
one_cpu=$(awk '{ print $(NF-1) + $NF }' "$OUT/tpcc_shards_one.time")

{
  printf 'TPC-C, %s warehouses, %s terminals, think scale %s, %ss measured after %ss warm-up, PostgreSQL on 127.0.0.1\n' \
    "$WAREHOUSES" "$THREADS" "$THINK" "$TIME" "$WARMUP"
  printf '%-28s %16s %16s %8s\n' figure "one process" "$SHARDS shards merged" ratio
  row() { printf '%-28s %16s %16s %8s\n' "$1" "$2" "$3" "$(ratio "$3" "$2")"; }
  for k in tpmc:.tpcc.tpmc nopm:.tpcc.nopm tps:.summary.throughput transactions:.summary.count \
    p50_ms:.summary.latency.p50_ms p95_ms:.summary.latency.p95_ms p99_ms:.summary.latency.p99_ms \
    errors:.summary.errors retries:.summary.retries; do
    row "${k%%:*}" "$(f "${k#*:} | if type == \"number\" then (. * 100 | round / 100) else . end" "$one")" \
      "$(f "${k#*:} | if type == \"number\" then (. * 100 | round / 100) else . end" "$mrg")"
  done
  for tx in new_order payment order_status delivery stock_level; do
    q=".tpcc.limits[] | select(.name == \"$tx\") | .p90_ms * 100 | round / 100"
    row "p90 ms $tx" "$(f "$q" "$one")" "$(f "$q" "$mrg")"
  done
  row "client CPU s (all processes)" "$one_cpu" "$shard_cpu"
  printf '\nshards: %s\n' "$(jq -c '[.generators[] | {shard: "\(.shard.index)/\(.shard.count)", vus: "\(.shard.first_vu + 1)..\(.shard.first_vu + .shard.vus)", count, late_s: (.shard.late_s * 1000 | round / 1000)}]' "$mrg")"
} | tee "$OUT/tpcc_shards.txt"
