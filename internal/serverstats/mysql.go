package serverstats

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/stmtstats"
)

var _ server = (*mysql)(nil)

// mysql reads MySQL's and MariaDB's views of their sessions: the
// run schema's foreground threads (performance_schema.threads when
// performance_schema is on, else INFORMATION_SCHEMA.PROCESSLIST), each
// joined with its InnoDB transaction (INFORMATION_SCHEMA.INNODB_TRX, whose
// trx_state 'LOCK WAIT' is the one sign of a row lock wait both servers
// give) and, when performance_schema collects them, its current wait event
// (events_waits_current). See the package doc for why.
type mysql struct {
	// noSessions: only the status counters are read (Options.MySQLSessions).
	noSessions bool
	product    string // "MySQL" or "MariaDB"
	user       string
	// perf: performance_schema is on; waits: its events_waits_current
	// consumer is too (the wait events are read).
	perf, waits bool
	// allowed: the user has PROCESS (sees other users' threads and
	// INNODB_TRX); without it no session is sampled.
	allowed  bool
	activity dialect.Stmt
	status   dialect.Stmt
	// metrics reads InnoDB's metrics that SHOW GLOBAL STATUS lacks, those
	// the server has enabled (information_schema.INNODB_METRICS; nil when
	// it may not be read).
	metrics  dialect.Stmt
	standing string // what is not read, and how to let it be
}

// mysqlStatus are the SHOW GLOBAL STATUS counters read at each report
// interval's end (deltas), and mysqlGauges those that are levels (their
// mean over the readings).
var (
	mysqlStatus = []string{"Com_commit", "Com_rollback", "Innodb_row_lock_waits", "Innodb_row_lock_time",
		"Innodb_log_waits", "Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_data_fsyncs",
		"Innodb_os_log_written", "Innodb_deadlocks", "Questions", "Com_stmt_execute"}
	mysqlGauges = []string{"Threads_running", "Innodb_row_lock_current_waits"}
	// mysqlMetrics are the InnoDB metrics read where enabled: lock wait
	// timeouts (a counter) and the undo history not yet purged (a gauge:
	// its length grows when purge falls behind the writes).
	mysqlMetrics       = []string{"lock_timeouts", "trx_rseg_history_len"}
	mysqlMetricsGauges = []string{"trx_rseg_history_len"}
)

// The threads' query, one row per thread and current wait event: the
// thread's id, command, state, InnoDB transaction state and wait event
// ("" each when there is none). A thread may have nested current waits:
// sample keeps its innermost (the last, by EVENT_ID).
const (
	mysqlThreadsPS = "SELECT t.PROCESSLIST_ID, t.PROCESSLIST_COMMAND, COALESCE(t.PROCESSLIST_STATE, ''), COALESCE(x.trx_state, ''), %s" +
		" FROM performance_schema.threads t" +
		" LEFT JOIN information_schema.INNODB_TRX x ON x.trx_mysql_thread_id = t.PROCESSLIST_ID%s" +
		" WHERE t.TYPE = 'FOREGROUND' AND t.PROCESSLIST_DB = DATABASE() AND t.PROCESSLIST_ID <> CONNECTION_ID()" +
		" ORDER BY 1%s"
	mysqlWaitsJoin = " LEFT JOIN performance_schema.events_waits_current w ON w.THREAD_ID = t.THREAD_ID" +
		" AND w.END_EVENT_ID IS NULL AND w.EVENT_NAME <> 'idle'"
	mysqlThreadsPL = "SELECT p.ID, p.COMMAND, COALESCE(p.STATE, ''), COALESCE(x.trx_state, ''), ''" +
		" FROM information_schema.PROCESSLIST p" +
		" LEFT JOIN information_schema.INNODB_TRX x ON x.trx_mysql_thread_id = p.ID" +
		" WHERE p.DB = DATABASE() AND p.ID <> CONNECTION_ID() AND p.COMMAND NOT IN ('Daemon', 'Binlog Dump')" +
		" ORDER BY 1"
)

func (m *mysql) describe() (source, product string) {
	switch {
	case m.perf && m.waits:
		return "performance_schema", m.product
	case m.perf:
		return "performance_schema threads", m.product
	}
	return "processlist", m.product
}

func (m *mysql) hiddenNote() string { return "" }

func (m *mysql) note() string { return m.standing }

