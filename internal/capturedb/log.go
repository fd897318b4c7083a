package capturedb

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/stmtstats"
)

// maxLogRead bounds what capture reads of a statement log in one window.
const maxLogRead = 8 << 30

// logTail is a statement log opened before the window: what is appended
// to it until the window ends is the window's.
type logTail struct {
	path string
	f    *os.File
	from int64
}

// openLog opens the server's statement log at path, a regular file, and
// notes where the window starts in it.
func openLog(path string) (*logTail, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: --log: %v", ErrNotReady, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: --log: %v", ErrNotReady, err)
	}
	return &logTail{path: path, f: f, from: fi.Size()}, nil
}

// read reads what the window appended into a trace of d's statements
// (mysql: a slow query log, its digests' lists expanded by cat; else
// PostgreSQL's csvlog). A log that shrank meanwhile (rotated, truncated) is
// read from its start.
func (l *logTail) read(d capture.Delta, db string, mysql bool, cat *capture.Catalog, until time.Time) (*capture.Trace, error) {
	defer l.f.Close()
	fi, err := os.Stat(l.path)
	if err != nil {
		return nil, fmt.Errorf("--log: %w", err)
	}
	f := l.f
	from := l.from
	if !os.SameFile(fi, mustStat(l.f)) || fi.Size() < l.from {
		if f, err = os.Open(l.path); err != nil {
			return nil, fmt.Errorf("--log: %w", err)
		}
		defer f.Close()
		from = 0
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, fmt.Errorf("--log: %w", err)
	}
	var tr *capture.Trace
	r := &deadlineReader{r: io.LimitReader(f, maxLogRead), until: until}
	if mysql {
		tr = capture.NewMySQLTrace("slow query log "+l.path, d, cat)
		err = tr.ReadMySQLSlowLog(r, db)
	} else {
		tr = capture.NewTrace("csvlog "+l.path, d)
		err = tr.ReadPostgresCSV(r, db)
	}
	if r.cut {
		tr.From += fmt.Sprintf(", its first %d MiB only: the window was ended by a signal and the log read for %v", r.n>>20, logGrace)
	}
	if err != nil {
		return nil, fmt.Errorf("--log %s: %w", l.path, err)
	}
	return tr, nil
}

// logGrace is how long the log is read after a signal ended the window.
const logGrace = 2 * time.Second

// deadlineReader ends its reader at until (zero: never), as if the file
// ended there.
type deadlineReader struct {
	r     io.Reader
	until time.Time
	n     int64
	cut   bool
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if !d.until.IsZero() && time.Now().After(d.until) {
		d.cut = true
		return 0, io.EOF
	}
	n, err := d.r.Read(p)
	d.n += int64(n)
	return n, err
}

func mustStat(f *os.File) os.FileInfo {
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	return fi
}

// checkMySQLLogging refuses a MySQL or MariaDB server whose settings
// would not write each statement to its slow query log's file.
func checkMySQLLogging(ctx context.Context, r *stmtstats.Reader) error {
	var on, output string
	var long float64
	err := r.Query(ctx, "SELECT @@slow_query_log, @@long_query_time, @@log_output", func(rows dialect.Rows) error {
		return rows.Scan(&on, &long, &output)
	})
	if err != nil {
		return err
	}
	switch {
	case on != "1" && !strings.EqualFold(on, "ON"):
		return fmt.Errorf("%w: --log: the server's slow query log is off: SET GLOBAL slow_query_log = ON, long_query_time = 0; (and log_output = 'FILE')", ErrNotReady)
	case long != 0:
		return fmt.Errorf("%w: --log: the server's long_query_time is %g: capture needs every statement in the slow query log (SET GLOBAL long_query_time = 0; sessions opened before keep their own)", ErrNotReady, long)
	case !strings.Contains(strings.ToUpper(output), "FILE"):
		return fmt.Errorf("%w: --log: the server's log_output is %s: capture reads the slow query log's file (SET GLOBAL log_output = 'FILE')", ErrNotReady, output)
	}
	return nil
}

// checkLogging refuses a PostgreSQL server whose settings would not log
// each statement's duration to csvlog.
func checkLogging(ctx context.Context, r *stmtstats.Reader) error {
	var dest, minDur string
	err := r.Query(ctx, "SELECT current_setting('log_destination'), current_setting('log_min_duration_statement')", func(rows dialect.Rows) error {
		return rows.Scan(&dest, &minDur)
	})
	if err != nil {
		return err
	}
	switch {
	case !strings.Contains(dest, "csvlog"):
		return fmt.Errorf("%w: --log: the server's log_destination is %q: capture reads csvlog (log_destination = 'csvlog', logging_collector = on: a restart)", ErrNotReady, dest)
	case minDur != "0":
		return fmt.Errorf("%w: --log: the server's log_min_duration_statement is %s: capture needs every statement's line (ALTER SYSTEM SET log_min_duration_statement = 0; SELECT pg_reload_conf();)", ErrNotReady, minDur)
	}
	return nil
}
