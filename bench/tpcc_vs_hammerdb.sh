#!/usr/bin/env bash
# Side-by-side comparison of rightsize's TPC-C workload and HammerDB's TPROC-C
# (github.com/TPC-Council/HammerDB, v4.12, its command line hammerdbcli run
# with Debian's tclsh8.6) on the same servers with the same scale, virtual
# users and time: NOPM, TPM, client CPU per transaction and load time, with
# the transactions run as routines in the database (HammerDB's way; rightsize
# --in-server) and, for rightsize, client-side. See bench/README.md.
#
# Forms compared (FORMS):
#   functions   PostgreSQL only: HammerDB pg_storedprocs=false (PL/pgSQL
#               functions, SELECT) vs rightsize --in-server (functions)
#   procedures  PostgreSQL: HammerDB pg_storedprocs=true (procedures, CALL) vs
#               rightsize --in-server=procedures; MariaDB: HammerDB's stored
#               procedures vs rightsize --in-server (stored procedures)
#   client      rightsize client-side (no routines), shown against HammerDB's
#               usual form (functions on PostgreSQL, procedures on MariaDB)
#
# Env options:
#   MINUTES=2          minutes per run. HammerDB's timed driver counts whole
#                      minutes (rampup 0, duration MINUTES); rightsize runs
#                      MINUTES*60 s with no warm-up
#   THREADS=2          virtual users (terminals) of each tool
#   WAREHOUSES=2       TPC-C warehouses (W=2 works too)
#   LOADERS=min(THREADS, WAREHOUSES)  loader threads of each tool's load
#                      (HammerDB builds with at most one virtual user per
#                      warehouse, plus a monitor that creates the schema and
#                      loads ITEM); rightsize prepare --threads LOADERS
#   SERVERS="postgres mysql"   mysql is the MariaDB at 127.0.0.1:3306
#   FORMS="functions procedures client"
#   TOOLS="rightsize hammerdb" drop one to run only the other's half
#   REPS=3             cycles (fresh database, load, run, drop) per tool per
#                      server x form, alternating which tool goes first; the
#                      table shows the median of each figure
#   OUT=bench/out      output directory (gitignored)
#   HAMMERDB_DIR=/tmp/peer/HammerDB   a HammerDB checkout (tag v4.12), outside
#                      this repo; HAMMERDB_FETCH=1 clones it from GitHub first
#   PGTCL_SRC=/tmp/peer/pgtclng       pgtcl-ng source (HammerDB's Pgtcl 2.1.1,
#                      github.com/sm-shaw/pgtclng, commit PGTCL_REF), built by
#                      this script: Debian's libpgtcl (flightaware Pgtcl 2.7)
#                      lacks pg_notice_handler and takes pg_exec_prepared's
#                      arguments differently. HAMMERDB_FETCH=1 clones it too
#   HAMMERDB_LIB=/tmp/peer/hammerdb-lib  where the script builds pgtcl-ng and
#                      writes its two Tcl shims (see hdb_setup_lib); outside
#                      this repo
#   TCLSH=tclsh8.6     the Tcl shell that runs hammerdbcli
#   HDB_PG_ROLE=hdb    the PostgreSQL role that owns HammerDB's schema (below)
# Without a HammerDB checkout or the Tcl packages (apt-get install fails, e.g.
# CI without network), HammerDB is skipped with a message and rightsize runs
# alone; without a usable pgtcl-ng only HammerDB-on-PostgreSQL is skipped.
# Defaults take about 70 minutes on a 2-CPU machine (estimated); MINUTES=1
# with the other defaults took 33-37 minutes here (2026-12-07).
#
# Databases: rightsize loads rs_tpcc_hdb, HammerDB hdb_tpcc (each created
# fresh before its load and dropped after its run). On PostgreSQL HammerDB
# builds as the superuser postgres but owns its schema by a user of its own:
# the script creates role hdb (LOGIN, marked by a comment) before the build,
# so that HammerDB never alters the postgres role, and drops it after the run.
# A role hdb the script did not create makes it skip HammerDB-on-PostgreSQL.
set -euo pipefail

MINUTES=${MINUTES:-2}
THREADS=${THREADS:-2}
WAREHOUSES=${WAREHOUSES:-${W:-2}}
SERVERS=${SERVERS:-"postgres mysql"}
FORMS=${FORMS:-"functions procedures client"}
TOOLS=${TOOLS:-"rightsize hammerdb"}
REPS=${REPS:-3}
HAMMERDB_DIR=${HAMMERDB_DIR:-/tmp/peer/HammerDB}
HAMMERDB_REPO=https://github.com/TPC-Council/HammerDB
HAMMERDB_REF=${HAMMERDB_REF:-v4.12} # the tag this script was written and smoke-tested with
PGTCL_SRC=${PGTCL_SRC:-/tmp/peer/pgtclng}
PGTCL_REPO=https://github.com/sm-shaw/pgtclng
PGTCL_REF=${PGTCL_REF:-dcdd1336e0b006f47f8a3d95cf0d99d86844b1b5} # pgtcl-ng 2.1.1, before its Tcl 9 port
HAMMERDB_LIB=${HAMMERDB_LIB:-/tmp/peer/hammerdb-lib}
HAMMERDB_FETCH=${HAMMERDB_FETCH:-0}
TCLSH=${TCLSH:-tclsh8.6}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out

