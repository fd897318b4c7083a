# shellcheck shell=bash
# The PostgreSQL side of bench/app_capture.sh (sourced): a private server
# logging every statement to csvlog, the shop made by psql, production by
# pgbench, snapshots by psql. Sets PROD_URL, COPY_URL and LOG.
ensure_pkg pgbench postgresql-client
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
chown postgres "$DIR"
as_postgres() { runuser -u postgres -- "$@"; }
export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres PGSSLMODE=disable
PROD_URL=postgres://postgres@127.0.0.1:$PORT/shop
COPY_URL=postgres://postgres@127.0.0.1:$PORT/shopcopy
LOG=$DIR/log
q() { psql -qXAt -d "$1" -c "$2"; }

start_server() {
  log "a private PostgreSQL on port $PORT ($PGBIN), csvlog with every statement, pg_stat_statements"
  as_postgres "$PGBIN/initdb" -D "$DIR/data" -A trust -U postgres --no-sync >"$DIR/initdb.txt"
  as_postgres "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.txt" -w -o "-p $PORT -c listen_addresses=127.0.0.1 \
    -c unix_socket_directories=$DIR -c shared_preload_libraries=pg_stat_statements -c logging_collector=on \
    -c log_destination=csvlog -c log_directory=$DIR/log -c log_filename=pg.log -c log_min_duration_statement=0 \
    -c fsync=off -c synchronous_commit=off -c shared_buffers=128MB -c max_connections=200" start >/dev/null ||
    { tail -20 "$DIR/server.txt" "$DIR"/log/* >&2 2>/dev/null; die "the private server did not start"; }
}
stop_server() { as_postgres "$PGBIN/pg_ctl" -D "$DIR/data" -m fast stop >/dev/null 2>&1 || true; }

make_shop() {
  psql -qX -d postgres -c "CREATE DATABASE shop"
  psql -qX -d shop -f "$SHOP/schema.sql" -c "CREATE EXTENSION pg_stat_statements" >/dev/null
}

# production SECONDS: pgbench runs the shop's three scripts at $RATE.
production() {
  (cd "$DIR" && pgbench -n -f "$SHOP/checkout.sql@5" -f "$SHOP/view.sql@3" -f "$SHOP/recent.sql@2" \
    -R "$RATE" -c 8 -j 2 -M prepared -T "$1" -l --log-prefix=prod shop >"$DIR/pgbench.txt" 2>&1) ||
    { cat "$DIR/pgbench.txt" >&2; return 1; }
}

make_copy() {
  psql -qX -d postgres -c "CREATE DATABASE shopcopy TEMPLATE shop"
  q shopcopy "TRUNCATE orders; ANALYZE" >/dev/null
  q shopcopy "SELECT pg_stat_statements_reset()" >/dev/null
}

# snapshot DB NAME: the statements' calls, the customers' order counts and
# the database's commits, with the time.
snapshot() {
  q "$1" "SELECT s.queryid, s.calls, regexp_replace(s.query, '\s+', ' ', 'g') FROM pg_stat_statements s
          JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = '$1'" | tr '|' '\t' >"$DIR/$2.stmts"
  q "$1" "SELECT id, orders FROM customers" | tr '|' '\t' >"$DIR/$2.customers"
  q "$1" "SELECT xact_commit FROM pg_stat_database WHERE datname = '$1'" >"$DIR/$2.commits"
  date +%s.%N >"$DIR/$2.time"
}
