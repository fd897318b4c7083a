package history

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" database/sql driver

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/result"
)

// Errors that Get, GetSweep, Resolve and Delete wrap.
var (
	ErrNotFound  = errors.New("not in the catalog")
	ErrAmbiguous = errors.New("ambiguous key")
	// ErrBadDSN wraps a catalog location Open cannot use.
	ErrBadDSN = errors.New("invalid history catalog")
)

// Catalog is an open run catalog. It is safe for concurrent use; several
// processes may record into the same catalog at once.
type Catalog struct {
	db   *sql.DB
	pg   bool
	name string // the location, password removed
}

// Open opens the catalog at dsn, creating its schema (and, for SQLite, the
// file and its directory) when missing:
//
//	sqlite:PATH, sqlite://PATH (relative), sqlite:///abs/path
//	postgres://user@host:5432/db?sslmode=..., postgresql://...
//
// For PostgreSQL the database must exist; the connection string is read by
// pgx, which also honours libpq's PG* variables and ~/.pgpass. An empty dsn
// is an error: where the default catalog lives is the command line's
// decision (it reads the environment; this package does not).
func Open(ctx context.Context, dsn string) (*Catalog, error) {
	if err := Validate(dsn); err != nil {
		return nil, err
	}
	c := &Catalog{name: Redact(dsn)}
	var driver, source string
	switch {
	case hasPrefixFold(dsn, "sqlite:"):
		path, err := sqlitePath(dsn)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		c.name = "sqlite:" + path
		// busy_timeout: writers of other processes are waited for;
		// _txlock=immediate: a transaction takes the write lock at BEGIN, so
		// two read-then-write transactions never deadlock on the upgrade.
		driver, source = "sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	default: // postgres:// or postgresql://, as Validate checked
		c.pg = true
		driver, source = "pgx", dsn
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, fmt.Errorf("history: open %s: %s", c.name, scrub(err, dsn))
	}
	c.db = db
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("history: open %s: %s", c.name, scrub(err, dsn))
	}
	if err := c.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("history: %s: schema: %s", c.name, scrub(err, dsn))
	}
	return c, nil
}

// Validate checks the form of a catalog location as Open does, without
// opening anything, so that a command can refuse a malformed one before it
// starts: an empty location, another scheme, a sqlite: path that names no
// file, or a postgres:// URL pgx cannot parse (a bad port, a bad escape).
// Errors wrap ErrBadDSN and never contain a password.
func Validate(dsn string) error {
	switch {
	case dsn == "":
		return fmt.Errorf("%w: no location given", ErrBadDSN)
	case hasPrefixFold(dsn, "sqlite:"):
		_, err := sqlitePath(dsn)
		return err
	case hasPrefixFold(dsn, "postgres://"), hasPrefixFold(dsn, "postgresql://"):
		if _, err := pgconn.ParseConfig(dsn); err != nil {
			return fmt.Errorf("%w: %s: %s", ErrBadDSN, Redact(dsn), scrub(err, dsn))
		}
		return nil
	}
	return fmt.Errorf("%w: %s: want sqlite:PATH or postgres://user@host/db", ErrBadDSN, Redact(dsn))
}

// Close closes the catalog's connections.
func (c *Catalog) Close() error { return c.db.Close() }

// String is the catalog's location with any password removed.
func (c *Catalog) String() string { return c.name }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// sqlitePath takes the path out of a sqlite: location (the forms --target
// accepts).
func sqlitePath(dsn string) (string, error) {
	rest := dsn[len("sqlite:"):]
	switch {
	case strings.HasPrefix(rest, "///"):
		rest = rest[2:]
	case strings.HasPrefix(rest, "//"):
		rest = rest[2:]
	}
	if p, err := url.PathUnescape(rest); err == nil {
		rest = p
	}
	if rest == "" || rest == ":memory:" || strings.ContainsAny(rest, "?#\x00") || strings.HasSuffix(rest, "/") {
		return "", fmt.Errorf("%w: %q: want sqlite:PATH to a file, with no query parameters", ErrBadDSN, dsn)
	}
	p := filepath.Clean(rest)
	if b, cb := filepath.Base(rest), filepath.Base(p); b == "." || b == ".." || cb == "." || cb == ".." || cb == "/" {
		return "", fmt.Errorf("%w: %q names a directory: want sqlite:PATH to a file", ErrBadDSN, dsn)
	}
	return p, nil
}

// Redact returns a catalog location safe to print: the URL's password, and
// password parameters, removed (dialect.Redact, the one implementation).
func Redact(dsn string) string { return dialect.Redact(dsn) }