RS_DB=rs_tpcc_hdb
HDB_DB=hdb_tpcc
HDB_PG_ROLE=${HDB_PG_ROLE:-hdb}
HDB_ROLE_MARK='bench/tpcc_vs_hammerdb.sh: HammerDB schema owner, dropped after each run'

export PGSSLMODE=disable # psql; both tools are told sslmode=disable themselves

want_positive MINUTES THREADS WAREHOUSES REPS
LOADERS=${LOADERS:-$((THREADS < WAREHOUSES ? THREADS : WAREHOUSES))}
want_positive LOADERS
[ "$LOADERS" -le "$WAREHOUSES" ] || die "LOADERS=$LOADERS: HammerDB builds with at most one loader per warehouse (WAREHOUSES=$WAREHOUSES)"
SECS=$((MINUTES * 60))
for t in $TOOLS; do
  case $t in rightsize | hammerdb) ;; *) die "unknown tool '$t' (want rightsize and/or hammerdb)" ;; esac
done
for f in $FORMS; do
  case $f in functions | procedures | client) ;; *) die "unknown form '$f' (want functions, procedures and/or client)" ;; esac
done
for p in "$HAMMERDB_DIR" "$PGTCL_SRC" "$HAMMERDB_LIB"; do
  case "$(realpath -m "$p")/" in
    "$(realpath "$REPO_ROOT")/"*) die "$p is inside the repo; use a directory outside it" ;;
  esac
done

# ---------------------------------------------------------------- packages
ensure_clients
drop_tool() { # drop_tool NAME: remove a tool from TOOLS
  local t kept=
  for t in $TOOLS; do [ "$t" = "$1" ] || kept+="$t "; done
  TOOLS=$kept
}
# want_debs PACKAGE...: installs the Debian packages that are missing; fails
# (without exiting) when that does not work.
want_debs() {
  local p missing=() sudo=()
  for p; do dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing ${missing[*]}"
  if [ "$APT_UPDATED" -eq 0 ]; then
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q || return 1
    APT_UPDATED=1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
}

# ---------------------------------------------------------------- build
if has_tool rightsize; then build_rightsize; fi

# HammerDB runs from its public source, never inside this repository, with
# Debian's Tcl 8.6 and these Tcl packages: Thread (tcl-thread), sqlite3
# (libsqlite3-tcl: HammerDB keeps its settings and jobs in SQLite files),
# mysqltcl 3.052 (MariaDB; the same mysqltcl version HammerDB bundles) and
# pgtcl-ng 2.1.1 built from source (PostgreSQL). tcllib and tdom are installed
# as HammerDB's documentation lists them.
HDB_VERSION=
HDB_PG_OK=0 HDB_MY_OK=0 # HammerDB usable on PostgreSQL / MariaDB
HDB_TMP=$OUT/hammerdb.tmp # HammerDB's TMP (its SQLite settings), new per invocation
hdb_tcl() { # hdb_tcl SCRIPT: runs a Tcl script with HammerDB's library path
  TCLLIBPATH="{$HAMMERDB_LIB}" "$TCLSH" <<<"$1" 2>&1
}
# hdb_setup_lib: writes to $HAMMERDB_LIB the packages HammerDB loads that
# Debian does not have:
# - ticklecharts: hammerdbcli loads HammerDB's chart package at start-up;
#   charts are not used here, so an empty package stands in for it;
# - mariatcl: HammerDB's MariaDB driver calls mariatcl, HammerDB's fork of
#   mysqltcl 3.052 with the commands renamed (mariaconnect, maria::sel,
#   mariastatus, ...), not published apart from HammerDB's binary builds.
#   This package gives mysqltcl 3.052's commands (Debian's mysqltcl, on
#   libmariadb) those names, so the MariaDB driver's own SQL and stored
#   procedures run unchanged through the same C client as mariatcl's.
hdb_setup_lib() {
  mkdir -p "$HAMMERDB_LIB/hdb_stubs" "$HAMMERDB_LIB/hdb_mariatcl"
  cat >"$HAMMERDB_LIB/hdb_stubs/pkgIndex.tcl" <<'EOF'
# Written by rightsize's bench/tpcc_vs_hammerdb.sh: hammerdbcli requires
# ticklecharts (HammerDB's job charts), which the benchmark does not use.
package ifneeded ticklecharts 0.0 [list package provide ticklecharts 0.0]
EOF
  cat >"$HAMMERDB_LIB/hdb_mariatcl/pkgIndex.tcl" <<'EOF'
# Written by rightsize's bench/tpcc_vs_hammerdb.sh: mysqltcl 3.052 under the
# names of mariatcl (HammerDB's fork of mysqltcl with renamed commands).
package ifneeded mariatcl 0.0 [list source [file join $dir mariatcl.tcl]]
EOF
  cat >"$HAMMERDB_LIB/hdb_mariatcl/mariatcl.tcl" <<'EOF'
package require mysqltcl 3.052
foreach cmd [info commands ::mysql*] {
    # mysqlconnect -> mariaconnect, mysqlexec -> mariaexec, ...
    interp alias {} ::maria[string range [namespace tail $cmd] 5 end] {} $cmd
}
namespace eval ::maria {}
foreach cmd [info commands ::mysql::*] {
    interp alias {} ::maria::[namespace tail $cmd] {} $cmd
}
unset cmd
upvar #0 mysqlstatus mariastatus
package provide mariatcl 0.0
EOF
}
# build_pgtcl: builds pgtcl-ng from $PGTCL_SRC (a copy of it, so the source
# stays clean) into $HAMMERDB_LIB/pgtclng as package pgtclng (HammerDB is told
# to load "pgtclng": Debian's libpgtcl, if installed, is Pgtcl 2.7.7 and would
# win a plain "package require Pgtcl").
PGTCL_COMMIT=
build_pgtcl() {
  local b=$HAMMERDB_LIB/pgtclng-build c tclcfg='' so=''
  want_debs tcl8.6-dev libpq-dev gcc make || return 1
  for c in /usr/lib/tcl8.6/tclConfig.sh /usr/lib/*/tcl8.6/tclConfig.sh; do
    if [ -f "$c" ]; then tclcfg=$(dirname "$c"); break; fi
  done
  [ -n "$tclcfg" ] || return 1
  rm -rf "$b" && mkdir -p "$b"
  (cd "$PGTCL_SRC" && tar --exclude=.git -cf - .) | (cd "$b" && tar -xf -)
  log "building pgtcl-ng ${PGTCL_COMMIT:-?} from $PGTCL_SRC -> $HAMMERDB_LIB/pgtclng"
  (cd "$b" && ./configure --with-tcl="$tclcfg" && make) >"$OUT/hammerdb_pgtclng_build.txt" 2>&1 || return 1
  for c in "$b"/libpgtcl*.so; do
    if [ -f "$c" ]; then so=${c##*/}; fi
  done
  [ -n "$so" ] || return 1
  mkdir -p "$HAMMERDB_LIB/pgtclng"
  cp "$b/$so" "$HAMMERDB_LIB/pgtclng/"
  cat >"$HAMMERDB_LIB/pgtclng/pkgIndex.tcl" <<EOF
