#!/usr/bin/env bash
# Side-by-side comparison of rightsize's TPC-C workload and go-tpc
# (github.com/pingcap/go-tpc) on the same servers with the same parameters:
# load time, tpmC, 90th-percentile latency per transaction type and client
# CPU per transaction. See bench/README.md.
#
# Env options:
#   TIME=60            seconds per run (each tool, each server); "60s" works too
#   THREADS=4          terminals / client threads (also the parallel loaders)
#   WAREHOUSES=2       TPC-C warehouses (W=2 works too)
#   SERVERS="postgres mysql"
#   TOOLS="rightsize go-tpc"   drop one to run only the other's half
#   REPS=1             load + run cycles per tool per server, alternating which
#                      tool goes first; the table shows the median of each figure
#   OUT=bench/out      output directory (gitignored)
#   GOTPC=PATH         a go-tpc binary to use. When unset: /tmp/peer/bin/go-tpc
#                      if it exists, else it is built from a checkout in
#                      GOTPC_SRC (default /tmp/peer/go-tpc, must be outside this
#                      repo), which GOTPC_FETCH=1 clones from GitHub at GOTPC_REF
#                      first. With none of these (e.g. CI without network),
#                      go-tpc is skipped and rightsize runs alone.
set -euo pipefail

TIME=${TIME:-60}
TIME=${TIME%s}
THREADS=${THREADS:-4}
WAREHOUSES=${WAREHOUSES:-${W:-2}}
SERVERS=${SERVERS:-"postgres mysql"}
TOOLS=${TOOLS:-"rightsize go-tpc"}
REPS=${REPS:-1}
GOTPC_DEFAULT=/tmp/peer/bin/go-tpc
GOTPC_SRC=${GOTPC_SRC:-/tmp/peer/go-tpc}
GOTPC_FETCH=${GOTPC_FETCH:-0}
GOTPC_REPO=https://github.com/pingcap/go-tpc
GOTPC_REF=${GOTPC_REF:-682637f4f9959bffd2f9e59ecad600f53fc9daf8} # measured with this commit

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out

# Both tools use the standard TPC-C table names, so each gets its own
# database, created fresh before its load and dropped after its run.
RS_DB=rs_tpcc
GT_DB=gotpc

export PGSSLMODE=disable # psql; both tools are told sslmode=disable themselves

case $TIME in '' | *[!0-9]*) die "TIME=$TIME: want whole seconds" ;; esac
want_positive THREADS WAREHOUSES REPS

# ---------------------------------------------------------------- packages
ensure_clients
drop_tool() { # drop_tool NAME: remove a tool from TOOLS
  local t kept=
  for t in $TOOLS; do [ "$t" = "$1" ] || kept+="$t "; done
  TOOLS=$kept
}
for t in $TOOLS; do
  case $t in rightsize | go-tpc) ;; *) die "unknown tool '$t' (want rightsize and/or go-tpc)" ;; esac
done

# ---------------------------------------------------------------- build
if has_tool rightsize; then build_rightsize; fi

# go-tpc is built from public source, never inside this repository.
GOTPC_COMMIT=
case "$(realpath -m "$GOTPC_SRC")/" in
  "$(realpath "$REPO_ROOT")/"*) die "GOTPC_SRC=$GOTPC_SRC is inside the repo; use a directory outside it" ;;
