#!/usr/bin/env bash
# rightsize at the published studies' scale, as far as this machine holds it:
# TPC-C load (against go-tpc), a grow to more warehouses, check, a run of
# many terminals at the specification's think times with the generator's
# memory over time, an instance sweep, and 100 sysbench tables (against
# sysbench's own prepare). One table of figures at the end. See
# bench/README.md.
#
# PostgreSQL runs on a private server this script starts from the installed
# binaries (its own data directory, port and max_connections; the machine's
# shared servers are never reconfigured) and stops at the end. MariaDB parts
# use the shared server at 127.0.0.1:3306 within its defaults.
#
# Env options (defaults are this issue's sizes; smaller ones try the script):
#   PARTS="load grow check terminals instances tables mysql"
#   WAREHOUSES=100      TPC-C warehouses loaded and checked
#   GROW_FROM=50        the grow: load this many, then prepare WAREHOUSES
#   LOADERS=4           parallel loaders (both tools)
#   TERMINALS=1000      terminals of the run at the specification's think
#                       times (10 per warehouse: TERMINALS/10 warehouses)
#   RUN_TIME=600        seconds of that run after WARMUP seconds of warm-up
#   WARMUP=60
#   TERMS_GOMEMLIMIT=140MiB  Go's soft memory limit for that run (empty: none;
#                       the README says why: without it the RSS reaches ~230 MiB)
#   INSTANCES="4 8 16 24 32"  the instance sweep's steps (oltp_read_write,
#                       INSTANCE_VUS virtual users each, STEP_TIME seconds)
#   INSTANCE_VUS=4 STEP_TIME=30 INSTANCE_ROWS=10000
#   TABLES=100 TABLE_SIZE=100000  the sysbench tables (PostgreSQL and MariaDB)
#   TABLE_REPS=3        prepares of each tool per server, alternating which
#                       goes first; the table shows the medians
#   MY_WAREHOUSES=400   TPC-C warehouses loaded on MariaDB (14 min here)
#   PG_SHARED_BUFFERS=4GB  the private server's shared_buffers
#   GOTPC=PATH          go-tpc binary (else /tmp/peer/bin/go-tpc; without it
#                       the go-tpc rows are skipped)
#   OUT=bench/out/scale
set -euo pipefail

PARTS=${PARTS:-"load grow check terminals instances tables mysql"}
WAREHOUSES=${WAREHOUSES:-100}
GROW_FROM=${GROW_FROM:-50}
LOADERS=${LOADERS:-4}
TERMINALS=${TERMINALS:-1000}
RUN_TIME=${RUN_TIME:-600}
WARMUP=${WARMUP:-60}
TERMS_GOMEMLIMIT=${TERMS_GOMEMLIMIT-140MiB}
INSTANCES=${INSTANCES:-"4 8 16 24 32"}
INSTANCE_VUS=${INSTANCE_VUS:-4}
STEP_TIME=${STEP_TIME:-30}
INSTANCE_ROWS=${INSTANCE_ROWS:-10000}
TABLES=${TABLES:-100}
TABLE_SIZE=${TABLE_SIZE:-100000}
TABLE_REPS=${TABLE_REPS:-3}
MY_WAREHOUSES=${MY_WAREHOUSES:-400}
PG_SHARED_BUFFERS=${PG_SHARED_BUFFERS:-4GB}
GOTPC=${GOTPC:-/tmp/peer/bin/go-tpc}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
OUT=${OUT:-$REPO_ROOT/bench/out/scale}
init_out
TOOLS="rightsize sysbench go-tpc"
SERVERS="postgres mysql"

want_positive WAREHOUSES GROW_FROM LOADERS TERMINALS RUN_TIME INSTANCE_VUS STEP_TIME INSTANCE_ROWS TABLES TABLE_SIZE TABLE_REPS MY_WAREHOUSES
[ "$GROW_FROM" -lt "$WAREHOUSES" ] || die "GROW_FROM=$GROW_FROM: want fewer than WAREHOUSES=$WAREHOUSES"
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
ensure_clients
ensure_pkg sysbench sysbench