# Written by rightsize's bench/tpcc_vs_hammerdb.sh: pgtcl-ng (Pgtcl 2.1.1,
# $PGTCL_REPO at ${PGTCL_COMMIT:-unknown}).
package ifneeded pgtclng 2.1.1 [list apply {dir {
    load [file join \$dir $so] Pgtcl
    package provide pgtclng 2.1.1
}} \$dir]
EOF
}
if has_tool hammerdb; then
  why=
  if [ ! -f "$HAMMERDB_DIR/hammerdbcli" ] && [ "$HAMMERDB_FETCH" = 1 ]; then
    log "cloning $HAMMERDB_REPO into $HAMMERDB_DIR (tag $HAMMERDB_REF)"
    timeout 600 git clone -q --depth 1 --branch "$HAMMERDB_REF" "$HAMMERDB_REPO" "$HAMMERDB_DIR" ||
      why="cloning $HAMMERDB_REPO failed (no network to github.com?)"
  fi
  if [ -z "$why" ] && [ ! -f "$HAMMERDB_DIR/hammerdbcli" ]; then
    why="no HammerDB checkout in $HAMMERDB_DIR (check out tag $HAMMERDB_REF of $HAMMERDB_REPO there, or set HAMMERDB_FETCH=1, which needs network to github.com)"
  fi
  if [ -z "$why" ] && ! want_debs tcl8.6 tcl-thread libsqlite3-tcl tcllib tdom; then
    why="installing HammerDB's Tcl packages (tcl8.6 tcl-thread libsqlite3-tcl tcllib tdom) failed"
  fi
  if [ -z "$why" ] && ! command -v "$TCLSH" >/dev/null 2>&1; then why="$TCLSH not found"; fi
  if [ -z "$why" ]; then
    HDB_VERSION=$(sed -n 's/^set hdb_version "\(.*\)"/\1/p' "$HAMMERDB_DIR/hammerdbcli" | head -1)
    [ "$HDB_VERSION" = "$HAMMERDB_REF" ] ||
      log "warning: HammerDB $HDB_VERSION in $HAMMERDB_DIR; this script was written for $HAMMERDB_REF"
    hdb_setup_lib
    if ! out=$(hdb_tcl 'package require Thread; package require sqlite3; package require ticklecharts; puts ok') ||
        [ "${out##*$'\n'}" != ok ]; then
      why="Tcl cannot load HammerDB's packages: $out"
    fi
  fi
  if [ -z "$why" ]; then
    for s in $SERVERS; do
      case $s in
        mysql)
          if ! want_debs mysqltcl; then
            log "HammerDB on MariaDB SKIPPED: installing mysqltcl failed"
          elif out=$(hdb_tcl 'package require mariatcl; puts [expr {[llength [info commands ::mariaconnect]] ? "ok" : "none"}]') &&
              [ "${out##*$'\n'}" = ok ]; then
            HDB_MY_OK=1
          else
            log "HammerDB on MariaDB SKIPPED: the mariatcl shim over mysqltcl does not load: $out"
          fi ;;
        postgres)
          pgwhy=
          if [ ! -f "$HAMMERDB_LIB/pgtclng/pkgIndex.tcl" ]; then
            if [ ! -f "$PGTCL_SRC/configure" ] && [ "$HAMMERDB_FETCH" = 1 ]; then
              log "cloning $PGTCL_REPO into $PGTCL_SRC (commit $PGTCL_REF)"
              { timeout 300 git clone -q "$PGTCL_REPO" "$PGTCL_SRC" && git -C "$PGTCL_SRC" checkout -q "$PGTCL_REF"; } ||
                pgwhy="cloning $PGTCL_REPO failed (no network to github.com?)"
            fi
            if [ -z "$pgwhy" ] && [ ! -f "$PGTCL_SRC/configure" ]; then
              pgwhy="no pgtcl-ng source in $PGTCL_SRC (HammerDB's PostgreSQL driver needs pgtcl-ng's pg_notice_handler and pg_exec_prepared; check out $PGTCL_REPO at $PGTCL_REF there, or set HAMMERDB_FETCH=1)"
            fi
            PGTCL_COMMIT=$(git -C "$PGTCL_SRC" rev-parse --short=12 HEAD 2>/dev/null || true)
            if [ -z "$pgwhy" ] && ! build_pgtcl; then
              pgwhy="building pgtcl-ng from $PGTCL_SRC failed, see $OUT/hammerdb_pgtclng_build.txt"
            fi
          fi
          if [ -z "$pgwhy" ]; then
            if out=$(hdb_tcl 'package require pgtclng; puts [expr {[llength [info commands ::pg_notice_handler]] ? "ok" : "none"}]') &&
                [ "${out##*$'\n'}" = ok ]; then
              HDB_PG_OK=1
            else
              pgwhy="pgtcl-ng in $HAMMERDB_LIB/pgtclng does not load or lacks pg_notice_handler: $out"
            fi
          fi
          [ -z "$pgwhy" ] || log "HammerDB on PostgreSQL SKIPPED: $pgwhy" ;;
      esac
    done
  fi
  if [ -n "$why" ]; then
    log "HammerDB SKIPPED: $why; running rightsize alone"
    drop_tool hammerdb
  else
    log "HammerDB $HDB_VERSION: $HAMMERDB_DIR ($(git -C "$HAMMERDB_DIR" rev-parse --short=12 HEAD 2>/dev/null || echo 'not a git checkout')), $TCLSH $(echo 'puts [info patchlevel]' | "$TCLSH")"
  fi
