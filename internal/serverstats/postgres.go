package serverstats

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/stmtstats"
)

// postgres reads PostgreSQL's statistics views.
type postgres struct {
	version int // server_version_num
	user    string
	names   []string // the counters, in the order counterSQL selects them
	sql     string
	// activity is activitySQL, prepared once on the monitoring connection.
	activity dialect.Stmt
}

// activitySQL counts the run database's client sessions, other than the
// monitor's own, by state and wait event: a few rows per sample. Without
// pg_read_all_stats (pg_monitor) a session of another user is seen with its
// backend type, state and wait events NULL: it is kept (its NULL state
// counts it as hidden), as it cannot be told from a client session. An
// autovacuum or parallel worker of another user in the database is hidden
// the same way, and counted so too.
const activitySQL = "SELECT state, wait_event_type, wait_event, count(*) FROM pg_catalog.pg_stat_activity" +
	" WHERE (backend_type = 'client backend' OR backend_type IS NULL) AND datname = current_database() AND pid <> pg_backend_pid()" +
	" GROUP BY 1, 2, 3"

var _ server = (*postgres)(nil)

func (p *postgres) describe() (source, product string) { return "pg_stat_activity", "PostgreSQL" }

func (p *postgres) note() string { return "" }

func (p *postgres) check(ctx context.Context, c dialect.Conn) error {
	var v string
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num'), current_user", nil, &v, &p.user); err != nil {
		return err
	}
	p.version, _ = strconv.Atoi(v)
	if _, err := c.Exec(ctx, "SET statement_timeout = '"+statementTimeout+"'"); err != nil {
		return err
	}
	p.names, p.sql = counterSQL(p.version)
	var err error
	p.activity, err = c.Prepare(ctx, activitySQL)
	return err
}

// missedStatements: pg_stat_statements counts every statement it tracks.
func (p *postgres) missedStatements(map[string]float64, stmtSnapshot, stmtSnapshot) string { return "" }

// hiddenNote says why sessions were hidden, and how to let them be seen.
func (p *postgres) hiddenNote() string {
	return fmt.Sprintf("user %s may not see other users' sessions in pg_stat_activity (their state and wait events read NULL, their query <insufficient privilege>), so they are counted as hidden, not as active or waiting: run GRANT pg_monitor TO %s; as a superuser", p.user, stmtstats.QuoteRole(p.user))
}

// sample adds one sample of the sessions to a.
func (p *postgres) sample(ctx context.Context, a *activity) error {
	rows, err := p.activity.Query(ctx)
	if err != nil {
		return err
	}
	a.samples++
	for rows.Next() {
		var state, typ, event string
		var n int64
		if err := rows.Scan(&state, &typ, &event, &n); err != nil {
			rows.Close()
			return err
		}
		switch {
		case state == "":
			a.hidden += n
		case state == "idle in transaction" || state == "idle in transaction (aborted)":
			// Inside a transaction the server holds its locks and
			// snapshot while it waits for the client's next statement:
			// counted apart (not active: the server does nothing).
			a.idleInTx += n
		case state != "active":
			// idle between transactions: no work of the server's.
		case typ == "":
			a.active += n
			a.count(waitKey{typ: "CPU"}, n)
		default:
			a.active += n
			a.count(waitKey{typ: typ, event: event}, n)
		}
	}
	return rows.Close()
}

// counterSQL is the query of the counters a server of version v has, and
// their names (view.column), in its columns' order.
func counterSQL(v int) (names []string, sql string) {
	var cols []string
	add := func(view, from string, columns ...string) {
		for _, col := range columns {
			names = append(names, view+"."+col)
			cols = append(cols, "(SELECT "+col+"::float8 FROM pg_catalog."+view+from+")")
		}
	}
	add("pg_stat_database", " WHERE datname = current_database()",
		"xact_commit", "xact_rollback", "blks_hit", "blks_read", "temp_bytes", "deadlocks", "conflicts")
	if v >= 170000 {
		add("pg_stat_checkpointer", "", "num_timed", "num_requested", "buffers_written")
	} else {
		add("pg_stat_bgwriter", "", "checkpoints_timed", "checkpoints_req", "buffers_checkpoint", "buffers_backend")
	}
	if v >= 160000 {
		// What the client backends (the virtual users' sessions) read,
		// wrote, extended and synced themselves, in blocks, and the time
		// it took (milliseconds, with track_io_timing on).
		for _, col := range []string{"reads", "read_time", "writes", "write_time", "extends", "fsyncs"} {
			names = append(names, "pg_stat_io.client_"+col)
			cols = append(cols, "(SELECT COALESCE(sum("+col+"), 0)::float8 FROM pg_catalog.pg_stat_io WHERE backend_type = 'client backend')")
		}
	}
	switch {
	case v >= 180000:
		add("pg_stat_wal", "", "wal_records", "wal_bytes")
	case v >= 140000:
		add("pg_stat_wal", "", "wal_records", "wal_bytes", "wal_write", "wal_sync", "wal_sync_time")
	}
	return names, "SELECT " + strings.Join(cols, ", ")
}

// counters reads the counters.
func (p *postgres) counters(ctx context.Context, c dialect.Conn) (*snapshot, error) {
	vals := make([]float64, len(p.names))
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := c.QueryRow(ctx, p.sql, nil, dest...); err != nil {
		return nil, err
	}
	s := &snapshot{at: time.Now(), values: make(map[string]float64, len(vals))}
	for i, n := range p.names {
		s.values[n] = vals[i]
	}
	return s, nil
}