build_rightsize
[ -x "$GOTPC" ] || { log "go-tpc not found at $GOTPC: its rows are skipped (bench/tpcc_vs_gotpc.sh builds it)"; GOTPC=; }

# ---------------------------------------------------------------- the private PostgreSQL server
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PGBIN/postgres" ] || die "no PostgreSQL server binaries under /usr/lib/postgresql"
PGDIR=$OUT/pg
PPORT=${PPORT:-5499}
MAXCONN=$(( (TERMINALS > 32 * INSTANCE_VUS ? TERMINALS : 32 * INSTANCE_VUS) + 50 ))
stop_pg() { [ -f "$PGDIR/data/postmaster.pid" ] && runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast -w stop >/dev/null 2>&1 || true; }
cleanup() {
  stop_pg
  rm -rf "$PGDIR"
  "$MYSQL_CLI" -h "$MY_HOST" -P "$MY_PORT" -u"$MY_USER" -e "DROP DATABASE IF EXISTS rs_scale; DROP DATABASE IF EXISTS sb_scale; DROP DATABASE IF EXISTS gt_scale" 2>/dev/null || true
}
trap cleanup EXIT
rm -rf "$PGDIR"; mkdir -p "$PGDIR"; chown postgres: "$PGDIR"
log "starting a private PostgreSQL on 127.0.0.1:$PPORT (max_connections $MAXCONN, shared_buffers $PG_SHARED_BUFFERS)"
runuser -u postgres -- "$PGBIN/initdb" -D "$PGDIR/data" -A trust -U postgres -E UTF8 --locale=C --no-sync >/dev/null
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -o \
  "-p $PPORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PGDIR -c max_connections=$MAXCONN -c shared_buffers=$PG_SHARED_BUFFERS -c max_wal_size=8GB -c checkpoint_timeout=15min" start >/dev/null