fi
[ -n "${TOOLS// /}" ] || die "no tool left to run (TOOLS=rightsize and/or hammerdb)"

# ---------------------------------------------------------------- helpers
rs_url() { # rs_url SERVER
  case $1 in
    postgres) echo "postgres://$PG_USER@$PG_HOST:$PG_PORT/$RS_DB?sslmode=disable" ;;
    mysql) echo "mysql://$MY_USER@$MY_HOST:$MY_PORT/$RS_DB" ;;
  esac
}
sql_value() { # sql_value SERVER DB QUERY -> the first column of the first row
  case $1 in
    postgres) psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$2" -XtAc "$3" ;;
    mysql) "$MYSQL_CLI" -h "$MY_HOST" -P "$MY_PORT" -u"$MY_USER" -NBe "$3" "$2" ;;
  esac
}
# hdb_role -> none, ours (created by this script: its comment) or other
hdb_role() {
  local r
  r=$(sql_value postgres postgres "SELECT CASE WHEN shobj_description(oid, 'pg_authid') = '$HDB_ROLE_MARK' THEN 'ours' ELSE 'other' END FROM pg_roles WHERE rolname = '$HDB_PG_ROLE'")
  echo "${r:-none}"
}
drop_hdb_pg() { # drops HammerDB's PostgreSQL database and, if it is ours, its role
  drop_db postgres "$HDB_DB"
  if [ "$(hdb_role)" = ours ]; then sql postgres "DROP ROLE $HDB_PG_ROLE"; fi
}
# fresh_hdb_db SERVER: an empty database for HammerDB's build, created as its
# build would create it (HammerDB then builds in the existing empty database,
# so neither tool's load time includes creating the database): on PostgreSQL
# owned by role hdb, on MariaDB in latin1.
fresh_hdb_db() {
  case $1 in
    postgres)
      drop_hdb_pg
      sql postgres "CREATE ROLE $HDB_PG_ROLE LOGIN PASSWORD '$HDB_PG_ROLE'"
      sql postgres "COMMENT ON ROLE $HDB_PG_ROLE IS '$HDB_ROLE_MARK'"
      sql postgres "CREATE DATABASE $HDB_DB OWNER $HDB_PG_ROLE" ;;
    mysql)
      drop_db mysql "$HDB_DB"
      sql mysql "CREATE DATABASE $HDB_DB CHARACTER SET latin1 COLLATE latin1_swedish_ci" ;;
  esac
}
drop_hdb_db() { # drop_hdb_db SERVER
  case $1 in postgres) drop_hdb_pg ;; mysql) drop_db mysql "$HDB_DB" ;; esac
}
TOUCHED=" " # "server/rs" and "server/hdb" once a cycle has created that database
cleanup() { # on exit: leave no database or role of ours behind
  local s
  set +e
  for s in $SERVERS; do
    case $TOUCHED in *" $s/rs "*) drop_db "$s" "$RS_DB" >/dev/null 2>&1 ;; esac
    case $TOUCHED in *" $s/hdb "*) drop_hdb_db "$s" >/dev/null 2>&1 ;; esac
  done
}
trap cleanup EXIT
if [ "$HDB_PG_OK" = 1 ] && [ "$(hdb_role)" = other ]; then
  log "HammerDB on PostgreSQL SKIPPED: role $HDB_PG_ROLE exists and was not created by this script (drop it, or set HDB_PG_ROLE to another name)"
  HDB_PG_OK=0
fi
if has_tool hammerdb && [ "$HDB_PG_OK$HDB_MY_OK" = 00 ]; then
  log "HammerDB SKIPPED: it can run on none of SERVERS=$SERVERS (see above); running rightsize alone"
  drop_tool hammerdb
  [ -n "${TOOLS// /}" ] || die "no tool left to run (TOOLS=rightsize and/or hammerdb)"
fi

