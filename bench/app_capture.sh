#!/usr/bin/env bash
# Your own workload end to end (issue 49), measured: a made-up shop is
# "production" on a private PostgreSQL (started here from the installed
# binaries, logging every statement to csvlog; the shared server is never
# reconfigured), driven by pgbench -f at a fixed rate: a five-statement
# checkout with zipfian customer keys (half the transactions), an item read
# (30 %) and a customer's recent orders (20 %). rightsize capture reads it
# with --log over the window, then, on a copy whose history table (orders)
# is empty, the file is replayed by study run app-rate, with only the
# commands docs/own-workload.md prints. The script compares, at the study's
# 1x step against production's window:
#   commits per second (pg_stat_database), each transaction's share
#   (pgbench's log; the result's types), each statement's share of calls
#   (pg_stat_statements on both sides, over the whole study on the copy),
#   the busiest 1 % of customers' share of the checkouts (customers.orders
#   on both sides), the checkout's p95 (pgbench's log; the result),
# and prints the study's VM answer. SERVER=mariadb runs the same on a
# private MariaDB writing every statement to its slow query log, the shop
# driven by sysbench (bench/files/shop/shop_mysql.lua: the statements sent
# as text, an IN list of five, a report of more than 1,024 bytes); there the
# transactions' shares, rate and the checkout's p95 come from the script's
# own event log, the statements' shares from the digests (production) and
# the result's statements (the replay's prepared statements are not in
# MariaDB's digests). See bench/README.md.
#
# Env options:
#   SERVER=postgres postgres or mariadb
#   RATE=100        production's transactions per second (pgbench -R)
#   WINDOW=130      capture's window in seconds; "default" runs capture
#                   without --for (its default, 10 minutes)
#   PORT=           the private server's port (default: a free one)
#   OUT=bench/out   output directory (gitignored)
set -euo pipefail

SERVER=${SERVER:-postgres}
RATE=${RATE:-100}
WINDOW=${WINDOW:-130}
PORT=${PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
SERVERS=postgres

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out

want_positive RATE PORT
FOR=(--for "${WINDOW}s")
if [ "$WINDOW" = default ]; then
  WINDOW=600
  FOR=()
fi
want_positive WINDOW
ensure_pkg python3 python3
build_rightsize

case $SERVER in postgres | mariadb) ;; *) die "SERVER=$SERVER: want postgres or mariadb" ;; esac
if [ "$SERVER" = mariadb ]; then
  ensure_pkg sysbench sysbench
  ensure_pkg mariadb mariadb-client
fi
SHOP=$SCRIPT_DIR/files/shop
DIR=$OUT/app_capture_$SERVER
rm -rf "$DIR"
mkdir -p "$DIR" "$DIR/events"
. "$SHOP/$SERVER.sh"

start_server
trap stop_server EXIT
make_shop

log "production: the shop at $RATE transactions/s for the window and 30 s"
production $((WINDOW + 30)) &
PROD=$!
sleep 10
snapshot shop prod_before
echo "\$ rightsize capture --target $PROD_URL ${FOR[*]} --log $LOG --out my-app.yaml" >"$DIR/capture.txt"
(cd "$DIR" && "$RS" capture --target "$PROD_URL" "${FOR[@]}" --log "$LOG" --out my-app.yaml --progress 60s) \
  >>"$DIR/capture.txt" 2>&1 || { cat "$DIR/capture.txt" >&2; die "capture failed"; }
snapshot shop prod_after
wait $PROD || die "production failed (see $DIR)"
tail -1 "$DIR/capture.txt"

log "the copy: shopcopy, its history table (orders) empty; allow_writes uncommented as the file says"
make_copy
sed -i 's/^# allow_writes: true/allow_writes: true/' "$DIR/my-app.yaml"
snapshot shopcopy copy_before
echo "\$ rightsize study run app-rate --workload my-app.yaml --target $COPY_URL" >"$DIR/study.txt"
(cd "$DIR" && "$RS" study run app-rate --workload my-app.yaml --target "$COPY_URL" --dir study) >>"$DIR/study.txt" 2>&1 ||
  { cat "$DIR/study.txt" >&2; die "study failed"; }
snapshot shopcopy copy_after

python3 "$SHOP/compare.py" "$DIR" "$SERVER" | tee "$DIR/compare.txt"
log "the study's answer:"
grep -E "^(plan|  )" "$DIR/study.txt" | grep -iE "^plan|vCPU" | head -4
log "files in $DIR (my-app.yaml, capture.txt, study.txt, compare.txt)"
