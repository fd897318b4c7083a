# shellcheck shell=bash
# Shared by the bench/*.sh comparison scripts: logging, option checks, the
# output directory and the rightsize build, package installation and the
# client tools for the servers in $SERVERS, medians and the tables' footers.
# Source it; it sets REPO_ROOT and defines log, die, want_positive, init_out,
# build_rightsize, ensure_pkg, ensure_clients (which sets MYSQL_CLI), has_tool,
# and for database $DB on the loopback servers (PG_*, MY_*) sb_conn, rs_url and
# create_db.

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# want_positive VAR...: dies unless each variable named holds a positive
# integer.
want_positive() {
  local v
  for v; do
    case ${!v} in '' | *[!0-9]* | 0) die "$v=${!v}: want a positive integer" ;; esac
  done
}

# REPO_ROOT is the repository this file is in.
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# init_out: sets OUT, the output directory ($OUT, else bench/out), created and
# made absolute, and RS=$OUT/rightsize, the binary build_rightsize builds.
init_out() {
  OUT=${OUT:-$REPO_ROOT/bench/out}
  mkdir -p "$OUT"
  OUT=$(cd "$OUT" && pwd)
  RS=$OUT/rightsize
}

# build_rightsize: builds this repository's rightsize into $RS.
build_rightsize() {
  command -v go >/dev/null 2>&1 || die "go toolchain not found (see go.mod for the version)"
  log "building rightsize -> $RS"
  (cd "$REPO_ROOT" && go build -o "$RS" ./cmd/rightsize)
}

APT_UPDATED=0
ensure_pkg() { # ensure_pkg COMMAND PACKAGE
  command -v "$1" >/dev/null 2>&1 && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing $2 (for $1)"
  if [ "$APT_UPDATED" -eq 0 ]; then
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    APT_UPDATED=1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2"
  command -v "$1" >/dev/null 2>&1 || die "$1 still missing after installing $2"
}

# ensure_clients installs jq, GNU time and the SQL clients of $SERVERS.
ensure_clients() {
  ensure_pkg jq jq
  ensure_pkg /usr/bin/time time
  local s
  for s in $SERVERS; do
    case $s in
      postgres) ensure_pkg psql postgresql-client ;;
      mysql) command -v mariadb >/dev/null 2>&1 || ensure_pkg mysql mariadb-client ;;
      *) die "unknown server '$s' (want postgres and/or mysql)" ;;
    esac
  done
  # shellcheck disable=SC2034 # used by the scripts that source this file
  MYSQL_CLI=$(command -v mariadb || command -v mysql || true)
}

has_tool() { case " $TOOLS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# The servers the scripts measure, on loopback: PostgreSQL (user postgres,
# trust auth) and MariaDB/MySQL (root, empty password).
PG_HOST=127.0.0.1 PG_PORT=5432 PG_USER=postgres
MY_HOST=127.0.0.1 MY_PORT=3306 MY_USER=root

# sql SERVER STATEMENT: runs a statement with no database selected (needs
# ensure_clients first, for MYSQL_CLI).
sql() { # sql SERVER STATEMENT (no database selected)
  case $1 in
    postgres) PGOPTIONS='-c client_min_messages=warning' \
      psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -qXc "$2" >/dev/null ;;
    mysql) "$MYSQL_CLI" -h "$MY_HOST" -P "$MY_PORT" -u"$MY_USER" -e "$2" ;;
  esac
}

# drop_db SERVER DB, fresh_db SERVER DB: drop a database (ending its
# sessions on PostgreSQL); drop and create it.
drop_db() { # drop_db SERVER DB
  case $1 in
    postgres) sql "$1" "DROP DATABASE IF EXISTS $2 WITH (FORCE)" ;;
    mysql) sql "$1" "DROP DATABASE IF EXISTS $2" ;;
  esac
}
fresh_db() { drop_db "$1" "$2" && sql "$1" "CREATE DATABASE $2"; }

# sb_conn SERVER: sysbench's connection options for database $DB.
sb_conn() {
  case $1 in
    postgres) echo "--db-driver=pgsql --pgsql-host=$PG_HOST --pgsql-port=$PG_PORT --pgsql-user=$PG_USER --pgsql-db=$DB" ;;
    mysql) echo "--db-driver=mysql --mysql-host=$MY_HOST --mysql-port=$MY_PORT --mysql-user=$MY_USER --mysql-db=$DB" ;;
  esac
}

# rs_url SERVER: rightsize's target for database $DB, without TLS.
rs_url() {
  case $1 in
    postgres) echo "postgres://$PG_USER@$PG_HOST:$PG_PORT/$DB?sslmode=disable" ;;
    mysql) echo "mysql://$MY_USER@$MY_HOST:$MY_PORT/$DB" ;;
  esac
}

# create_db SERVER: creates database $DB if it is missing.
create_db() {
  case $1 in
    postgres)
      if [ "$(psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -tAc \
              "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
        psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -qc "CREATE DATABASE $DB"
      fi ;;
    mysql)
      "$MYSQL_CLI" -h "$MY_HOST" -P "$MY_PORT" -u"$MY_USER" -e "CREATE DATABASE IF NOT EXISTS $DB" ;;
  esac
}

# cpu_us_per TIMEFILE COUNT [DECIMALS] -> the process's (user+sys) CPU µs per
# unit of work, from a /usr/bin/time -f '%U %S' file
cpu_us_per() {
  awk -v n="$2" -v d="${3:-1}" 'NF >= 2 { u = $(NF-1); s = $NF }
    END { if (n > 0 && u != "") printf "%." d "f", (u + s) * 1e6 / n; else print "n/a" }' "$1"
}