func (m *mysql) check(ctx context.Context, c dialect.Conn) error {
	var version, host string
	if err := c.QueryRow(ctx, "SELECT VERSION(), SUBSTRING_INDEX(CURRENT_USER(), '@', 1), SUBSTRING_INDEX(CURRENT_USER(), '@', -1)", nil, &version, &m.user, &host); err != nil {
		return err
	}
	m.product = "MySQL"
	if strings.Contains(strings.ToLower(version), "mariadb") {
		m.product = "MariaDB"
		_, _ = c.Exec(ctx, "SET SESSION max_statement_time = "+strings.TrimSuffix(statementTimeout, "s"))
	} else {
		_, _ = c.Exec(ctx, "SET SESSION max_execution_time = "+strings.TrimSuffix(statementTimeout, "s")+"000")
	}
	var ps string
	if err := c.QueryRow(ctx, "SELECT @@performance_schema", nil, &ps); err == nil {
		m.perf = ps == "1" || strings.EqualFold(ps, "ON")
	}
	if m.perf {
		var on int64
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM performance_schema.setup_consumers WHERE NAME = 'events_waits_current' AND ENABLED = 'YES'", nil, &on); err != nil {
			m.perf = false
			m.standing = fmt.Sprintf("performance_schema is on but user %s may not read it (%v), so the process list is sampled instead: run GRANT SELECT ON performance_schema.* TO %s;", m.user, err, stmtstats.Account(m.user, host))
		} else {
			m.waits = on == 1
		}
	}
	switch {
	case !m.perf && m.standing == "":
		m.standing = "performance_schema is off: sessions are sampled from the process list (state and InnoDB lock waits, not wait events); to name wait events set performance_schema=ON in the server's configuration ([mysqld] section) and restart it"
	case m.perf && !m.waits:
		m.standing = "performance_schema's events_waits_current consumer is off: sessions are named by state and InnoDB lock waits, not wait events; to name them run UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'events_waits_current'; and UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE 'wait/%'; (or start the server with performance_schema_consumer_events_waits_current=ON and performance_schema_instrument='wait/%=ON')"
	}
	// PROCESS lets the user see other users' threads and INNODB_TRX.
	var n int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.INNODB_TRX", nil, &n); err == nil {
		m.allowed = true
	} else {
		// The note on performance_schema would not apply: it replaces it.
		m.standing = fmt.Sprintf("user %s may not see other users' threads or InnoDB's transactions (%v), so no session is sampled, only the status counters: run GRANT PROCESS ON *.* TO %s; as an administrator", m.user, err, stmtstats.Account(m.user, host))
	}
	if m.allowed && m.noSessions {
		m.allowed = false
		m.standing = "sessions are not sampled by default on MySQL/MariaDB, only the status counters: reading InnoDB's transactions every interval can hold up its lock waits in a lock storm; give --server-stats on (or an interval) to sample them"
	}
	var err error
	if m.allowed {
		q := mysqlThreadsPL
		if m.perf {
			q = fmt.Sprintf(mysqlThreadsPS, "''", "", "")
			if m.waits {
				q = fmt.Sprintf(mysqlThreadsPS, "COALESCE(w.EVENT_NAME, '')", mysqlWaitsJoin, ", w.EVENT_ID")
			}
		}
		if m.activity, err = c.Prepare(ctx, q); err != nil {
			return err
		}
	}
	m.prepareMetrics(ctx, c)
	names := append(append([]string(nil), mysqlStatus...), mysqlGauges...)
	m.status, err = c.Prepare(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(names, "', '")+"')")
	return err
}

// prepareMetrics prepares the read of InnoDB's metrics where they are
// readable and enabled (else they are left unread).
func (m *mysql) prepareMetrics(ctx context.Context, c dialect.Conn) {
	// Enabled is the column ENABLED (1) on MariaDB, STATUS ('enabled') on
	// MySQL.
	enabled := "STATUS = 'enabled'"
	if m.product == "MariaDB" {
		enabled = "ENABLED = 1"
	}
	q := "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE " + enabled + " AND NAME IN ('" + strings.Join(mysqlMetrics, "', '") + "')"
	if st, err := c.Prepare(ctx, q); err == nil {
		m.metrics = st
		if _, err := m.readMetrics(ctx, &snapshot{values: map[string]float64{}, gauges: map[string]float64{}}); err != nil {
			m.metrics = nil // not readable: only the status counters
		}
	}
}

// mysqlThread is one sampled thread.
type mysqlThread struct {
	command, state, trx, event string
}

// sample adds one sample of the run schema's threads to a.
func (m *mysql) sample(ctx context.Context, a *activity) error {
	if m.activity == nil {
		return nil // no PROCESS: nothing is sampled (the note says so)
	}
	rows, err := m.activity.Query(ctx)
	if err != nil {
		return err
	}
	a.samples++
	var id, last int64 = 0, -1
	var th mysqlThread
	flush := func() {
		if last >= 0 {
			if k, ok := mysqlWait(th, m.waits); ok {
				a.active++
				a.count(k, 1)
			}
		}
	}
	for rows.Next() {
		var t mysqlThread
		if err := rows.Scan(&id, &t.command, &t.state, &t.trx, &t.event); err != nil {
			rows.Close()
			return err
		}
		if id != last {
			flush()
		}
		th, last = t, id // rows are in EVENT_ID order: the last is the innermost wait
	}
	flush()
	return rows.Close()
}