# srv_txns SERVER DB -> the server's transactions so far, its commits +
# rollbacks as HammerDB counts TPM: on PostgreSQL those of database DB
# (xact_commit + xact_rollback; HammerDB sums every database's, but other
# databases' work, or one dropped meanwhile, would skew a count around one
# process), on MariaDB the global Com_commit + Com_rollback.
srv_txns() {
  case $1 in
    postgres) sql_value postgres postgres "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '$2'" ;;
    mysql) sql_value mysql information_schema "SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('COM_COMMIT', 'COM_ROLLBACK')" ;;
  esac
}
# srv_mark SERVER DB: prints srv_txns after a pause, so that the backends of
# the process that just ended have exited and flushed their counts
# (PostgreSQL 15's statistics reach pg_stat_database when a backend exits).
srv_mark() { sleep 2; srv_txns "$1" "$2" || true; }
# delta A B -> B - A, 0 unless both are integers
delta() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) print b - a; else print 0 }'; }

# elapsed TIMEFILE -> wall seconds; cpu_s TIMEFILE -> user + sys seconds, of
# a '%e %U %S' /usr/bin/time file
elapsed() { awk 'NF == 3 { e = $1 } END { print (e == "" ? "n/a" : e) }' "$1"; }
cpu_s() { awk 'NF == 3 { c = $2 + $3 } END { if (c == "") print "n/a"; else printf "%.2f", c }' "$1"; }
# per_us TIMEFILE N -> the process's (user + sys) CPU µs per unit, N units
per_us() { cpu_us_per "$1" "$2" 1; }

FAILED=0
NOTES=()
declare -A R # results, keyed "server/form/tool/field": one value per repetition
declare -A M # medians of R

# rs_flags FORM -> rightsize run's --in-server flag for the form
rs_flags() {
  case $1 in functions) echo --in-server ;; procedures) echo --in-server=procedures ;; client) ;; esac
}

rs_cycle() { # rs_cycle SERVER FORM REP: fresh database, load, run, drop
  local s=$1 f=$2 k=$3 base="$OUT/tpcc_hdb_rightsize_${1}_${2}_$3" url rc=0 before after
  local flags
  read -r -a flags <<<"$(rs_flags "$f")"
  url=$(rs_url "$s")
  TOUCHED+="$s/rs "
  fresh_db "$s" "$RS_DB"
  # prepare --in-server installs the routines (on PostgreSQL functions and
  # procedures) for every form, so that every rightsize load is the same
  # work: tables, indexes, VACUUM ANALYZE/ANALYZE TABLE and the routines, as
  # HammerDB's build (tables, indexes, routines, ANALYZE).
  log "rightsize $s $f: prepare tpcc --in-server, $WAREHOUSES warehouses, $LOADERS loaders (cycle $k of $REPS)"
  if ! /usr/bin/time -f '%e %U %S' -o "$base.prepare.time" \
      "$RS" prepare tpcc --warehouses "$WAREHOUSES" --threads "$LOADERS" --in-server --target "$url" \
      >"$base.prepare.txt" 2>&1; then
    log "rightsize $s $f prepare FAILED, see $base.prepare.txt"; tail -5 "$base.prepare.txt" >&2
    FAILED=1; drop_db "$s" "$RS_DB"; return 0
  fi
  R[$s/$f/rs/load]+=" $(elapsed "$base.prepare.time")"
  R[$s/$f/rs/load_cpu]+=" $(cpu_s "$base.prepare.time")"
  log "rightsize $s $f: run tpcc ${flags[*]:-(client-side)} (${SECS}s, $THREADS terminals, no think time)"
  rm -f "$base.json"
  before=$(srv_mark "$s" "$RS_DB")
  /usr/bin/time -f '%e %U %S' -o "$base.run.time" \
    "$RS" run tpcc --warehouses "$WAREHOUSES" --threads "$THREADS" --think-scale 0 \
      --time "${SECS}s" --report-interval 10s ${flags[@]+"${flags[@]}"} --target "$url" --out "$base.json" \
      >"$base.run.txt" 2>&1 || rc=$?
  after=$(srv_mark "$s" "$RS_DB")
  drop_db "$s" "$RS_DB"
  if ! jq -e '.tpcc.tpmc' "$base.json" >/dev/null 2>&1; then
    log "rightsize $s $f run FAILED (exit $rc, no tpcc summary), see $base.run.txt"
    tail -5 "$base.run.txt" >&2; FAILED=1; return 0
  fi
  rs_complete "$base.json" "$rc" "$s/$f" "$s $f" "$base.run.txt" || true
  local count errors
  count=$(jq -r '.summary.count // 0' "$base.json")
  errors=$(jq -r '.summary.errors // 0' "$base.json")
  if [ "$errors" -gt $((count / 100)) ]; then
    NOTES+=("$s $f: rightsize had $errors errors against $count transactions; see $base.run.txt")
  fi
  # The server's count of transactions against rightsize's own: more than
  # 20 % above says that something else ran on the server meanwhile.
  if [ "$(jq -r '(.tpcc.server_tpm // 0) > 1.2 * .tpcc.tpm' "$base.json")" = true ]; then
    NOTES+=("$s $f: the server counted $(jq -r '.tpcc.server_tpm | round' "$base.json") TPM against rightsize's $(jq -r '.tpcc.tpm | round' "$base.json"): other work on the server during the run? ($base.json)")
  fi
  R[$s/$f/rs/nopm]+=" $(jq -r '.tpcc.server_nopm // "n/a" | if type == "number" then round else . end' "$base.json")"
  R[$s/$f/rs/nopm_client]+=" $(jq -r '.tpcc.nopm | round' "$base.json")"
  R[$s/$f/rs/tpm]+=" $(jq -r '.tpcc.server_tpm // "n/a" | if type == "number" then round else . end' "$base.json")"
  R[$s/$f/rs/tpm_client]+=" $(jq -r '.tpcc.tpm | round' "$base.json")"
  R[$s/$f/rs/cpu]+=" $(per_us "$base.run.time" "$count")"
  R[$s/$f/rs/cpu_srv]+=" $(per_us "$base.run.time" "$(delta "$before" "$after")")"
  R[$s/$f/rs/cpu_no]+=" $(per_us "$base.run.time" "$(jq -r --argjson m "$MINUTES" '(.tpcc.server_nopm // 0) * $m' "$base.json")")"
  R[$s/$f/rs/cpu_window]+=" $(jq -r '.client.cpu_per_event_us // "n/a" | if type == "number" then . * 10 | round / 10 else . end' "$base.json")"
  R[$s/$f/rs/errors]+=" $errors"
}