# median V... -> the median of the numeric values (n/a when none)
median() {
  printf '%s\n' "$@" | awk '$1 ~ /^[0-9.]+$/ { v[n++] = $1 }
    END { if (n == 0) { print "n/a"; exit }
          asort(v); m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2; print m }'
}

# ratio A B -> A/B with two decimals (n/a unless both are positive)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "n/a" }'; }

# next_order A B: sets ORDER to "A B", at the next call to "B A", and so on:
# which tool runs first alternates from one repetition to the next, so that
# drift on the server or device does not always fall on the same tool.
TURN=0
# shellcheck disable=SC2034 # ORDER is the caller's
next_order() {
  if [ $((TURN % 2)) -eq 0 ]; then ORDER="$1 $2"; else ORDER="$2 $1"; fi
  TURN=$((TURN + 1))
}

# medians: fill the associative array M with the median of each entry of R
# (space-separated values of the repetitions), skipping keys ending in /flag.
medians() {
  local key
  for key in "${!R[@]}"; do
    case $key in */flag) continue ;; esac
    # shellcheck disable=SC2086,SC2034,SC2004 # separate words; M and R are the caller's associative arrays
    M[$key]=$(median ${R[$key]})
  done
}

# rs_complete JSON RC ROW LABEL LOG: succeeds when rightsize exited 0 (RC)
# and its result (JSON) is not partial. A run that did not but wrote a summary
# still has figures: the table shows them, flags the row, and the script fails
# at the end. So otherwise rs_complete adds a note for LABEL pointing at LOG
# to NOTES, flags the row (R[ROW/flag]='!'), sets FAILED=1 and PARTIAL (the
# partial reason, empty when the result is complete) and fails.
# shellcheck disable=SC2034,SC2154,SC2004 # R (associative), FAILED and PARTIAL are the caller's
rs_complete() {
  local json=$1 rc=$2 row=$3 label=$4 logfile=$5
  PARTIAL=$(jq -r 'if .partial then "partial: " + (.partial_reason // "?") else "" end' "$json")
  [ "$rc" -eq 0 ] && [ -z "$PARTIAL" ] && return 0
  NOTES+=("$label: rightsize exited $rc${PARTIAL:+ ($PARTIAL)}; see $logfile")
  R[$row/flag]='!'
  FAILED=1
  return 1
}

# runs_lines A B FIELD...: a table's footer lines with the raw values of the
# repetitions, "# runs A B FIELD: V1 V2 ..." for each FIELD that R[A/B/FIELD]
# holds.
runs_lines() {
  local a=$1 b=$2 f
  shift 2
  for f; do
    [ -z "${R[$a/$b/$f]:-}" ] || echo "# runs $a $b $f:${R[$a/$b/$f]}"
  done
}

# notes_lines: a table's footer lines with the NOTES, "# ! NOTE" each.
notes_lines() {
  local n
  for n in ${NOTES[@]+"${NOTES[@]}"}; do echo "# ! $n"; done
}

# ---------------------------------------------------------------- counts
# (counts_oltp.sh, counts_fileio.sh)

# ipis: rescheduling plus function-call interrupts of every CPU so far.
ipis() { awk '$1 == "RES:" || $1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' /proc/interrupts; }

# per A N [DECIMALS] -> A/N (n/a unless N > 0)
per() { awk -v a="$1" -v n="$2" -v d="${3:-2}" 'BEGIN { if (n > 0) printf "%.*f", d, a / n; else print "n/a" }'; }

# perf_counts BASE COMMAND...: runs COMMAND (output to BASE.txt) under perf
# stat, with the host's cross-CPU interrupts read around it; sets PC_CPU_US
# (task-clock, µs), PC_CS (context switches), PC_MIG (CPU migrations) and
# PC_IPI (rescheduling + function-call interrupts of the whole host).
perf_counts() {
  local base=$1 before after
  shift
  before=$(ipis)
  perf stat -x, -e task-clock,context-switches,cpu-migrations -o "$base.perf" -- "$@" >"$base.txt" 2>&1 || true
  after=$(ipis)
  PC_CPU_US=$(awk -F, '$3 == "task-clock" { print $1 * 1000 }' "$base.perf")
  PC_CS=$(awk -F, '$3 == "context-switches" { print $1 }' "$base.perf")
  PC_MIG=$(awk -F, '$3 == "cpu-migrations" { print $1 }' "$base.perf")
  PC_IPI=$((after - before))
}

# strace_counts BASE COMMAND...: runs COMMAND (output to BASE.st.txt) under
# strace -f -c; sets SC_CALLS, its system calls, and leaves the table in
# BASE.strace for strace_top.
strace_counts() {
  local base=$1
  shift
  STRACE_FILE=$base.strace
  strace -f -c -o "$STRACE_FILE" -- "$@" >"$base.st.txt" 2>&1 || true
  SC_CALLS=$(awk '$NF == "total" { print $(NF-2) }' "$STRACE_FILE")
}

# strace_top N -> the three most frequent system calls of the last
# strace_counts, each per unit of N.
strace_top() {
  awk '$1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { printf "%s %s\n", $4, $NF }' "$STRACE_FILE" | sort -rn | head -3 |
    awk -v n="$1" '{ if (n > 0) printf "%s%s %.2f", sep, $2, $1 / n; sep = ", " }'
}