// mysqlWait names what a thread was doing, and whether it was active (a
// thread between statements, command Sleep, is waiting for its client,
// not active). waits: the wait events were read (event "" is then on CPU).
// Row lock waits come from InnoDB's transaction state, as its wait event
// (wait/io/table/sql/handler, the handler call it waits in) does not tell
// them from the handler's work; a metadata or table lock from the
// thread's state; then the wait event; without wait events, the state.
func mysqlWait(t mysqlThread, waits bool) (waitKey, bool) {
	if t.command == "Sleep" || t.command == "" {
		return waitKey{}, false
	}
	state := strings.ToLower(t.state)
	switch {
	case t.trx == "LOCK WAIT":
		return waitKey{typ: "Lock", event: "row"}, true
	case strings.Contains(state, "metadata lock"):
		return waitKey{typ: "Lock", event: "metadata"}, true
	case strings.HasPrefix(state, "waiting for table") || strings.Contains(state, "table level lock"):
		return waitKey{typ: "Lock", event: "table"}, true
	case waits && t.event != "":
		typ, event := splitInstrument(t.event)
		return waitKey{typ: typ, event: event}, true
	case waits:
		return waitKey{typ: "CPU"}, true
	case t.state == "":
		return waitKey{typ: "State", event: t.command}, true
	}
	return waitKey{typ: "State", event: t.state}, true
}

// splitInstrument cuts a wait instrument's name after its class:
// "wait/io/file/innodb/innodb_log_file" is type "wait/io/file", event
// "innodb/innodb_log_file".
func splitInstrument(name string) (typ, event string) {
	parts := strings.SplitN(name, "/", 4)
	if len(parts) < 4 {
		return name, ""
	}
	return strings.Join(parts[:3], "/"), parts[3]
}

// counters reads the status counters; the gauges go to gauges.
func (m *mysql) counters(ctx context.Context, _ dialect.Conn) (*snapshot, error) {
	s := &snapshot{at: time.Now(), values: map[string]float64{}, gauges: map[string]float64{}}
	err := readNamed(ctx, m.status, func(name string, v float64) {
		switch name {
		case "Threads_running":
			s.gauges["status."+name] = max(v-1, 0) // less the monitor's own thread, which runs this
		case "Innodb_row_lock_current_waits":
			s.gauges["status."+name] = v
		default:
			s.values["status."+name] = v
		}
	})
	if err != nil {
		return nil, err
	}
	return m.readMetrics(ctx, s)
}

// readMetrics adds the InnoDB metrics read (mysqlMetrics) to s, as
// "innodb_metrics.<name>".
func (m *mysql) readMetrics(ctx context.Context, s *snapshot) (*snapshot, error) {
	if m.metrics == nil {
		return s, nil
	}
	err := readNamed(ctx, m.metrics, func(name string, v float64) {
		if slices.Contains(mysqlMetricsGauges, name) {
			s.gauges["innodb_metrics."+name] = v
		} else {
			s.values["innodb_metrics."+name] = v
		}
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// readNamed runs a query of name, value rows and gives each to add.
func readNamed(ctx context.Context, q dialect.Stmt, add func(name string, v float64)) error {
	rows, err := q.Query(ctx)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name string
		var v float64
		if err := rows.Scan(&name, &v); err != nil {
			rows.Close()
			return err
		}
		add(name, v)
	}
	return rows.Close()
}

// missedStatements: MariaDB counts the statements a client executes as
// prepared statements (the binary protocol, as the virtual users do) in
// neither its digests nor its prepared_statements_instances (10.11), and
// MySQL's digests leave them out too (they are read from its prepared
// statement instances instead). When most of the executions the server
// counted (Com_stmt_execute) are missing from what was read, naming the
// top statements from the rest would mislead.
func (m *mysql) missedStatements(counters map[string]float64, first, last stmtSnapshot) string {
	exec := counters["status.Com_stmt_execute"]
	var prepared, other float64
	for _, st := range capture.Diff(capture.Snapshot{Stmts: first}, capture.Snapshot{Stmts: last}).Stmts {
		if strings.HasPrefix(st.ID, stmtstats.PreparedID) {
			prepared += float64(st.Calls)
		} else {
			other += float64(st.Calls)
		}
	}
	if exec > 0 && prepared < exec/2 && exec > other/4 {
		return fmt.Sprintf("%s's statement figures counted %.0f of the %.0f prepared statement executions in the window (its digests leave out statements executed by the binary protocol), so the statements taking the most time are not named", m.product, prepared, exec)
	}
	return ""
}
