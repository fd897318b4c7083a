package capturedb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
)

// mysql reads performance_schema's events_statements_summary_by_digest
// and the Com_commit/Com_rollback counters (MySQL 8, MariaDB 10.5 and
// later).
type mysql struct {
	c    dialect.Conn
	db   string
	info dialect.ConnInfo
	user string
	// executes counts capture's own prepared statements' executions, left
	// out of Snapshot.Unseen.
	executes int64
}

func (m *mysql) mariadb() bool { return m.info.ServerProduct == "MariaDB" }

func (m *mysql) check(ctx context.Context) error {
	var on int64
	if err := one(ctx, m.c, "SELECT @@performance_schema, CURRENT_USER()", &on, &m.user); err != nil {
		return err
	}
	if on == 0 {
		return fmt.Errorf("%w: performance_schema is off: set performance_schema=ON under [mysqld] in the server's configuration and restart the server", ErrNotReady)
	}
	var enabled string
	err := one(ctx, m.c, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'statements_digest'", &enabled)
	if err != nil {
		if denied(err) {
			return fmt.Errorf("%w: user %s may not read performance_schema: run GRANT SELECT ON performance_schema.* TO %s; as an administrator", ErrNotReady, m.user, grantee(m.user))
		}
		return err
	}
	if enabled != "YES" {
		return fmt.Errorf("%w: performance_schema does not summarize statements by digest: run UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'statements_digest'; (or start the server with performance-schema-consumer-statements-digest=ON)", ErrNotReady)
	}
	var n int64
	if err := one(ctx, m.c, "SELECT COUNT(*) FROM performance_schema.events_statements_summary_by_digest WHERE 1 = 0", &n); err != nil {
		if denied(err) {
			return fmt.Errorf("%w: user %s may not read performance_schema.events_statements_summary_by_digest: run GRANT SELECT ON performance_schema.* TO %s; as an administrator", ErrNotReady, m.user, grantee(m.user))
		}
		return err
	}
	return nil
}

// denied reports MySQL's "command denied" errors (1142, 1143, 1044).
func denied(err error) bool {
	s := err.Error()
	return strings.Contains(s, "1142") || strings.Contains(s, "1143") || strings.Contains(s, "1044") || strings.Contains(s, "command denied")
}

// grantee writes user@host as GRANT takes it: 'user'@'host'.
func grantee(u string) string {
	name, host, _ := strings.Cut(u, "@")
	return "'" + strings.ReplaceAll(name, "'", "''") + "'@'" + strings.ReplaceAll(host, "'", "''") + "'"
}

func (m *mysql) snapshot(ctx context.Context) (capture.Snapshot, error) {
	s := capture.Snapshot{}
	m.executes += 2 // the two queries below
	err := query(ctx, m.c, "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.global_status"+
		" WHERE VARIABLE_NAME IN ('COM_COMMIT', 'COM_ROLLBACK', 'PERFORMANCE_SCHEMA_DIGEST_LOST')",
		func(r dialect.Rows) error {
			var k, text string
			if err := r.Scan(&k, &text); err != nil {
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
		return s, fmt.Errorf("reading the status counters: %w", err)
	}
	s.At = time.Now()
	s.Stmts, err = readStmts(ctx, m.c, "SELECT CONCAT(SCHEMA_NAME, ':', DIGEST), DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT / 1000000000, SUM_ROWS_SENT + SUM_ROWS_AFFECTED"+
		" FROM performance_schema.events_statements_summary_by_digest WHERE SCHEMA_NAME = DATABASE() AND DIGEST IS NOT NULL")
	if err != nil {
		return s, fmt.Errorf("reading performance_schema.events_statements_summary_by_digest: %w", err)
	}
	if m.mariadb() {
		// MariaDB counts a prepared statement's executions (the binary
		// protocol) under statement/com/Execute only, never by digest.
		err := one(ctx, m.c, "SELECT COUNT_STAR FROM performance_schema.events_statements_summary_global_by_event_name WHERE EVENT_NAME = 'statement/com/Execute'", &s.Unseen)
		if err != nil && err != dialect.ErrNoRows {
			return s, err
		}
		s.Unseen = max(s.Unseen-m.executes, 0)
	}
	return s, nil
}

func (m *mysql) catalog(ctx context.Context) (*capture.Catalog, error) {
	return readCatalog(ctx, m.c, "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS"+
		" WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION",
		"SELECT tc.TABLE_NAME, tc.CONSTRAINT_NAME, k.COLUMN_NAME, tc.CONSTRAINT_TYPE"+
			" FROM information_schema.TABLE_CONSTRAINTS tc JOIN information_schema.KEY_COLUMN_USAGE k"+
			" ON k.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = tc.CONSTRAINT_NAME AND k.TABLE_NAME = tc.TABLE_NAME"+
			" WHERE tc.CONSTRAINT_TYPE IN ('PRIMARY KEY', 'UNIQUE') AND tc.TABLE_SCHEMA = DATABASE()"+
			" ORDER BY tc.TABLE_NAME, tc.CONSTRAINT_NAME, k.ORDINAL_POSITION")
}

func (m *mysql) source() capture.Source {
	return capture.Source{Dialect: "mysql", Server: m.info.ServerProduct + " " + m.info.ServerVersion, Database: m.db,
		TxCounter: "The server counts explicit transactions only (Com_commit + Com_rollback); a statement run in autocommit is a transaction it does not count."}
}

func (m *mysql) serverTx(capture.Delta) int64 { return -1 }