// scrub returns err's text with the dsn's passwords replaced (see
// dialect.ScrubLocation), for drivers whose errors might quote their
// connection string.
func scrub(err error, dsn string) string { return dialect.ScrubLocation(err.Error(), dsn) }

// q rewrites '?' placeholders to PostgreSQL's $1, $2, ... (the queries here
// hold no '?' in literals).
func (c *Catalog) q(query string) string {
	if !c.pg {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// timeFormat is how SQLite stores times: fixed width, so text order is time order.
const timeFormat = "2006-01-02T15:04:05.000000Z"

// tv is a time as the database takes it, in UTC to the microsecond.
func (c *Catalog) tv(t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if c.pg {
		return t
	}
	return t.Format(timeFormat)
}

// timeScan reads a time column of either database.
type timeScan struct{ t *time.Time }

func (s timeScan) Scan(v any) error {
	switch x := v.(type) {
	case time.Time:
		*s.t = x.UTC()
	case string:
		return s.parse(x)
	case []byte:
		return s.parse(string(x))
	case nil:
		*s.t = time.Time{}
	default:
		return fmt.Errorf("history: time column holds %T", v)
	}
	return nil
}

func (s timeScan) parse(v string) error {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return fmt.Errorf("history: time column: %w", err)
	}
	*s.t = t.UTC()
	return nil
}

// num is a figure as the database takes it: NULL when it is not a number
// (SQLite cannot store NaN).
func num(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// numScan reads a figure, NULL as NaN.
type numScan struct{ f *float64 }

func (s numScan) Scan(v any) error {
	var n sql.NullFloat64
	if err := n.Scan(v); err != nil {
		return err
	}
	*s.f = math.NaN()
	if n.Valid {
		*s.f = n.Float64
	}
	return nil
}

func compress(v any) ([]byte, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	enc := json.NewEncoder(zw)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func decompress(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// Key is a run's catalog key: "<id>-<workload>", and "-<label>" (its
// letters, digits, '-' and '_') when the run has a label.
func Key(r *result.Run) string {
	k := r.ID + "-" + r.Workload
	if l := result.FileSafe(r.Label); l != "" {
		k += "-" + l
	}
	return k
}

// SweepKey is a sweep's catalog key: "<id>-<workload>-sweep".
func SweepKey(sw *result.Sweep) string { return sw.ID + "-" + sw.Workload + "-sweep" }

// Entry is a run's row in the catalog: its headline, without the result.
type Entry struct {
	Key      string
	ID       string
	Workload string
	Label    string
	// Started and Ended are the run's wall clock, UTC, to the microsecond.
	Started, Ended time.Time
	// Targets are the instances' URLs, passwords removed.
	Targets []string
	// Unit is what Throughput counts ("transactions", "ios"), per second.
	Unit       string
	Throughput float64
	// Latencies in milliseconds (NaN when the result had none).
	AvgMs, P50Ms, P95Ms, P99Ms, P999Ms float64
	Errors                             int64
	Partial                            bool
	// SweepID and SweepStep name the sweep the run was a step of ("": none).
	SweepID, SweepStep string
	// Path is the result file's path when the run was recorded ("": none).
	Path     string
	Recorded time.Time
}

// SweepEntry is a sweep's row in the catalog.
type SweepEntry struct {
	Key, ID, Workload, Axis string
	Steps                   int
	Path                    string
	Recorded                time.Time
}

// Kind tells a run from a sweep.
type Kind string

const (
	KindRun   Kind = "run"
	KindSweep Kind = "sweep"
)

// Ref names one entry of the catalog.
type Ref struct {
	Kind Kind
	Key  string
}

// Filter selects runs for List (and sweeps for ListSweeps, by workload
// only). Empty fields match everything; Limit 0 means no limit.
type Filter struct {
	Workload string
	Label    string
	Limit    int
}

const runCols = `run_key, id, workload, label, started, ended, targets, unit, throughput, avg_ms, p50_ms, p95_ms, p99_ms, p999_ms, errors, partial, sweep_id, sweep_step, path, recorded`

func (e *Entry) dest(targets *string) []any {
	return []any{&e.Key, &e.ID, &e.Workload, &e.Label, timeScan{&e.Started}, timeScan{&e.Ended}, targets, &e.Unit,
		numScan{&e.Throughput}, numScan{&e.AvgMs}, numScan{&e.P50Ms}, numScan{&e.P95Ms}, numScan{&e.P99Ms}, numScan{&e.P999Ms},
		&e.Errors, &e.Partial, &e.SweepID, &e.SweepStep, &e.Path, timeScan{&e.Recorded}}
}

const sweepCols = `sweep_key, id, workload, axis, steps, path, recorded`

func (e *SweepEntry) dest() []any {
	return []any{&e.Key, &e.ID, &e.Workload, &e.Axis, &e.Steps, &e.Path, timeScan{&e.Recorded}}
}

// Record adds a run, with the path of its result file ("" for none; the
// caller makes it absolute). A run already in the catalog (the same Key) is
// left as it is: recording again is harmless. A step of a sweep is tied to
// its sweep, whichever of the two is recorded first.
func (c *Catalog) Record(ctx context.Context, r *result.Run, path string) error {
	if r.ID == "" || r.Workload == "" {
		return fmt.Errorf("history: a result without an id or workload cannot be recorded")
	}
	blob, err := compress(r)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	var targets []string
	for _, in := range r.Instances {
		targets = append(targets, in.Target)
	}
	tj, err := json.Marshal(append([]string{}, targets...))
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.fail(err)
	}
	defer tx.Rollback()
	sweepID, step := "", ""
	if s, ok := r.Options["sweep_step"].(string); ok && s != "" {
		sweepID, step = r.ID, s
	} else {
		var b []byte
		err := tx.QueryRowContext(ctx, c.q(`SELECT sweep FROM rightsize_sweeps WHERE id = ? AND workload = ?`), r.ID, r.Workload).Scan(&b)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return c.fail(err)
		default:
			sw, err := decodeSweep(b)
			if err != nil {
				return err
			}
			if s, ok := stepOf(sw, r.Label); ok {
				sweepID, step = sw.ID, s
			}
		}
	}
	l := r.Summary.Latency
	_, err = tx.ExecContext(ctx, c.q(`INSERT INTO rightsize_runs (`+runCols+`, result)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (run_key) DO NOTHING`),
		Key(r), r.ID, r.Workload, r.Label, c.tv(r.Started), c.tv(r.Ended), string(tj), r.Summary.Unit,
		num(r.Summary.Throughput), num(l.AvgMs), num(l.P50Ms), num(l.P95Ms), num(l.P99Ms), num(l.P999Ms),
		r.Summary.Errors, r.Partial, sweepID, step, path, c.tv(time.Now()), blob)
	if err != nil {
		return c.fail(err)
	}
	return c.fail(tx.Commit())
}

// stepOf finds the sweep step a run's label belongs to: the step's label,
// after the user's --label if there was one; "baseline" for the measured 1x
// rate.
func stepOf(sw *result.Sweep, label string) (string, bool) {
	is := func(step string) bool { return label == step || strings.HasSuffix(label, " "+step) }
	for _, st := range sw.Steps {
		if st.Label != "" && is(st.Label) {
			return st.Label, true
		}
	}
	if sw.BaselineRate > 0 && is("baseline") {
		return "baseline", true
	}
	return "", false
}

func decodeSweep(b []byte) (*result.Sweep, error) {
	js, err := decompress(b)
	if err != nil {
		return nil, fmt.Errorf("history: stored sweep: %w", err)
	}
	var sw result.Sweep
	if err := json.Unmarshal(js, &sw); err != nil {
		return nil, fmt.Errorf("history: stored sweep: %w", err)
	}
	return &sw, nil
}

// RecordSweep adds a sweep, with the path of its sweep file, and ties the
// runs of its steps already in the catalog to it. A sweep already in the
// catalog is left as it is.
func (c *Catalog) RecordSweep(ctx context.Context, sw *result.Sweep, path string) error {
	if sw.ID == "" || sw.Workload == "" {
		return fmt.Errorf("history: a sweep without an id or workload cannot be recorded")
	}
	blob, err := compress(sw)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.fail(err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, c.q(`INSERT INTO rightsize_sweeps (`+sweepCols+`, sweep)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (sweep_key) DO NOTHING`),
		SweepKey(sw), sw.ID, sw.Workload, sw.Axis, len(sw.Steps), path, c.tv(time.Now()), blob)
	if err != nil {
		return c.fail(err)
	}
	rows, err := tx.QueryContext(ctx, c.q(`SELECT run_key, label FROM rightsize_runs WHERE id = ? AND workload = ? AND sweep_step = ''`), sw.ID, sw.Workload)
	if err != nil {
		return c.fail(err)
	}
	type tie struct{ key, step string }
	var ties []tie
	for rows.Next() {
		var key, label string
		if err := rows.Scan(&key, &label); err != nil {
			rows.Close()
			return c.fail(err)
		}
		if step, ok := stepOf(sw, label); ok {
			ties = append(ties, tie{key, step})
		}
	}
	if err := rows.Close(); err != nil {
		return c.fail(err)
	}
	if err := rows.Err(); err != nil {
		return c.fail(err)
	}
	for _, t := range ties {
		if _, err := tx.ExecContext(ctx, c.q(`UPDATE rightsize_runs SET sweep_id = ?, sweep_step = ? WHERE run_key = ?`), sw.ID, t.step, t.key); err != nil {
			return c.fail(err)
		}
	}
	return c.fail(tx.Commit())
}

// fail names the catalog in a database error.
func (c *Catalog) fail(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("history %s: %w", c.name, err)
}

// List returns the runs that match f, newest first.
func (c *Catalog) List(ctx context.Context, f Filter) ([]Entry, error) {
	query := `SELECT ` + runCols + ` FROM rightsize_runs WHERE 1 = 1`
	var args []any
	if f.Workload != "" {
		query += ` AND workload = ?`
		args = append(args, f.Workload)
	}
	if f.Label != "" {
		query += ` AND label = ?`
		args = append(args, f.Label)
	}
	query += ` ORDER BY started DESC, run_key DESC`
	return collect(ctx, c, query, args, f.Limit, func(rows *sql.Rows) (Entry, error) {
		var e Entry
		var tj string
		if err := rows.Scan(e.dest(&tj)...); err != nil {
			return e, err
		}
		if err := json.Unmarshal([]byte(tj), &e.Targets); err != nil {
			return e, fmt.Errorf("targets of %s: %w", e.Key, err)
		}
		return e, nil
	})
}

// collect runs query (with at most limit rows when limit > 0) and scans
// each row into a value.
func collect[T any](ctx context.Context, c *Catalog, query string, args []any, limit int, scan func(*sql.Rows) (T, error)) ([]T, error) {
	if limit > 0 {
		query += ` LIMIT ` + strconv.Itoa(limit)
	}
	rows, err := c.db.QueryContext(ctx, c.q(query), args...)
	if err != nil {
		return nil, c.fail(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, c.fail(err)
		}
		out = append(out, v)
	}
	return out, c.fail(rows.Err())
}

// ListSweeps returns the sweeps of f.Workload (all when empty), newest
// first (by id, which starts with the sweep's UTC start time).
func (c *Catalog) ListSweeps(ctx context.Context, f Filter) ([]SweepEntry, error) {
	query := `SELECT ` + sweepCols + ` FROM rightsize_sweeps`
	var args []any
	if f.Workload != "" {
		query += ` WHERE workload = ?`
		args = append(args, f.Workload)
	}
	query += ` ORDER BY id DESC, sweep_key DESC`
	return collect(ctx, c, query, args, f.Limit, func(rows *sql.Rows) (SweepEntry, error) {
		var e SweepEntry
		err := rows.Scan(e.dest()...)
		return e, err
	})
}

// maxShown bounds the keys an ambiguity error lists.
const maxShown = 10

// matches returns the keys of a table equal to key, or else starting with
// it (up to maxShown+1 of them).
func (c *Catalog) matches(ctx context.Context, table, col, key string) ([]string, error) {
	var exact string
	err := c.db.QueryRowContext(ctx, c.q(`SELECT `+col+` FROM `+table+` WHERE `+col+` = ?`), key).Scan(&exact)
	switch {
	case err == nil:
		return []string{exact}, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, c.fail(err)
	}
	rows, err := c.db.QueryContext(ctx, c.q(`SELECT `+col+` FROM `+table+` WHERE substr(`+col+`, 1, ?) = ? ORDER BY `+col+` LIMIT ?`),
		len([]rune(key)), key, maxShown+1)
	if err != nil {
		return nil, c.fail(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, c.fail(err)
		}
		out = append(out, k)
	}
	return out, c.fail(rows.Err())
}

// resolve turns a key or unique prefix into one entry of the given kinds.
func (c *Catalog) resolve(ctx context.Context, key string, kinds ...Kind) (Ref, error) {
	if key == "" {
		return Ref{}, fmt.Errorf("%w: an empty key", ErrNotFound)
	}
	var found []Ref
	for _, k := range kinds {
		table, col := "rightsize_runs", "run_key"
		if k == KindSweep {
			table, col = "rightsize_sweeps", "sweep_key"
		}
		keys, err := c.matches(ctx, table, col, key)
		if err != nil {
			return Ref{}, err
		}
		for _, m := range keys {
			if m == key {
				return Ref{k, m}, nil // an exact key wins over longer ones it prefixes
			}
			found = append(found, Ref{k, m})
		}
	}
	switch len(found) {
	case 0:
		return Ref{}, fmt.Errorf("%w: no key starts with %q", ErrNotFound, key)
	case 1:
		return found[0], nil
	}
	var names []string
	for i, r := range found {
		if i == maxShown {
			names = append(names, "...")
			break
		}
		names = append(names, r.Key)
	}
	return Ref{}, fmt.Errorf("%w: %q starts %d or more keys: %s", ErrAmbiguous, key, len(found), strings.Join(names, ", "))
}

// Resolve finds the run or sweep a key, or a unique prefix of one, names. A
// key that is exactly an entry's names it even when it also prefixes others.
func (c *Catalog) Resolve(ctx context.Context, key string) (Ref, error) {
	return c.resolve(ctx, key, KindRun, KindSweep)
}

// Has reports whether a run or sweep of exactly this key is in the catalog.
func (c *Catalog) Has(ctx context.Context, key string) (bool, error) {
	for _, tc := range [][2]string{{"rightsize_runs", "run_key"}, {"rightsize_sweeps", "sweep_key"}} {
		var k string
		err := c.db.QueryRowContext(ctx, c.q(`SELECT `+tc[1]+` FROM `+tc[0]+` WHERE `+tc[1]+` = ?`), key).Scan(&k)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, sql.ErrNoRows):
			return false, c.fail(err)
		}
	}
	return false, nil
}

