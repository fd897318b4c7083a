# shellcheck shell=bash
# Shared by the bench/*.sh comparison scripts: logging, package installation
# and the client tools for the servers in $SERVERS. Source it; it defines
# log, die, ensure_pkg, ensure_clients, has_tool, and for database $DB on the
# loopback servers (PG_*, MY_*) sb_conn, rs_url and create_db; it sets MYSQL_CLI.

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

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