esac
build_gotpc() { # -> 0 when $GOTPC_DEFAULT was built from $GOTPC_SRC
  local src=$GOTPC_SRC commit ldflags
  commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
  ldflags="-X main.commit=$commit -X main.version=$commit"
  mkdir -p "$(dirname "$GOTPC_DEFAULT")"
  log "building go-tpc $commit from $src -> $GOTPC_DEFAULT"
  (cd "$src" && go build -ldflags "$ldflags" -o "$GOTPC_DEFAULT" ./cmd/go-tpc) && return 0
  log "go-tpc build failed; retrying with GOFLAGS=-mod=mod"
  (cd "$src" && GOFLAGS=-mod=mod go build -ldflags "$ldflags" -o "$GOTPC_DEFAULT" ./cmd/go-tpc)
}
if has_tool go-tpc; then
  why=
  if [ -n "${GOTPC:-}" ]; then
    [ -x "$GOTPC" ] || die "GOTPC=$GOTPC is not an executable file"
  elif [ -x "$GOTPC_DEFAULT" ]; then
    GOTPC=$GOTPC_DEFAULT
  else
    if [ ! -f "$GOTPC_SRC/go.mod" ] && [ "$GOTPC_FETCH" = 1 ]; then
      log "cloning $GOTPC_REPO into $GOTPC_SRC (commit $GOTPC_REF)"
      if ! { timeout 300 git clone -q "$GOTPC_REPO" "$GOTPC_SRC" &&
             git -C "$GOTPC_SRC" checkout -q "$GOTPC_REF"; }; then
        why="cloning $GOTPC_REPO failed (no network to github.com?)"
      fi
    fi
    if [ -z "$why" ] && [ -f "$GOTPC_SRC/go.mod" ]; then
      command -v go >/dev/null 2>&1 || die "go toolchain not found"
      if build_gotpc; then GOTPC=$GOTPC_DEFAULT; else why="building go-tpc from $GOTPC_SRC failed"; fi
    elif [ -z "$why" ]; then
      why="GOTPC is unset, $GOTPC_DEFAULT does not exist and there is no checkout in $GOTPC_SRC (set GOTPC_FETCH=1 to clone $GOTPC_REPO, which needs network to github.com)"
    fi
  fi
  if [ -n "$why" ]; then
    log "go-tpc SKIPPED: $why; running rightsize alone"
    drop_tool go-tpc
  else
    GOTPC_COMMIT=$("$GOTPC" version 2>/dev/null | awk -F': ' '/Git Commit Hash/ { print $2 }')
    case $GOTPC_COMMIT in '' | none)
      GOTPC_COMMIT=$(go version -m "$GOTPC" 2>/dev/null | awk '$1 == "build" && $2 ~ /^vcs\.revision=/ { sub(/^vcs\.revision=/, "", $2); print $2 }')
      GOTPC_COMMIT=${GOTPC_COMMIT:-unknown} ;;
    esac
    log "go-tpc: $GOTPC (commit $GOTPC_COMMIT)"
  fi
fi
[ -n "${TOOLS// /}" ] || die "no tool left to run (TOOLS=rightsize and/or go-tpc)"

# ---------------------------------------------------------------- helpers
rs_url() { # rs_url SERVER
  case $1 in
    postgres) echo "postgres://$PG_USER@$PG_HOST:$PG_PORT/$RS_DB?sslmode=disable" ;;
    mysql) echo "mysql://$MY_USER@$MY_HOST:$MY_PORT/$RS_DB" ;;
  esac
}
gt_conn() { # go-tpc connection options for a server
  case $1 in
    postgres) echo "-d postgres -H $PG_HOST -P $PG_PORT -U $PG_USER -D $GT_DB --conn-params sslmode=disable" ;;
    mysql) echo "-d mysql -H $MY_HOST -P $MY_PORT -U $MY_USER -D $GT_DB" ;;
  esac
}

# elapsed TIMEFILE -> wall seconds of a '%e %U %S' /usr/bin/time file
elapsed() { awk 'NF == 3 { e = $1 } END { print (e == "" ? "n/a" : e) }' "$1"; }
# txn_key NAME -> neworder, payment, orderstatus, delivery, stocklevel
txn_key() { printf '%s' "$1" | tr -cd '[:alnum:]' | tr '[:upper:]' '[:lower:]'; }
TXNS="neworder payment orderstatus delivery stocklevel"
declare -A TXN_NAME=([neworder]=New-Order [payment]=Payment [orderstatus]=Order-Status
  [delivery]=Delivery [stocklevel]=Stock-Level)

FAILED=0
NOTES=()
declare -A R # results, keyed "server/tool/field": one value per repetition
declare -A M # medians of R