# hdb_common SERVER FORM: the hammerdbcli commands that choose the database,
# the connection, the schema and the routines' form
hdb_common() {
  local s=$1 f=$2
  case $s in
    postgres) cat <<EOF
# Load pgtcl-ng (see bench/tpcc_vs_hammerdb.sh), not Debian's Pgtcl 2.7.
dict set dbdict postgresql library pgtclng
dbset db pg
dbset bm TPC-C
diset connection pg_host $PG_HOST
diset connection pg_port $PG_PORT
diset connection pg_sslmode disable
diset tpcc pg_superuser $PG_USER
diset tpcc pg_superuserpass $PG_USER
diset tpcc pg_defaultdbase postgres
diset tpcc pg_user $HDB_PG_ROLE
diset tpcc pg_pass $HDB_PG_ROLE
diset tpcc pg_dbase $HDB_DB
diset tpcc pg_tspace pg_default
diset tpcc pg_oracompat false
diset tpcc pg_cituscompat false
diset tpcc pg_partition false
diset tpcc pg_storedprocs $([ "$f" = procedures ] && echo true || echo false)
EOF
      ;;
    mysql) cat <<EOF
dbset db maria
dbset bm TPC-C
diset connection maria_host $MY_HOST
diset connection maria_port $MY_PORT
# null: TCP to host:port, not the local socket (rightsize uses TCP too)
diset connection maria_socket null
diset connection maria_ssl false
diset tpcc maria_user $MY_USER
# null: connect without a password (root's is empty)
diset tpcc maria_pass null
diset tpcc maria_dbase $HDB_DB
diset tpcc maria_storage_engine innodb
diset tpcc maria_partition false
diset tpcc maria_history_pk false
diset tpcc maria_no_stored_procs false
diset tpcc maria_prepared false
EOF
      ;;
  esac
}
hdb_prefix() { case $1 in postgres) echo pg ;; mysql) echo maria ;; esac; }

# hdb_cli BASE TCLFILE LIMIT: runs hammerdbcli on TCLFILE in its checkout,
# with a new TMP (HammerDB keeps its settings there in SQLite and would carry
# them from one invocation to the next), under /usr/bin/time; output in
# BASE.txt, wall and CPU seconds in BASE.time.
hdb_cli() {
  local base=$1 script=$2 limit=$3 rc=0
  rm -rf "$HDB_TMP" && mkdir -p "$HDB_TMP"
  (cd "$HAMMERDB_DIR" && TMP="$HDB_TMP" TMPDIR="$HDB_TMP" TCLLIBPATH="{$HAMMERDB_LIB}" \
    /usr/bin/time -f '%e %U %S' -o "$base.time" \
      timeout --kill-after=30 "$limit" "$TCLSH" ./hammerdbcli auto "$script" \
      </dev/null >"$base.txt" 2>&1) || rc=$?
  return "$rc"
}

