package stmtstats

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
)

// mysql reads performance_schema's events_statements_summary_by_digest
// and the Com_commit/Com_rollback counters (MySQL 8, MariaDB 10.5 and
// later).
type mysql struct {
	mariadb bool
	user    string // CURRENT_USER(): user@host
}

// digestsSQL reads the digests of the connection's schema (time in
// picoseconds, made milliseconds), leaving out the statements that read
// performance_schema or information_schema (the readers', rightsize's
// among them) and SHOW.
const digestsSQL = "SELECT COALESCE(DIGEST, ''), COALESCE(DIGEST_TEXT, ''), COUNT_STAR, SUM_TIMER_WAIT / 1e9, SUM_ROWS_SENT + SUM_ROWS_AFFECTED" +
	" FROM performance_schema.events_statements_summary_by_digest" +
	" WHERE SCHEMA_NAME = DATABASE() AND DIGEST_TEXT NOT LIKE '%performance\\_schema%'" +
	" AND DIGEST_TEXT NOT LIKE '%information\\_schema%' AND DIGEST_TEXT NOT LIKE 'SHOW %'"

// preparedSQL adds the prepared statements of the schema's other threads,
// added up by their text (Options.Prepared).
const preparedSQL = " UNION ALL SELECT CONCAT('" + PreparedID + "', p.SQL_TEXT), p.SQL_TEXT, CAST(SUM(p.COUNT_EXECUTE) AS SIGNED), SUM(p.SUM_TIMER_EXECUTE) / 1e9," +
	" CAST(SUM(p.SUM_ROWS_SENT + p.SUM_ROWS_AFFECTED) AS SIGNED)" +
	" FROM performance_schema.prepared_statements_instances p" +
	" JOIN performance_schema.threads t ON t.THREAD_ID = p.OWNER_THREAD_ID" +
	" WHERE t.PROCESSLIST_DB = DATABASE() AND t.PROCESSLIST_ID <> CONNECTION_ID() GROUP BY p.SQL_TEXT"

func (m *mysql) open(ctx context.Context, r *Reader) (string, error) {
	var on int64
	if err := r.one(ctx, "SELECT @@performance_schema, CURRENT_USER()", &on, &m.user); err != nil {
		return "", err
	}
	if on == 0 {
		return "", &NotReady{Kind: Absent, Reason: "performance_schema is off: set performance_schema=ON under [mysqld] in the server's configuration and restart the server"}
	}
	var enabled string
	if err := r.one(ctx, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'statements_digest'", &enabled); err != nil {
		return "", m.denied(err, "performance_schema")
	}
	if enabled != "YES" {
		return "", &NotReady{Kind: Absent, Reason: "performance_schema does not summarize statements by digest: run UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'statements_digest'; (or start the server with performance-schema-consumer-statements-digest=ON)"}
	}
	if r.o.Prepared {
		return digestsSQL + preparedSQL, nil
	}
	return digestsSQL, nil
}

func (m *mysql) failed(err error) error {
	return m.denied(err, "performance_schema.events_statements_summary_by_digest")
}

// denied makes MySQL's "command denied" errors (1142, 1143, 1044) on what
// a NotReady that gives the GRANT; other errors are returned as they are.
func (m *mysql) denied(err error, what string) error {
	s := err.Error()
	if !strings.Contains(s, "1142") && !strings.Contains(s, "1143") && !strings.Contains(s, "1044") && !strings.Contains(s, "command denied") {
		return err
	}
	name, host, _ := strings.Cut(m.user, "@")
	return &NotReady{Kind: Denied, Err: err,
		Reason: fmt.Sprintf("user %s may not read %s: run GRANT SELECT ON performance_schema.* TO %s; as an administrator", m.user, what, Account(name, host))}
}

func (m *mysql) view() string { return "performance_schema.events_statements_summary_by_digest" }

func (m *mysql) counters(ctx context.Context, r *Reader, s *capture.Snapshot) error {
	err := r.Query(ctx, "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.global_status"+
		" WHERE VARIABLE_NAME IN ('COM_COMMIT', 'COM_ROLLBACK', 'PERFORMANCE_SCHEMA_DIGEST_LOST')",
		func(rows dialect.Rows) error {
			var k, text string
			if err := rows.Scan(&k, &text); err != nil {
				return err
			}
			v, _ := strconv.ParseInt(text, 10, 64)
			switch strings.ToUpper(k) {
			case "COM_COMMIT":
				s.Commits = v
			case "COM_ROLLBACK":
				s.Rollbacks = v
			default:
				s.Evicted = v
			}
			return nil
		})
	if err != nil {
		return fmt.Errorf("reading the status counters: %w", err)
	}
	return nil
}

// after: MariaDB counts a prepared statement's executions (the binary
// protocol) under statement/com/Execute only, never by digest; the
// reader's own are left out.
func (m *mysql) after(ctx context.Context, r *Reader, s *capture.Snapshot) error {
	if !m.mariadb {
		return nil
	}
	err := r.one(ctx, "SELECT COUNT_STAR FROM performance_schema.events_statements_summary_global_by_event_name WHERE EVENT_NAME = 'statement/com/Execute'", &s.Unseen)
	if err != nil && err != dialect.ErrNoRows {
		return err
	}
	s.Unseen = max(s.Unseen-r.executes, 0)
	return nil
}

// Account writes a MySQL account as GRANT takes it: 'user'@'host'.
func Account(user, host string) string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	return q(user) + "@" + q(host)
}
