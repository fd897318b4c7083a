package capturedb

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/stmtstats"
)

// maxLogRead bounds what capture reads of a statement log in one window.
const maxLogRead = 8 << 30

// logTail is a statement log noted before the window: what is appended
// to it until the window ends is the window's. PostgreSQL's logging
// collector rotates its file (log_rotation_size, 10 MB by default;
// log_rotation_age) into a new one of the same folder: for a csvlog, every
// .csv file of the folder is followed, each from where it ended when the
// window began.
type logTail struct {
	path string // as given: a file, or (csvlog) the log folder
	dir  string // csvlog: the folder followed; "" for one file
	from map[string]int64
}

// openLog notes where the window starts in the server's statement log at
// path: a regular file, or with csv a folder of csvlog files (a file
// follows its folder's other .csv files too, rotation's).
func openLog(path string, csv bool) (*logTail, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: --log: %v", ErrNotReady, err)
	}
	l := &logTail{path: path, from: map[string]int64{}}
	switch {
	case fi.IsDir() && csv:
		l.dir = path
	case fi.Mode().IsRegular() && csv:
		l.dir = filepath.Dir(path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: --log: %s is not a regular file", ErrNotReady, path)
	}
	files, err := l.files()
	if err != nil {
		return nil, fmt.Errorf("%w: --log: %v", ErrNotReady, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: --log: %s holds no .csv file (the server's log_directory with log_destination = 'csvlog')", ErrNotReady, path)
	}
	for _, f := range files {
		l.from[f.name] = f.size
		// Opened now: a file the user may not read is refused before the window.
		h, err := os.Open(f.name)
		if err != nil {
			return nil, fmt.Errorf("%w: --log: %v", ErrNotReady, err)
		}
		h.Close()
	}
	return l, nil
}

// noteLog checks that the server logs every statement where capture reads
// it, and notes where the window starts in the log at path; nil for no
// --log.
func noteLog(ctx context.Context, r *stmtstats.Reader, path string, mysql bool) (*logTail, error) {
	if path == "" {
		return nil, nil
	}
	check := checkLogging
	if mysql {
		check = checkMySQLLogging
	}
	if err := check(ctx, r); err != nil {
		return nil, err
	}
	return openLog(path, !mysql)
}

// trace reads the window's part of the log (nil l: no log, no trace);
// after a signal (early) for logGrace at most.
func (l *logTail) trace(d capture.Delta, db string, mysql bool, cat *capture.Catalog, early bool) (*capture.Trace, error) {
	if l == nil {
		return nil, nil
	}
	var until time.Time
	if early { // a signal: the log gets logGrace, not as long as it takes
		until = time.Now().Add(logGrace)
	}
	return l.read(d, db, mysql, cat, until)
}

type logFile struct {
	name string
	size int64
	mod  time.Time
}

// files are the log's files, oldest first: the one file given, or the
// folder's .csv files.
func (l *logTail) files() ([]logFile, error) {
	if l.dir == "" {
		fi, err := os.Stat(l.path)
		if err != nil {
			return nil, err
		}
		return []logFile{{l.path, fi.Size(), fi.ModTime()}}, nil
	}
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, err
	}
	var out []logFile
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".csv") || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // rotated away meanwhile
		}
		out = append(out, logFile{filepath.Join(l.dir, e.Name()), fi.Size(), fi.ModTime()})
	}
	slices.SortFunc(out, func(a, b logFile) int { return cmp.Or(a.mod.Compare(b.mod), cmp.Compare(a.name, b.name)) })
	return out, nil
}

// read reads what the window appended into a trace of d's statements
// (mysql: a slow query log, its digests' lists expanded by cat; else
// PostgreSQL's csvlog): of each file, what follows where it ended when the
// window began (all of a file that is new, or that shrank: rotated,
// truncated), oldest file first. After a signal (until not zero) it reads
// until then at most.
func (l *logTail) read(d capture.Delta, db string, mysql bool, cat *capture.Catalog, until time.Time) (*capture.Trace, error) {
	files, err := l.files()
	if err != nil {
		return nil, fmt.Errorf("--log: %w", err)
	}
	var parts []io.Reader
	var names []string
	for _, f := range files {
		from, ok := l.from[f.name]
		if ok && from == f.size {
			continue // nothing new
		}
		if !ok || f.size < from {
			from = 0
		}
		h, err := os.Open(f.name)
		if err != nil {
			return nil, fmt.Errorf("--log: %w", err)
		}
		defer h.Close()
		to := f.size
		if !mysql { // the server may be writing a line at the end: up to the last whole record
			if to, err = wholeRecords(h, from, f.size); err != nil {
				return nil, fmt.Errorf("--log: %w", err)
			}
		}
		parts = append(parts, io.NewSectionReader(h, from, to-from))
		names = append(names, filepath.Base(f.name))
	}
	r := &deadlineReader{r: io.LimitReader(io.MultiReader(parts...), maxLogRead), until: until}
	what := l.path
	if len(names) > 1 {
		what = fmt.Sprintf("%s: %d files, %s to %s", l.path, len(names), names[0], names[len(names)-1])
	}
	var tr *capture.Trace
	if mysql {
		tr = capture.NewMySQLTrace("slow query log "+what, d, cat)
		err = tr.ReadMySQLSlowLog(r, db)
	} else {
		tr = capture.NewTrace("csvlog "+what, d)
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

// wholeRecords is where the last whole CSV record of r[from:to] ends: a
// newline outside quotes ('"', a quote doubled inside a field toggling
// twice). A record the server was still writing when the window ended is
// left out, not read as a broken one.
func wholeRecords(r io.ReaderAt, from, to int64) (int64, error) {
	end := from
	quoted := false
	buf := make([]byte, 256<<10)
	for at := from; at < to; {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), to-at)], at)
		for i, c := range buf[:n] {
			switch {
			case c == '"':
				quoted = !quoted
			case c == '\n' && !quoted:
				end = at + int64(i) + 1
			}
		}
		at += int64(n)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	return end, nil
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