hdb_cycle() { # hdb_cycle SERVER FORM REP: fresh database, build, run, drop
  local s=$1 f=$2 k=$3 base="$OUT/tpcc_hdb_hammerdb_${1}_${2}_$3" p rc=0 before after n
  p=$(hdb_prefix "$s")
  TOUCHED+="$s/hdb "
  fresh_hdb_db "$s"
  # The build: one hammerdbcli process, LOADERS virtual users (plus
  # HammerDB's monitor virtual user when LOADERS > 1).
  {
    echo "# Written by rightsize's bench/tpcc_vs_hammerdb.sh: HammerDB's schema build."
    hdb_common "$s" "$f"
    echo "diset tpcc ${p}_count_ware $WAREHOUSES"
    echo "diset tpcc ${p}_num_vu $LOADERS"
    [ "$s" != postgres ] || { echo "diset tpcc pg_vacuum false"; echo "diset tpcc pg_dritasnap false"; }
    echo "buildschema"
    echo "exit"
  } >"$base.build.tcl"
  log "HammerDB $s $f: buildschema, $WAREHOUSES warehouses, $LOADERS loaders (cycle $k of $REPS)"
  hdb_cli "$base.build" "$base.build.tcl" 3600 || rc=$?
  n=$(sql_value "$s" "$HDB_DB" "SELECT count(*) FROM warehouse" 2>/dev/null || true)
  if [ "$rc" -ne 0 ] || ! grep -q 'SCHEMA COMPLETE' "$base.build.txt" ||
      grep -q 'FINISHED FAILED' "$base.build.txt" || [ "$n" != "$WAREHOUSES" ]; then
    log "HammerDB $s $f buildschema FAILED (exit $rc, $n of $WAREHOUSES warehouses), see $base.build.txt"
    tail -5 "$base.build.txt" >&2; FAILED=1; drop_hdb_db "$s"; return 0
  fi
  R[$s/$f/hdb/load]+=" $(elapsed "$base.build.time")"
  R[$s/$f/hdb/load_cpu]+=" $(cpu_s "$base.build.time")"
  # The run, in a hammerdbcli process of its own: the timed driver with
  # THREADS virtual users plus HammerDB's monitor virtual user, rampup 0 (the
  # monitor takes its first count as soon as it has connected), duration
  # MINUTES, no keying or think time. "vuset repeat 1": HammerDB starts its
  # virtual users 1 ms apart instead of 500 ms (its default), so that with
  # rampup 0 every terminal is running from the start of the measured
  # minutes, as rightsize's are.
  {
    echo "# Written by rightsize's bench/tpcc_vs_hammerdb.sh: HammerDB's timed run."
    hdb_common "$s" "$f"
    echo "diset tpcc ${p}_driver timed"
    echo "diset tpcc ${p}_total_iterations 10000000"
    echo "diset tpcc ${p}_raiseerror false"
    echo "diset tpcc ${p}_keyandthink false"
    echo "diset tpcc ${p}_rampup 0"
    echo "diset tpcc ${p}_duration $MINUTES"
    echo "diset tpcc ${p}_allwarehouse false"
    echo "diset tpcc ${p}_timeprofile false"
    echo "diset tpcc ${p}_async_scale false"
    echo "diset tpcc ${p}_connect_pool false"
    case $s in
      postgres) echo "diset tpcc pg_vacuum false"; echo "diset tpcc pg_dritasnap false" ;;
      mysql) echo "# no purge after the run: it would SET GLOBAL InnoDB settings"; echo "diset tpcc maria_purge false" ;;
    esac
    echo "loadscript"
    echo "vuset vu $THREADS"
    echo "vuset repeat 1"
    echo "vuset showoutput 1"
    echo "vuset logtotemp 0"
    echo "vucreate"
    echo "vurun"
    echo "vudestroy"
    echo "exit"
  } >"$base.run.tcl"
  log "HammerDB $s $f: timed run ($MINUTES min, $THREADS virtual users + monitor, no keying or think time)"
  rc=0
  before=$(srv_mark "$s" "$HDB_DB")
  hdb_cli "$base.run" "$base.run.tcl" $((SECS + 600)) || rc=$?
  after=$(srv_mark "$s" "$HDB_DB")
  drop_hdb_db "$s"
  # "TEST RESULT : System achieved N NOPM from M PostgreSQL TPM" (or, with
  # HammerDB's first_result = TPM, "... M PostgreSQL TPM at N NOPM")
  local nopm tpm
  read -r nopm tpm < <(awk '/TEST RESULT/ { for (i = 2; i <= NF; i++) { if ($i == "NOPM") n = $(i-1); if ($i == "TPM") t = $(i-2) } }
    END { print (n == "" ? "-" : n), (t == "" ? "-" : t) }' "$base.run.txt")
  if [ "$rc" -ne 0 ] || [ "$nopm" = - ] || [ "$tpm" = - ] || grep -q 'FINISHED FAILED' "$base.run.txt"; then
    log "HammerDB $s $f run FAILED (exit $rc), see $base.run.txt"; tail -5 "$base.run.txt" >&2
    FAILED=1; return 0
  fi
  # HammerDB's TPM is the server's commits + rollbacks (PostgreSQL: of every
  # database), about 2.3 per NOPM with its mix (43.5 % New-Orders); well above
  # that, something else ran on the server meanwhile.
  if awk -v t="$tpm" -v n="$nopm" 'BEGIN { exit !(n > 0 && t > 1.25 * n / 0.435) }'; then
    NOTES+=("$s $f: HammerDB's TPM $tpm is $(awk -v t="$tpm" -v n="$nopm" 'BEGIN { printf "%.1f", t / n }') per NOPM (2.3 expected): other work on the server during the run? ($base.run.txt)")
  fi
  R[$s/$f/hdb/nopm]+=" $nopm"
  R[$s/$f/hdb/tpm]+=" $tpm"
  R[$s/$f/hdb/cpu]+=" $(per_us "$base.run.time" "$(awk -v t="$tpm" -v m="$MINUTES" 'BEGIN { print t * m }')")"
  R[$s/$f/hdb/cpu_srv]+=" $(per_us "$base.run.time" "$(delta "$before" "$after")")"
  R[$s/$f/hdb/cpu_no]+=" $(per_us "$base.run.time" "$(awk -v n="$nopm" -v m="$MINUTES" 'BEGIN { print n * m }')")"
  # HammerDB does not count failed transactions; with raiseerror false its
  # virtual users print the error (PostgreSQL: "... Procedure Error set
  # RAISEERROR for Details"; MariaDB: the server's message) and go on.
  R[$s/$f/hdb/errors]+=" $(grep -E '^ ?(Vuser [0-9]+:|Error in Virtual User)' "$base.run.txt" |
    grep -ciE 'error|deadlock|lock wait' || true)"
}