rs_cycle() { # rs_cycle SERVER REP: fresh database, load, run, drop
  local s=$1 k=$2 base="$OUT/tpcc_rightsize_${1}_$2" url rc=0
  url=$(rs_url "$s")
  fresh_db "$s" "$RS_DB"
  log "rightsize $s: prepare tpcc, $WAREHOUSES warehouses (cycle $k of $REPS)"
  if ! /usr/bin/time -f '%e %U %S' -o "$base.prepare.time" \
      "$RS" prepare tpcc --warehouses "$WAREHOUSES" --threads "$THREADS" --target "$url" \
      >"$base.prepare.txt" 2>&1; then
    log "rightsize $s prepare FAILED, see $base.prepare.txt"; tail -5 "$base.prepare.txt" >&2
    FAILED=1; drop_db "$s" "$RS_DB"; return 0
  fi
  R[$s/rs/load]+=" $(elapsed "$base.prepare.time")"
  log "rightsize $s: run tpcc (${TIME}s, $THREADS terminals, no think time)"
  rm -f "$base.json"
  /usr/bin/time -f '%e %U %S' -o "$base.run.time" \
    "$RS" run tpcc --warehouses "$WAREHOUSES" --threads "$THREADS" --think-scale 0 \
      --time "${TIME}s" --report-interval 10s --target "$url" --out "$base.json" \
      >"$base.run.txt" 2>&1 || rc=$?
  drop_db "$s" "$RS_DB"
  if ! jq -e '.tpcc.tpmc' "$base.json" >/dev/null 2>&1; then
    log "rightsize $s run FAILED (exit $rc, no tpcc summary), see $base.run.txt"
    tail -5 "$base.run.txt" >&2; FAILED=1; return 0
  fi
  rs_complete "$base.json" "$rc" "$s" "$s" "$base.run.txt" || true
  local count errors name p90
  count=$(jq -r '.summary.count // 0' "$base.json")
  errors=$(jq -r '.summary.errors // 0' "$base.json")
  if [ "$errors" -gt $((count / 100)) ]; then
    NOTES+=("$s: rightsize had $errors errors against $count transactions; see $base.run.txt")
  fi
  R[$s/rs/tpmc]+=" $(jq -r '.tpcc.tpmc | . * 10 | round / 10' "$base.json")"
  R[$s/rs/tpm]+=" $(jq -r '.tpcc.tpm | . * 10 | round / 10' "$base.json")"
  R[$s/rs/cpu]+=" $(jq -r '.client.cpu_per_event_us // "n/a" | if type == "number" then . * 10 | round / 10 else . end' "$base.json")"
  R[$s/rs/cpu_proc]+=" $(cpu_us_per "$base.run.time" "$count")"
  R[$s/rs/errors]+=" $errors"
  while read -r name p90; do
    R[$s/rs/p90_$(txn_key "$name")]+=" $p90"
  done < <(jq -r '.tpcc.limits[] | "\(.name) \(.p90_ms * 100 | round / 100)"' "$base.json")
}

gt_cycle() { # gt_cycle SERVER REP: fresh database, load, run, cleanup, drop
  local s=$1 k=$2 base="$OUT/tpcc_gotpc_${1}_$2"
  fresh_db "$s" "$GT_DB"
  # --no-check skips go-tpc's post-load consistency check: only the load is timed.
  log "go-tpc $s: tpcc prepare, $WAREHOUSES warehouses (cycle $k of $REPS)"
  # shellcheck disable=SC2046
  if ! /usr/bin/time -f '%e %U %S' -o "$base.prepare.time" \
      "$GOTPC" tpcc prepare $(gt_conn "$s") --warehouses "$WAREHOUSES" --threads "$THREADS" \
        --no-check >"$base.prepare.txt" 2>&1; then
    log "go-tpc $s prepare FAILED, see $base.prepare.txt"; tail -5 "$base.prepare.txt" >&2
    FAILED=1; drop_db "$s" "$GT_DB"; return 0
  fi
  R[$s/gt/load]+=" $(elapsed "$base.prepare.time")"
  # go-tpc's --wait (keying and think times) is off by default: no think time.
  log "go-tpc $s: tpcc run (${TIME}s, $THREADS threads, no wait)"
  local rc=0
  # shellcheck disable=SC2046
  /usr/bin/time -f '%e %U %S' -o "$base.run.time" \
    "$GOTPC" tpcc run $(gt_conn "$s") --warehouses "$WAREHOUSES" --threads "$THREADS" \
      --time "${TIME}s" >"$base.run.txt" 2>&1 || rc=$?
  # shellcheck disable=SC2046
  "$GOTPC" tpcc cleanup $(gt_conn "$s") --warehouses "$WAREHOUSES" >"$base.cleanup.txt" 2>&1 ||
    log "go-tpc $s cleanup failed, see $base.cleanup.txt (the database is dropped anyway)"
  drop_db "$s" "$GT_DB"
  local tpmc
  tpmc=$(sed -n 's/^tpmC: \([0-9.]*\),.*/\1/p' "$base.run.txt" | tail -1)
  if [ "$rc" -ne 0 ] || [ -z "$tpmc" ]; then
    log "go-tpc $s run FAILED (exit $rc), see $base.run.txt"; tail -5 "$base.run.txt" >&2
    FAILED=1; return 0
  fi
  # Summary lines: "[Summary] NEW_ORDER - Takes(s): 60.0, Count: 12581, TPM: ...,
  # ..., 90th(ms): 18.9, ...". Types ending in _ERR are failed transactions
  # (a few are cut off by the end of the run and are expected).
  local count errors name p90
  count=$(awk '/^\[Summary\]/ && $2 !~ /_ERR$/ { for (i = 1; i < NF; i++) if ($i == "Count:") { n += $(i+1) } }
    END { print n + 0 }' "$base.run.txt")
  errors=$(awk '/^\[Summary\]/ && $2 ~ /_ERR$/ { for (i = 1; i < NF; i++) if ($i == "Count:") { n += $(i+1) } }
    END { print n + 0 }' "$base.run.txt")
  R[$s/gt/tpmc]+=" $tpmc"
  R[$s/gt/tpm]+=" $(sed -n 's/^tpmC: .*tpmTotal: \([0-9.]*\),.*/\1/p' "$base.run.txt" | tail -1)"
  R[$s/gt/cpu]+=" $(cpu_us_per "$base.run.time" "$count")"
  R[$s/gt/cpu_proc]+=" $(cpu_us_per "$base.run.time" "$count")"
  R[$s/gt/errors]+=" $errors"
  while read -r name p90; do
    R[$s/gt/p90_$(txn_key "$name")]+=" $p90"
  done < <(awk '/^\[Summary\]/ && $2 !~ /_ERR$/ { for (i = 1; i < NF; i++) if ($i == "90th(ms):") { v = $(i+1); sub(/,$/, "", v); print $2, v } }' "$base.run.txt")
}

# ---------------------------------------------------------------- runs
# Each cycle loads a fresh database and runs on it, so both tools start from
# the same data size (a TPC-C run grows orders, order lines and history) and
# only one tool's tables share the server's buffer pool at a time. The order
# of the tools alternates from one cycle to the next.
for s in $SERVERS; do
  for k in $(seq 1 "$REPS"); do
    next_order rightsize go-tpc
    for t in $ORDER; do
      if has_tool "$t"; then
        case $t in rightsize) rs_cycle "$s" "$k" ;; go-tpc) gt_cycle "$s" "$k" ;; esac
      fi
    done
  done