psqlp() { psql -h 127.0.0.1 -p "$PPORT" -U postgres -d postgres -qXAtc "$1"; }
fresh_pg() { psqlp "DROP DATABASE IF EXISTS $1 WITH (FORCE)" && psqlp "CREATE DATABASE $1"; }
pg_url() { echo "postgres://postgres@127.0.0.1:$PPORT/$1?sslmode=disable"; }
my_url() { echo "mysql://$MY_USER@$MY_HOST:$MY_PORT/$1"; }
fresh_my() { "$MYSQL_CLI" -h "$MY_HOST" -P "$MY_PORT" -u"$MY_USER" -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1"; }

# server_cpu NAME -> CPU seconds (user + system) of every process named NAME
# so far, children included (a server's exited backends count in its own).
server_cpu() {
  local tck; tck=$(getconf CLK_TCK)
  for p in $(pgrep -x "$1"); do cat "/proc/$p/stat" 2>/dev/null; done |
    awk -v t="$tck" '{ sub(/^.*\) /, ""); s += $12 + $13 + $14 + $15 } END { printf "%.1f", s / t }'
}
# timed NAME SERVER CMD...: runs CMD under /usr/bin/time; records NAME's wall
# and client CPU seconds and the server's CPU seconds in F.
declare -A F
timed() {
  local name=$1 srv=$2; shift 2
  local before after
  before=$(server_cpu "$srv")
  if ! /usr/bin/time -f '%e %U %S' -o "$OUT/$name.time" "$@" >"$OUT/$name.txt" 2>&1; then
    log "$name FAILED, see $OUT/$name.txt"; tail -5 "$OUT/$name.txt" >&2; F[$name/wall]=FAILED; return 1
  fi
  after=$(server_cpu "$srv")
  F[$name/wall]=$(awk '{ print $1 }' "$OUT/$name.time")
  F[$name/client]=$(awk '{ printf "%.1f", $2 + $3 }' "$OUT/$name.time")
  F[$name/server]=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.1f", a - b }')
}

# median_of NAME N: NAME's wall, client and server CPU are the medians of
# NAME_1..NAME_N's (FAILED if any run failed); NAME/runs lists the walls.
median_of() {
  local name=$1 n=$2 k w walls="" clients="" servers=""
  for k in $(seq 1 "$n"); do
    w=${F[${name}_$k/wall]:-FAILED}
    [ "$w" = FAILED ] && { F[$name/wall]=FAILED; return 0; }
    walls+=" $w"; clients+=" ${F[${name}_$k/client]}"; servers+=" ${F[${name}_$k/server]}"
  done
  # shellcheck disable=SC2086 # separate words
  { F[$name/wall]=$(median $walls); F[$name/client]=$(median $clients); F[$name/server]=$(median $servers); }
  F[$name/runs]=${walls# }
}

# ---------------------------------------------------------------- part 1: load, grow, check
if part load; then
  fresh_pg rs_scale
  # rightsize's time includes its VACUUM (ANALYZE) of every table; go-tpc's
  # load ends without one.
  log "rightsize prepare tpcc, $WAREHOUSES warehouses, $LOADERS loaders"
  timed rs_load postgres "$RS" prepare tpcc --warehouses "$WAREHOUSES" --threads "$LOADERS" --target "$(pg_url rs_scale)" || true
  F[rs_load/size]=$(psqlp "SELECT pg_size_pretty(pg_database_size('rs_scale'))")
  if [ -n "$GOTPC" ]; then
    fresh_pg gt_scale
    log "go-tpc tpcc prepare --no-check, $WAREHOUSES warehouses, $LOADERS threads"
    timed gt_load postgres "$GOTPC" tpcc prepare -d postgres -H 127.0.0.1 -P "$PPORT" -U postgres -D gt_scale \
      --conn-params sslmode=disable --warehouses "$WAREHOUSES" -T "$LOADERS" --no-check || true
    psqlp "DROP DATABASE IF EXISTS gt_scale WITH (FORCE)"
  fi
fi
if part grow; then
  fresh_pg rs_grow
  log "grow: rightsize prepare tpcc $GROW_FROM, then $WAREHOUSES warehouses (seed 1)"
  "$RS" prepare tpcc --warehouses "$GROW_FROM" --threads "$LOADERS" --seed 1 --target "$(pg_url rs_grow)" >"$OUT/rs_grow_first.txt" 2>&1
  timed rs_grow postgres "$RS" prepare tpcc --warehouses "$WAREHOUSES" --threads "$LOADERS" --target "$(pg_url rs_grow)" || true
  grep -q "growing from $GROW_FROM to $WAREHOUSES" "$OUT/rs_grow.txt" || { log "the grow did not grow: see $OUT/rs_grow.txt"; F[rs_grow/wall]=FAILED; }
  psqlp "DROP DATABASE IF EXISTS rs_grow WITH (FORCE)"
fi
if part check; then
  part load || die "PARTS: check needs load"
  log "rightsize check tpcc, $WAREHOUSES warehouses"
  timed rs_check postgres "$RS" check tpcc --warehouses "$WAREHOUSES" --target "$(pg_url rs_scale)" || true
fi

# ---------------------------------------------------------------- part 2: many terminals
if part terminals; then
  TW=$(( (TERMINALS + 9) / 10 ))
  if part load && [ "$TW" = "$WAREHOUSES" ] && [ "${F[rs_load/wall]:-FAILED}" != FAILED ]; then
    tdb=rs_scale # the load's database has the run's size: run on it
  else
    # One database of this size at a time: two of 10 GB, a thousand
    # backends and shared_buffers overflow this machine's memory, and the run
    # then measures the page cache, not the tool (efficiency fell to 59 %).
    psqlp "DROP DATABASE IF EXISTS rs_scale WITH (FORCE)"
    tdb=rs_terms
    fresh_pg rs_terms
    log "rightsize prepare tpcc, $TW warehouses for $TERMINALS terminals"
    "$RS" prepare tpcc --warehouses "$TW" --threads "$LOADERS" --target "$(pg_url rs_terms)" >"$OUT/rs_terms_prepare.txt" 2>&1
  fi
  # rightsize's prepare ends with it (as pgbench's initialisation does);
  # this covers a database loaded otherwise, where autovacuum's first pass
  # over every freshly loaded table would run during the warm-up and the run.
  log "VACUUM (ANALYZE) of the $TW warehouses before the run"
  t0=$(date +%s.%N)
  psql -h 127.0.0.1 -p "$PPORT" -U postgres -d "$tdb" -qXc "VACUUM (ANALYZE)"
  F[terms/vacuum]=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  log "rightsize run tpcc: $TERMINALS terminals, --think-scale 1, ${WARMUP}s warm-up + ${RUN_TIME}s"
  rm -f "$OUT/rs_terms.json" "$OUT/rs_terms.rss"
  # gctrace: the Go runtime prints the live heap after each collection.
  GODEBUG=gctrace=1 GOMEMLIMIT=${TERMS_GOMEMLIMIT:-off} "$RS" run tpcc --warehouses "$TW" --threads "$TERMINALS" --think-scale 1 --warmup "${WARMUP}s" --time "${RUN_TIME}s" \
    --report-interval 10s --target "$(pg_url "$tdb")" --out "$OUT/rs_terms.json" --no-history >"$OUT/rs_terms.txt" 2>"$OUT/rs_terms.gc" &
  rpid=$!
  t0=$(date +%s)
  while kill -0 "$rpid" 2>/dev/null; do # the generator's RSS (MiB) and CPU seconds every 10 s
    awk -v t="$(( $(date +%s) - t0 ))" '/^VmRSS/ { printf "%d %.0f", t, $2 / 1024 }' "/proc/$rpid/status" 2>/dev/null >>"$OUT/rs_terms.rss" || true
    awk -v tck="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf " %.1f\n", ($12 + $13) / tck }' "/proc/$rpid/stat" 2>/dev/null >>"$OUT/rs_terms.rss" || true
    sleep 10
  done
  wait "$rpid" || { log "the terminals' run exited $?: see $OUT/rs_terms.txt and .gc"; grep -v '^gc ' "$OUT/rs_terms.gc" | tail -5 >&2; }
  if jq -e .tpcc "$OUT/rs_terms.json" >/dev/null 2>&1; then
    F[terms/tpmc]=$(jq -r '.tpcc.tpmc | floor' "$OUT/rs_terms.json")
    F[terms/eff]=$(jq -r '.tpcc.efficiency_pct // "n/a" | if type == "number" then . * 10 | round / 10 else . end' "$OUT/rs_terms.json")
    F[terms/mix]=$(jq -r '[.tpcc.mix[] | "\(.name) \(.pct * 10 | round / 10)"] | join(", ")' "$OUT/rs_terms.json")
    F[terms/limits]=$(jq -r 'if all(.tpcc.limits[]; .ok) then "all within clause 5.2.5.3" else "over: " + ([.tpcc.limits[] | select(.ok | not) | .name] | join(", ")) end' "$OUT/rs_terms.json")
    F[terms/p90]=$(jq -r '[.tpcc.limits[] | "\(.name) \(.p90_ms | . * 10 | floor / 10)"] | join(", ")' "$OUT/rs_terms.json")
    F[terms/count]=$(jq -r '.summary.count' "$OUT/rs_terms.json")
    F[terms/intervals]=$(jq -r '[.intervals[] | select(.phase == "measure") | .events] | add' "$OUT/rs_terms.json")
    F[terms/json]=$(du -k "$OUT/rs_terms.json" | awk '{ print $1 }')
  fi
  # RSS after the first minute (or the first sample of a shorter run), its
  # maximum and its last; and the generator's CPU seconds over the run.
  F[terms/rss]=$(awk 'NF == 3 { if (s == "" || (t0 < 60 && $1 >= 60)) { s = $2; t0 = $1 } if ($2 > m) m = $2; e = $2; c = $3 }
    END { printf "%s at %d s, %s max, %s at the end; %s s of CPU", s, t0, m, e, c }' "$OUT/rs_terms.rss")
  # The live heap after the last collection of each minute from 30 s on
  # ("gc N @Ts ...: A->B->C MB": C; under a memory limit there are many).
  F[terms/live]=$(awk '/^gc [0-9]+ @/ { t = $3; sub(/^@/, "", t); sub(/s$/, "", t); split($0, a, "->"); split(a[3], b, " ")
      if (t + 0 >= 30) { m = int(t / 60); if (n == 0 || mm[n] != m) n++; mm[n] = m; l[n] = b[1]; ts[n] = t } }
      END { if (n == 0) { print "n/a"; exit }
      s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") l[i] " at " int(ts[i]) " s"; print s }' "$OUT/rs_terms.gc")
  [ "$tdb" = rs_terms ] && psqlp "DROP DATABASE IF EXISTS rs_terms WITH (FORCE)"
fi

# ---------------------------------------------------------------- part 3: many instances
if part instances; then
  steps=$(echo "$INSTANCES" | tr ' ' ',')
  log "rightsize sweep oltp_read_write --instances $steps ($INSTANCE_VUS VUs each, ${STEP_TIME}s a step)"
  rm -f "$OUT"/inst*
  timed rs_inst postgres "$RS" sweep oltp_read_write --target "$(pg_url sbi)" --instances "$steps" --threads "$INSTANCE_VUS" \
    --table-size "$INSTANCE_ROWS" --warmup 5s --time "${STEP_TIME}s" --report-interval 5s --out "$OUT/inst.json" --no-history || true
  if [ -f "$OUT/inst-sweep.json" ]; then
    F[inst/steps]=$(jq -r '[.steps[] | "\(.instances): \(.throughput | floor)/s p99 \(.p99_ms * 10 | floor / 10)"] | join("; ")' "$OUT/inst-sweep.json")
    # Fairness at each step: the slowest and fastest instance, and the
    # coefficient of variation of their throughputs.
    F[inst/fair]=$(for n in $INSTANCES; do
      jq -r --arg n "$n" '"\($n): \(.fairness.min_throughput | floor)-\(.fairness.max_throughput | floor)/s CoV \(.fairness.cov_pct * 10 | round / 10) %"' "$OUT/inst-instances$n.json" 2>/dev/null
    done | paste -sd ';' | sed 's/;/; /g')
    timed rs_inst_report postgres "$RS" report "$OUT/inst-sweep.json" --format html -o "$OUT/inst.html" || true
  fi
  for n in $(seq 1 "$(echo "$INSTANCES" | tr ' ' '\n' | sort -n | tail -1)"); do psqlp "DROP DATABASE IF EXISTS sbi_$n WITH (FORCE)"; done
fi

# ---------------------------------------------------------------- part 4: many tables
if part tables; then
  # prepare_rs K, prepare_sb K: run K of rightsize's and of sysbench's
  # prepare of the tables on $srv (the loop's server).
  prepare_rs() {
    log "$srv: rightsize prepare oltp_read_write, $TABLES x $TABLE_SIZE rows (run $1 of $TABLE_REPS)"
    timed "rs_tables_${srv}_$1" $proc "$RS" prepare oltp_read_write --tables "$TABLES" --table-size "$TABLE_SIZE" --threads "$LOADERS" --target "$rsurl" || true
  }
  prepare_sb() {
    log "$srv: sysbench oltp_read_write prepare, $TABLES x $TABLE_SIZE rows, --threads=$LOADERS (run $1 of $TABLE_REPS)"
    # shellcheck disable=SC2086 # word splitting of the connection options
    timed "sb_tables_${srv}_$1" $proc sysbench oltp_read_write $sbconn --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$LOADERS" prepare || true
  }
  for srv in postgres mysql; do
    if [ $srv = postgres ]; then
      fresh_pg rs_tables; fresh_pg sb_tables
      rsurl=$(pg_url rs_tables)
      sbconn="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PPORT --pgsql-user=postgres --pgsql-db=sb_tables"
      proc=postgres
    else
      fresh_my rs_tables; fresh_my sb_tables
      rsurl=$(my_url rs_tables)
      sbconn="--db-driver=mysql --mysql-host=$MY_HOST --mysql-port=$MY_PORT --mysql-user=$MY_USER --mysql-db=sb_tables"
      proc=mariadbd
    fi
    # TABLE_REPS prepares of each tool into empty databases, alternating
    # which goes first; the row shows the medians and each run's time.
    for k in $(seq 1 "$TABLE_REPS"); do
      if [ $srv = postgres ]; then fresh_pg rs_tables; fresh_pg sb_tables; else fresh_my rs_tables; fresh_my sb_tables; fi
      if [ $((k % 2)) = 1 ]; then prepare_rs "$k"; prepare_sb "$k"; else prepare_sb "$k"; prepare_rs "$k"; fi
    done
    median_of "rs_tables_$srv" "$TABLE_REPS"
    median_of "sb_tables_$srv" "$TABLE_REPS"
    log "$srv: rightsize run oltp_read_write over the $TABLES tables (${STEP_TIME}s)"
    "$RS" run oltp_read_write --tables "$TABLES" --table-size "$TABLE_SIZE" --threads "$LOADERS" --time "${STEP_TIME}s" \
      --target "$rsurl" --out "$OUT/rs_tables_run_$srv.json" --no-history >"$OUT/rs_tables_run_$srv.txt" 2>&1 || true
    F[tables_run_$srv]=$(jq -r '"\(.summary.throughput | floor) tps, p99 \(.summary.latency.p99_ms * 10 | round / 10) ms"' "$OUT/rs_tables_run_$srv.json" 2>/dev/null || echo FAILED)
    if [ $srv = postgres ]; then psqlp "DROP DATABASE IF EXISTS rs_tables WITH (FORCE)"; psqlp "DROP DATABASE IF EXISTS sb_tables WITH (FORCE)"
    else "$MYSQL_CLI" -h "$MY_HOST" -P "$MY_PORT" -u"$MY_USER" -e "DROP DATABASE rs_tables; DROP DATABASE sb_tables"; fi
  done
fi

# ---------------------------------------------------------------- MariaDB TPC-C load
if part mysql; then
  fresh_my rs_scale
  log "MariaDB: rightsize prepare tpcc, $MY_WAREHOUSES warehouses"
  timed rs_load_mysql mariadbd "$RS" prepare tpcc --warehouses "$MY_WAREHOUSES" --threads "$LOADERS" --target "$(my_url rs_scale)" || true
  F[rs_load_mysql/size]=$("$MYSQL_CLI" -h "$MY_HOST" -P "$MY_PORT" -u"$MY_USER" -N -e \
    "SELECT CONCAT(ROUND(SUM(data_length + index_length) / 1048576), ' MB') FROM information_schema.tables WHERE table_schema = 'rs_scale'" 2>/dev/null || true)
  if [ -n "$GOTPC" ]; then
    # one database of this size at a time: the disk holds the largest loads
    # once, and go-tpc starts on a server in the state rightsize started on
    "$MYSQL_CLI" -h "$MY_HOST" -P "$MY_PORT" -u"$MY_USER" -e "DROP DATABASE rs_scale"
    fresh_my gt_scale
    log "MariaDB: go-tpc tpcc prepare --no-check, $MY_WAREHOUSES warehouses"
    timed gt_load_mysql mariadbd "$GOTPC" tpcc prepare -d mysql -H "$MY_HOST" -P "$MY_PORT" -U "$MY_USER" -D gt_scale \
      --warehouses "$MY_WAREHOUSES" -T "$LOADERS" --no-check || true
  fi
fi

# ---------------------------------------------------------------- the table
row() { printf '%-44s %s\n' "$1" "$2"; }
load_row() { # load_row LABEL KEY [PEER-KEY]
  local k=$1 label=$2 peer=${3:-} s
  [ -n "${F[$k/wall]:-}" ] || return 0
  s="${F[$k/wall]} s (client CPU ${F[$k/client]:-?} s, server CPU ${F[$k/server]:-?} s)"
  if [ -n "$peer" ] && [ -n "${F[$peer/wall]:-}" ]; then
    s+="; ${F[$peer/wall]} s for the peer (client ${F[$peer/client]:-?} s, server ${F[$peer/server]:-?} s): ratio $(ratio "${F[$k/wall]}" "${F[$peer/wall]}")"
  fi
  row "$label" "$s"
}
echo
echo "rightsize at scale ($(date -u +%FT%TZ), $(nproc) CPUs, commit $(git -C "$REPO_ROOT" rev-parse --short HEAD))"
load_row rs_load "PG tpcc prepare W=$WAREHOUSES (vs go-tpc)" gt_load
[ -n "${F[rs_load/size]:-}" ] && row "PG database size, W=$WAREHOUSES" "${F[rs_load/size]}"
load_row rs_grow "PG tpcc grow $GROW_FROM -> $WAREHOUSES"
load_row rs_check "PG check tpcc W=$WAREHOUSES"
[ -n "${F[terms/tpmc]:-}" ] && {
  row "PG $TERMINALS terminals, think-scale 1: tpmC" "${F[terms/tpmc]} (efficiency ${F[terms/eff]} % of 12.86 x W)"
  row "  p90 ms" "${F[terms/p90]} (${F[terms/limits]})"
  row "  mix %" "${F[terms/mix]}"
  row "  VACUUM (ANALYZE) before the run, s" "${F[terms/vacuum]}"
  row "  generator RSS MiB (GOMEMLIMIT ${TERMS_GOMEMLIMIT:-off})" "${F[terms/rss]}"
  row "  live heap MB, each minute's last GC" "${F[terms/live]}"
  row "  HDR count / sum of intervals" "${F[terms/count]} / ${F[terms/intervals]}"
  row "  result JSON KiB" "${F[terms/json]}"
}
[ -n "${F[inst/steps]:-}" ] && {
  row "PG instance sweep (tps, p99 ms)" "${F[inst/steps]}"
  row "  per instance: slowest-fastest, CoV" "${F[inst/fair]}"
  load_row rs_inst_report "  HTML report of the sweep"
}
for srv in postgres mysql; do
  load_row "rs_tables_$srv" "$srv prepare $TABLES x $TABLE_SIZE rows (vs sysbench)" "sb_tables_$srv"
  [ -n "${F[rs_tables_$srv/runs]:-}" ] && [ "$TABLE_REPS" -gt 1 ] &&
    row "  medians of $TABLE_REPS, alternating; walls s" "rightsize ${F[rs_tables_$srv/runs]}; sysbench ${F[sb_tables_$srv/runs]:-?}"
  [ -n "${F[tables_run_$srv]:-}" ] && row "$srv run over the $TABLES tables" "${F[tables_run_$srv]}"
done
load_row rs_load_mysql "MariaDB tpcc prepare W=$MY_WAREHOUSES (vs go-tpc)" gt_load_mysql
if [ -n "${F[rs_load_mysql/size]:-}" ]; then row "MariaDB database size, W=$MY_WAREHOUSES" "${F[rs_load_mysql/size]}"; fi