# ---------------------------------------------------------------- runs
# forms_of SERVER -> the forms of $FORMS that apply to the server
forms_of() {
  local f out=
  for f in $FORMS; do
    [ "$1/$f" = mysql/functions ] || out+="$f "
  done
  echo "$out"
}
hdb_ok() { case $1 in postgres) [ "$HDB_PG_OK" = 1 ] ;; mysql) [ "$HDB_MY_OK" = 1 ] ;; esac; }
# Each cycle loads a fresh database and runs on it, so both tools start from
# the same data size and only one tool's tables share the server's buffer
# pool at a time. Which tool goes first alternates from one cycle to the next
# and from one form to the next.
for s in $SERVERS; do
  for k in $(seq 1 "$REPS"); do
    i=0
    for f in $(forms_of "$s"); do
      if [ $(((k + i) % 2)) -eq 1 ]; then order="rightsize hammerdb"; else order="hammerdb rightsize"; fi
      i=$((i + 1))
      for t in $order; do
        has_tool "$t" || continue
        case $t in
          rightsize) rs_cycle "$s" "$f" "$k" ;;
          hammerdb) if [ "$f" != client ] && hdb_ok "$s"; then hdb_cycle "$s" "$f" "$k"; fi ;;
        esac
      done
    done
  done
done
# Medians of the repetitions; the raw values go to the table's footer.
medians

# ---------------------------------------------------------------- report
TABLE=$OUT/tpcc_vs_hammerdb.txt
{
  printf '# rightsize vs HammerDB %s: TPC-C warehouses=%s virtual users=%s loaders=%s run=%s min, no keying/think time, median of %s cycle(s), %s, nproc=%s\n' \
    "${HDB_VERSION:-(not run)}" "$WAREHOUSES" "$THREADS" "$LOADERS" "$MINUTES" "$REPS" "$(date -u +%FT%TZ)" "$(nproc)"
  line() { printf '%-22s %11s %11s %9s\n' "$@"; }
  for s in $SERVERS; do
    for f in $(forms_of "$s"); do
      hf=$f # the HammerDB form shown beside rightsize's
      if [ "$f" = client ]; then
        case $s in postgres) hf=functions ;; mysql) hf=procedures ;; esac
      fi
      row() { # row LABEL FIELD
        line "$1" "${M[$s/$hf/hdb/$2]:-n/a}" "${M[$s/$f/rs/$2]:-n/a}" \
          "$(ratio "${M[$s/$f/rs/$2]:-}" "${M[$s/$hf/hdb/$2]:-}")"
      }
      echo
      label="$s $f"
      [ "$f" != client ] || label="$s client ($hf)"
      line "$label${R[$s/$f/flag]:-}" hammerdb rightsize rs/hdb
      row load_s load
      row load_cpu_s load_cpu
      row NOPM nopm
      row NOPM_client nopm_client
      row TPM tpm
      row TPM_client tpm_client
      row cpu_us/txn cpu
      row cpu_us/txn_srv cpu_srv
      row cpu_us/new_order cpu_no
      row cpu_us/txn_window cpu_window
      row errors errors
    done
  done
  echo
  for s in $SERVERS; do
    for f in $(forms_of "$s"); do
      for x in load nopm tpm cpu cpu_srv cpu_no; do
        for t in hdb rs; do runs_lines "$s/$f" "$t" "$x"; done
      done
    done
  done
  notes_lines
  echo "# client (hammerdb column): HammerDB's usual form on that server (functions on PostgreSQL, stored procedures on MariaDB); it has no client-side mode."
  echo "# load_s, load_cpu_s: wall and user+sys seconds of the load: rightsize 'prepare --in-server', HammerDB's"
  echo "#   'buildschema' process (tclsh start-up, and its loaders' 5 s / monitor's 10 s polling, included)."
  echo "# NOPM: new orders per minute from the growth of sum(d_next_o_id) over the measured minutes (HammerDB's"
  echo "#   TEST RESULT; rightsize's .tpcc.server_nopm). NOPM_client: rightsize's own count (.tpcc.nopm)."
  echo "# TPM: the server's commits + rollbacks per minute (HammerDB: PostgreSQL every database's, MariaDB"
  echo "#   global Com_commit + Com_rollback; rightsize .tpcc.server_tpm: the run's database on PostgreSQL)."
  echo "#   TPM_client: rightsize's transactions per minute as it counted them (.tpcc.tpm)."
  echo "# cpu_us/txn: the run process's user+sys (/usr/bin/time, start-up to exit) / transactions:"
  echo "#   HammerDB TPM x $MINUTES min (its measured minutes), rightsize .summary.count."
  echo "# cpu_us/txn_srv: the same CPU / the server's commits + rollbacks from 2 s before to 2 s after the"
  echo "#   process, for both tools (PostgreSQL: the tool's database; MariaDB: global): counts HammerDB's"
  echo "#   transactions after its measured minutes too, and each tool's monitoring queries."
  echo "# cpu_us/new_order: the same CPU / (NOPM x $MINUTES min), both from sum(d_next_o_id): the one CPU figure"
  echo "#   whose denominator both tools count the same way on every server (HammerDB's mix has 43.5 % New-Orders,"
  echo "#   rightsize's 45 %)."
  echo "# cpu_us/txn_window: rightsize's .client.cpu_per_event_us (measured window to exit)."
  echo "# errors: rightsize .summary.errors; HammerDB: lines of its run output that report an error."
  echo "# rs/hdb: rightsize / HammerDB; above 1 in NOPM/TPM: rightsize drove more, below 1 in cpu: rightsize lighter."
} | tee "$TABLE"

[ "$FAILED" -eq 0 ] || die "some runs failed; see logs in $OUT"