// Get returns a run (key or unique prefix) with its catalog entry.
func (c *Catalog) Get(ctx context.Context, key string) (*result.Run, Entry, error) {
	ref, err := c.resolve(ctx, key, KindRun)
	if err != nil {
		return nil, Entry{}, err
	}
	var e Entry
	var tj string
	var blob []byte
	err = c.db.QueryRowContext(ctx, c.q(`SELECT `+runCols+`, result FROM rightsize_runs WHERE run_key = ?`), ref.Key).
		Scan(append(e.dest(&tj), &blob)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, Entry{}, fmt.Errorf("%w: %s (deleted meanwhile)", ErrNotFound, ref.Key)
	}
	if err != nil {
		return nil, Entry{}, c.fail(err)
	}
	if err := json.Unmarshal([]byte(tj), &e.Targets); err != nil {
		return nil, Entry{}, c.fail(fmt.Errorf("targets of %s: %w", e.Key, err))
	}
	js, err := decompress(blob)
	if err != nil {
		return nil, Entry{}, fmt.Errorf("history: stored result %s: %w", e.Key, err)
	}
	r, err := result.Decode(bytes.NewReader(js))
	if err != nil {
		return nil, Entry{}, fmt.Errorf("history: stored result %s: %w", e.Key, err)
	}
	return r, e, nil
}

