# shellcheck shell=bash
# The MariaDB side of bench/app_capture.sh (sourced): a private mariadbd
# writing every statement to its slow query log, with performance_schema;
# the shop made by the mariadb client, production by sysbench running
# shop_mysql.lua, snapshots by the client. Sets PROD_URL, COPY_URL and LOG.
chown mysql "$DIR"
MYOPTS=(--no-defaults "--datadir=$DIR/data" --innodb-log-file-size=16M --innodb-buffer-pool-size=128M --skip-name-resolve)
PROD_URL=mysql://root@127.0.0.1:$PORT/shop
COPY_URL=mysql://root@127.0.0.1:$PORT/shopcopy
LOG=$DIR/slow.log
my() { mariadb -h127.0.0.1 -P"$PORT" -uroot -N -B "$@"; }

start_server() {
  log "a private MariaDB on port $PORT, the slow query log with every statement, performance_schema"
  runuser -u mysql -- mariadb-install-db "${MYOPTS[@]}" --auth-root-authentication-method=normal --skip-test-db >"$DIR/install.txt" 2>&1
  runuser -u mysql -- mariadbd "${MYOPTS[@]}" --port="$PORT" --bind-address=127.0.0.1 --socket="$DIR/mysqld.sock" \
    --pid-file="$DIR/mysqld.pid" --performance-schema=ON --slow-query-log=ON --long-query-time=0 \
    --slow-query-log-file="$LOG" --innodb-flush-log-at-trx-commit=0 --max-connections=200 >"$DIR/server.txt" 2>&1 &
  for _ in $(seq 100); do my -e "SELECT 1" >/dev/null 2>&1 && return 0; sleep 0.2; done
  tail -20 "$DIR/server.txt" >&2
  die "the private server did not start"
}
stop_server() { [ -f "$DIR/mysqld.pid" ] && kill "$(cat "$DIR/mysqld.pid")" 2>/dev/null || true; }

make_shop() {
  my -e "CREATE DATABASE shop"
  my --init-command="SET SESSION max_recursive_iterations = 1000000" shop <"$SHOP/schema_mysql.sql"
}

# production SECONDS: sysbench runs the shop at $RATE, each event logged.
production() {
  SHOP_EVENTS=$DIR/events sysbench "$SHOP/shop_mysql.lua" --db-driver=mysql --mysql-host=127.0.0.1 \
    --mysql-port="$PORT" --mysql-user=root --mysql-db=shop --threads=8 --rate="$RATE" --time="$1" run \
    >"$DIR/sysbench.txt" 2>&1 || { cat "$DIR/sysbench.txt" >&2; return 1; }
}

make_copy() {
  my -e "CREATE DATABASE shopcopy"
  for t in customers items orders; do my -e "CREATE TABLE shopcopy.$t LIKE shop.$t"; done
  my -e "INSERT INTO shopcopy.customers SELECT * FROM shop.customers; INSERT INTO shopcopy.items SELECT * FROM shop.items; ANALYZE TABLE shopcopy.customers, shopcopy.items, shopcopy.orders" >/dev/null
}

# snapshot DB NAME: the digests' calls (the statements sent as text), the
# customers' order counts and the commits, with the time.
snapshot() {
  my -e "SELECT DIGEST, COUNT_STAR, REPLACE(DIGEST_TEXT, '\n', ' ') FROM performance_schema.events_statements_summary_by_digest
         WHERE SCHEMA_NAME = '$1'" >"$DIR/$2.stmts"
  my -e "SELECT id, orders FROM $1.customers" >"$DIR/$2.customers"
  my -e "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'COM_COMMIT'" >"$DIR/$2.commits"
  date +%s.%N >"$DIR/$2.time"
}