done
# Medians of the repetitions; the raw values go to the table's footer.
medians

# ---------------------------------------------------------------- report
TABLE=$OUT/tpcc_vs_gotpc.txt
{
  printf '# rightsize vs go-tpc %s: TPC-C warehouses=%s threads=%s time=%ss, no think time, median of %s cycle(s), %s, nproc=%s\n' \
    "${GOTPC_COMMIT:-(not run)}" "$WAREHOUSES" "$THREADS" "$TIME" "$REPS" "$(date -u +%FT%TZ)" "$(nproc)"
  line() { printf '%-22s %11s %11s %9s\n' "$@"; }
  row() { # row LABEL FIELD, for server $s
    line "$1" "${M[$s/rs/$2]:-n/a}" "${M[$s/gt/$2]:-n/a}" \
      "$(ratio "${M[$s/rs/$2]:-}" "${M[$s/gt/$2]:-}")"
  }
  for s in $SERVERS; do
    echo
    line "$s${R[$s/flag]:-}" rightsize go-tpc rs/go-tpc
    row load_s load
    row tpmC tpmc
    row tpm_all_types tpm
    row cpu_us/txn cpu
    row cpu_us/txn_process cpu_proc
    for x in $TXNS; do row "p90_ms ${TXN_NAME[$x]}" "p90_$x"; done
    row errors errors
  done
  echo
  for s in $SERVERS; do
    for f in load tpmc cpu; do
      for t in rs gt; do runs_lines "$s" "$t" "$f"; done
    done
  done
  notes_lines
  echo "# load_s: wall seconds of 'prepare' (go-tpc with --no-check, so its post-load check is not timed)."
  echo "# cpu_us/txn: rightsize's .client.cpu_per_event_us (measured window to exit); go-tpc's whole"
  echo "#   process (/usr/bin/time user+sys) / completed transactions. cpu_us/txn_process: whole"
  echo "#   process for both (includes start-up and connecting). <1 in rs/go-tpc: rightsize lighter."
  echo "# tpmC counts New-Orders including the 1 % rolled back, in both tools."
} | tee "$TABLE"

[ "$FAILED" -eq 0 ] || die "some runs failed; see logs in $OUT"