// GetSweep returns a sweep (key or unique prefix) with its catalog entry.
func (c *Catalog) GetSweep(ctx context.Context, key string) (*result.Sweep, SweepEntry, error) {
	ref, err := c.resolve(ctx, key, KindSweep)
	if err != nil {
		return nil, SweepEntry{}, err
	}
	var e SweepEntry
	var blob []byte
	err = c.db.QueryRowContext(ctx, c.q(`SELECT `+sweepCols+`, sweep FROM rightsize_sweeps WHERE sweep_key = ?`), ref.Key).
		Scan(append(e.dest(), &blob)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, SweepEntry{}, fmt.Errorf("%w: %s (deleted meanwhile)", ErrNotFound, ref.Key)
	}
	if err != nil {
		return nil, SweepEntry{}, c.fail(err)
	}
	sw, err := decodeSweep(blob)
	if err != nil {
		return nil, SweepEntry{}, err
	}
	return sw, e, nil
}

// Delete removes the run or sweep a key (or unique prefix) names. Deleting a
// sweep keeps its steps' runs.
func (c *Catalog) Delete(ctx context.Context, key string) error {
	ref, err := c.Resolve(ctx, key)
	if err != nil {
		return err
	}
	query := `DELETE FROM rightsize_runs WHERE run_key = ?`
	if ref.Kind == KindSweep {
		query = `DELETE FROM rightsize_sweeps WHERE sweep_key = ?`
	}
	n, err := c.db.ExecContext(ctx, c.q(query), ref.Key)
	if err != nil {
		return c.fail(err)
	}
	if k, err := n.RowsAffected(); err == nil && k == 0 {
		return fmt.Errorf("%w: %s (deleted meanwhile)", ErrNotFound, ref.Key)
	}
	return nil
}
