package serverstats

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
)

// postgres reads PostgreSQL's statistics views.
type postgres struct {
	version int // server_version_num
	user    string
	// allowed: the user may see other users' sessions (a superuser,
	// pg_read_all_stats or pg_monitor).
	allowed bool
	names   []string // the counters, in the order counterSQL selects them
	sql     string
	// activity is activitySQL, prepared once on the monitoring connection.
	activity dialect.Stmt
	// stmts reads pg_stat_statements when it is installed in the run's
	// database and loaded (nil otherwise); stmtNote says why it is not
	// read when it is installed.
	stmts    dialect.Stmt
	stmtNote string
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

func (p *postgres) note() string { return p.stmtNote }

func (p *postgres) check(ctx context.Context, c dialect.Conn) error {
	var v string
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num'), current_user", nil, &v, &p.user); err != nil {
		return err
	}
	p.version, _ = strconv.Atoi(v)
	if _, err := c.Exec(ctx, "SET statement_timeout = '"+statementTimeout+"'"); err != nil {
		return err
	}
	var allowed int64
	if err := c.QueryRow(ctx, "SELECT CASE WHEN rolsuper OR pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') THEN 1 ELSE 0 END"+
		" FROM pg_catalog.pg_roles WHERE rolname = current_user", nil, &allowed); err != nil {
		return err
	}
	p.allowed = allowed == 1
	p.names, p.sql = counterSQL(p.version)
	var err error
	if p.activity, err = c.Prepare(ctx, activitySQL); err != nil {
		return err
	}
	p.checkStatements(ctx, c)
	return nil
}

// statementsSQL reads pg_stat_statements in schema (where the extension
// was created) for the run's database, a row per normalized statement
// (its users' and top-level entries added up), leaving out the monitor's
// own queries (all of them read a pg_stat view) and the entries whose
// text the user may not see. The execution time column is total_time
// before PostgreSQL 13.
func statementsSQL(schema string, version int) string {
	t := "total_exec_time"
	if version < 130000 {
		t = "total_time"
	}
	return "SELECT queryid::text, min(query), sum(calls)::int8, sum(" + t + ")::float8, sum(rows)::int8" +
		" FROM " + quoteIdent(schema) + ".pg_stat_statements" +
		" WHERE dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())" +
		" AND queryid IS NOT NULL AND query NOT LIKE '%pg\\_stat%' AND query <> '<insufficient privilege>'" +
		" GROUP BY queryid"
}

// checkStatements prepares the read of pg_stat_statements when the
// extension is installed in the run's database, and tries it once: an
// extension created but not loaded (not in shared_preload_libraries)
// fails, and a note says how to load it.
func (p *postgres) checkStatements(ctx context.Context, c dialect.Conn) {
	var schema string
	if err := c.QueryRow(ctx, "SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace"+
		" WHERE e.extname = 'pg_stat_statements'", nil, &schema); err != nil {
		return // not installed here (or not readable): no statements
	}
	st, err := c.Prepare(ctx, statementsSQL(schema, p.version))
	if err == nil {
		p.stmts = st
		_, err = p.statements(ctx, c)
	}
	if err != nil {
		p.stmts = nil
		p.stmtNote = fmt.Sprintf("pg_stat_statements is installed but could not be read (%v), so the statements taking the most time are not named: add it to shared_preload_libraries and restart the server", err)
	}
}

// missedStatements: pg_stat_statements counts every statement it tracks.
func (p *postgres) missedStatements(map[string]float64, stmtSnapshot, stmtSnapshot) string { return "" }

// statements reads pg_stat_statements (nil when it is not read).
func (p *postgres) statements(ctx context.Context, _ dialect.Conn) (stmtSnapshot, error) {
	if p.stmts == nil {
		return nil, nil
	}
	return readStatements(ctx, p.stmts)
}

// hiddenNote says why sessions were hidden, and how to let them be seen.
func (p *postgres) hiddenNote() string {
	return fmt.Sprintf("user %s may not see other users' sessions in pg_stat_activity (their state and wait events read NULL, their query <insufficient privilege>), so they are counted as hidden, not as active or waiting: run GRANT pg_monitor TO %s; as a superuser", p.user, quoteIdent(p.user))
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

// quoteIdent quotes a role's name as GRANT takes it.
func quoteIdent(s string) string {
	if s != "" && strings.ToLower(s) == s && !strings.ContainsAny(s, ` "-.;'`) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
