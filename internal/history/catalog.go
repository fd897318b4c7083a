package history

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rightsize/rightsize/internal/datahome"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/shellword"
)

// Errors that Get, GetSweep, Resolve and Delete wrap.
var (
	ErrNotFound  = errors.New("not in the catalog")
	ErrAmbiguous = errors.New("ambiguous key")
	// ErrBadDSN wraps a catalog location Open cannot use.
	ErrBadDSN = errors.New("invalid history catalog")
)

// errClosed is returned by a Catalog's methods after Close.
var errClosed = errors.New("history: the catalog is closed")

// Catalog is an open run catalog: one connection, through the dialect of
// its location. It is safe for concurrent use (its methods take turns on
// the connection); several processes may record into the same catalog at
// once.
type Catalog struct {
	store dialect.Store
	name  string // the location, password removed

	mu   sync.Mutex   // held by each method while it uses conn
	conn dialect.Conn // nil once closed
}

// Open opens the catalog at dsn, creating its schema (and, for SQLite, the
// file) when missing; a SQLite file's folder must exist (see Validate),
// except the default catalog's (datahome.HistoryFile), which is created:
//
//	sqlite:PATH, sqlite://PATH (relative), sqlite:///abs/path
//	postgres://user@host:5432/db?sslmode=..., postgresql://...
//
// The location is a target of a dialect that is a dialect.Store, parsed by
// that dialect; getenv supplies the environment it reads (for PostgreSQL,
// libpq's PG* variables and ~/.pgpass through HOME; nil: none). For
// PostgreSQL the database must exist. An empty dsn is an error: where the
// default catalog lives is the command line's decision (it reads the
// environment; this package does not).
func Open(ctx context.Context, dsn string, getenv func(string) string) (*Catalog, error) {
	t, store, err := parse(dsn, getenv)
	if err != nil {
		return nil, err
	}
	c := &Catalog{store: store, name: t.String()}
	conn, err := store.ConnectStore(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("history: open %s: %s", c.name, dialect.ScrubLocation(err.Error(), dsn))
	}
	c.conn = conn
	if err := c.migrate(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("history: %s: schema: %s", c.name, dialect.ScrubLocation(err.Error(), dsn))
	}
	return c, nil
}

// Validate checks a catalog location as Open does, without opening
// anything, so that a command can refuse a bad one before it starts: an
// empty location, a scheme of no database that can hold a catalog, a
// location its dialect refuses (a sqlite: path that names no file, a
// postgres:// URL with a bad port or a bad escape), or a SQLite file in a
// folder that does not exist, unless it is the default catalog
// (datahome.HistoryFile of getenv), whose folder Open creates: as with
// sqlite3, k6's --out or any shell redirection, a mistyped path is refused,
// not made into a new tree of folders. getenv is Open's. Errors wrap
// ErrBadDSN and never contain a password.
func Validate(dsn string, getenv func(string) string) error {
	_, _, err := parse(dsn, getenv)
	return err
}

// forms is what a refused location is told to be.
const forms = "want sqlite:PATH or postgres://user@host/db"

// parse finds the dialect of dsn, which must be a dialect.Store, and parses
// dsn with it.
func parse(dsn string, getenv func(string) string) (*dialect.Location, dialect.Store, error) {
	if dsn == "" {
		return nil, nil, fmt.Errorf("%w: no location given", ErrBadDSN)
	}
	d, _ := all.ForScheme(dsn)
	store, ok := d.(dialect.Store)
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s: %s", ErrBadDSN, dialect.Redact(dsn), forms)
	}
	t, err := d.ParseTarget(dsn, getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrBadDSN, dialect.Redact(dsn), err)
	}
	if err := checkFolder(t, getenv); err != nil {
		return nil, nil, err
	}
	return t, store, nil
}

// checkFolder refuses a SQLite catalog whose folder does not exist, unless
// it is the default catalog's (see Validate).
func checkFolder(t *dialect.Location, getenv func(string) string) error {
	if t.Dialect != "sqlite" {
		return nil
	}
	dir := filepath.Dir(t.Database)
	if _, err := os.Stat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // there, or not ours to judge: opening it will say
	}
	if def := datahome.HistoryFile(getenv); def != "" && sameAbs(def, t.Database) {
		return nil
	}
	return fmt.Errorf("%w: %s: the folder %s of the history catalog does not exist: create it (mkdir -p %s), or name a catalog in a folder that exists (only the default catalog's folder is made for it)",
		ErrBadDSN, result.Printable(t.Redacted), result.Printable(dir), shellword.Quote(dir))
}

// sameAbs reports whether two paths name one file once made absolute.
func sameAbs(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// Close closes the catalog's connection. Closing again does nothing.
func (c *Catalog) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn = nil
	return err
}

// String is the catalog's location with any password removed, as its
// dialect prints it.
func (c *Catalog) String() string { return c.name }

// Redact returns a catalog location safe to print: the URL's password, and
// password parameters, removed (dialect.Redact, the one implementation).
func Redact(dsn string) string { return dialect.Redact(dsn) }

// do runs fn on the catalog's connection, which it has to itself meanwhile.
func (c *Catalog) do(fn func(conn dialect.Conn) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return errClosed
	}
	return fn(c.conn)
}

// tx runs fn in a transaction that writes (the caller holds mu): committed
// when fn returns nil, rolled back otherwise.
func (c *Catalog) tx(ctx context.Context, fn func() error) error {
	var err error
	if wb, ok := c.conn.(dialect.WriteBeginner); ok {
		err = wb.BeginWrite(ctx)
	} else {
		err = c.conn.Begin(ctx)
	}
	if err != nil {
		return err
	}
	if err = fn(); err == nil {
		err = c.conn.Commit(ctx)
	}
	if err != nil {
		_ = c.conn.Rollback(context.WithoutCancel(ctx))
	}
	return err
}

// queryAll runs query on conn and scans each row into a value.
func queryAll[T any](ctx context.Context, conn dialect.Conn, query string, args []any, scan func(dialect.Rows) (T, error)) ([]T, error) {
	st, err := conn.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rows, err := st.Query(ctx, args...)
	if err != nil {
		return nil, err
	}
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Close()
}

// tv is a time as the database takes it, in UTC to the microsecond.
func (c *Catalog) tv(t time.Time) any {
	return c.store.StoreTime(t.UTC().Truncate(time.Microsecond))
}

// timeScan reads a time column: a time.Time, or the RFC 3339 text a
// dialect.Store keeps one as.
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
	switch x := v.(type) {
	case nil:
		*s.f = math.NaN()
	case float64:
		*s.f = x
	case int64:
		*s.f = float64(x)
	case string:
		return s.parse(x)
	case []byte:
		return s.parse(string(x))
	default:
		return fmt.Errorf("history: figure column holds %T", v)
	}
	return nil
}

func (s numScan) parse(v string) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("history: figure column: %w", err)
	}
	*s.f = f
	return nil
}

// boolScan reads a boolean column: a bool, or an integer 0 or 1 where the
// database has no boolean type.
type boolScan struct{ b *bool }

func (s boolScan) Scan(v any) error {
	switch x := v.(type) {
	case bool:
		*s.b = x
	case int64:
		*s.b = x != 0
	default:
		return fmt.Errorf("history: boolean column holds %T", v)
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
	// Targets are the instances' URLs, passwords removed; Servers their
	// servers in short, one per target ("PostgreSQL 15.20"; see
	// result.InstancePart.Server).
	Targets []string
	Servers []string
	// Config is the configuration under test (run --config; "" for runs
	// recorded before it was).
	Config string
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
	Config   string
	Limit    int
}

const runCols = `run_key, id, workload, label, started, ended, targets, servers, config, unit, throughput, avg_ms, p50_ms, p95_ms, p99_ms, p999_ms, errors, partial, sweep_id, sweep_step, path, recorded`

// dest is where a row of runCols is scanned; the JSON columns go to js,
// which unpack then reads.
func (e *Entry) dest(js *entryJSON) []any {
	return []any{&e.Key, &e.ID, &e.Workload, &e.Label, timeScan{&e.Started}, timeScan{&e.Ended}, &js.targets, &js.servers, &e.Config, &e.Unit,
		numScan{&e.Throughput}, numScan{&e.AvgMs}, numScan{&e.P50Ms}, numScan{&e.P95Ms}, numScan{&e.P99Ms}, numScan{&e.P999Ms},
		&e.Errors, boolScan{&e.Partial}, &e.SweepID, &e.SweepStep, &e.Path, timeScan{&e.Recorded}}
}

// entryJSON holds an entry's JSON columns as scanned.
type entryJSON struct{ targets, servers string }

// unpack decodes the JSON columns into e.
func (e *Entry) unpack(js entryJSON) error {
	if err := json.Unmarshal([]byte(js.targets), &e.Targets); err != nil {
		return fmt.Errorf("targets of %s: %w", e.Key, err)
	}
	if err := json.Unmarshal([]byte(js.servers), &e.Servers); err != nil {
		return fmt.Errorf("servers of %s: %w", e.Key, err)
	}
	return nil
}

// serversJSON is the servers column of a run of these instances.
func serversJSON(ins []result.InstancePart) (string, error) {
	servers := []string{}
	for _, in := range ins {
		servers = append(servers, in.Server())
	}
	b, err := json.Marshal(servers)
	return string(b), err
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
	sj, err := serversJSON(r.Instances)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	sweepID, step := "", ""
	if s, ok := r.Options["sweep_step"].(string); ok && s != "" {
		sweepID, step = r.ID, s
	}
	l := r.Summary.Latency
	return c.fail(c.do(func(conn dialect.Conn) error {
		return c.tx(ctx, func() error {
			if sweepID == "" {
				var b []byte
				err := conn.QueryRow(ctx, `SELECT sweep FROM rightsize_sweeps WHERE id = ? AND workload = ?`, []any{r.ID, r.Workload}, &b)
				switch {
				case errors.Is(err, dialect.ErrNoRows):
				case err != nil:
					return err
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
			_, err := conn.Exec(ctx, `INSERT INTO rightsize_runs (`+runCols+`, result)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (run_key) DO NOTHING`,
				Key(r), r.ID, r.Workload, r.Label, c.tv(r.Started), c.tv(r.Ended), string(tj), sj, r.Config, r.Summary.Unit,
				num(r.Summary.Throughput), num(l.AvgMs), num(l.P50Ms), num(l.P95Ms), num(l.P99Ms), num(l.P999Ms),
				r.Summary.Errors, r.Partial, sweepID, step, path, c.tv(time.Now()), blob)
			return err
		})
	}))
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
	type untied struct{ key, label string }
	return c.fail(c.do(func(conn dialect.Conn) error {
		return c.tx(ctx, func() error {
			_, err := conn.Exec(ctx, `INSERT INTO rightsize_sweeps (`+sweepCols+`, sweep)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (sweep_key) DO NOTHING`,
				SweepKey(sw), sw.ID, sw.Workload, sw.Axis, len(sw.Steps), path, c.tv(time.Now()), blob)
			if err != nil {
				return err
			}
			runs, err := queryAll(ctx, conn, `SELECT run_key, label FROM rightsize_runs WHERE id = ? AND workload = ? AND sweep_step = ''`,
				[]any{sw.ID, sw.Workload}, func(rows dialect.Rows) (untied, error) {
					var u untied
					err := rows.Scan(&u.key, &u.label)
					return u, err
				})
			if err != nil {
				return err
			}
			for _, u := range runs {
				step, ok := stepOf(sw, u.label)
				if !ok {
					continue
				}
				if _, err := conn.Exec(ctx, `UPDATE rightsize_runs SET sweep_id = ?, sweep_step = ? WHERE run_key = ?`, sw.ID, step, u.key); err != nil {
					return err
				}
			}
			return nil
		})
	}))
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
	if f.Config != "" {
		query += ` AND config = ?`
		args = append(args, f.Config)
	}
	query += ` ORDER BY started DESC, run_key DESC`
	return collect(ctx, c, query, args, f.Limit, func(rows dialect.Rows) (Entry, error) {
		var e Entry
		var js entryJSON
		if err := rows.Scan(e.dest(&js)...); err != nil {
			return e, err
		}
		return e, e.unpack(js)
	})
}

// collect runs query (with at most limit rows when limit > 0) and scans
// each row into a value.
func collect[T any](ctx context.Context, c *Catalog, q string, args []any, limit int, scan func(dialect.Rows) (T, error)) ([]T, error) {
	if limit > 0 {
		q += ` LIMIT ` + strconv.Itoa(limit)
	}
	var out []T
	err := c.do(func(conn dialect.Conn) error {
		var err error
		out, err = queryAll(ctx, conn, q, args, scan)
		return err
	})
	return out, c.fail(err)
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
	return collect(ctx, c, query, args, f.Limit, func(rows dialect.Rows) (SweepEntry, error) {
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
	err := c.queryRow(ctx, `SELECT `+col+` FROM `+table+` WHERE `+col+` = ?`, []any{key}, &exact)
	switch {
	case err == nil:
		return []string{exact}, nil
	case !errors.Is(err, dialect.ErrNoRows):
		return nil, c.fail(err)
	}
	return collect(ctx, c, `SELECT `+col+` FROM `+table+` WHERE substr(`+col+`, 1, ?) = ? ORDER BY `+col, []any{len([]rune(key)), key}, maxShown+1,
		func(rows dialect.Rows) (string, error) {
			var k string
			err := rows.Scan(&k)
			return k, err
		})
}

// queryRow runs a query and scans its first row into dest; it returns
// dialect.ErrNoRows when there is none.
func (c *Catalog) queryRow(ctx context.Context, query string, args []any, dest ...any) error {
	return c.do(func(conn dialect.Conn) error { return conn.QueryRow(ctx, query, args, dest...) })
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
		err := c.queryRow(ctx, `SELECT `+tc[1]+` FROM `+tc[0]+` WHERE `+tc[1]+` = ?`, []any{key}, &k)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, dialect.ErrNoRows):
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
	var cols entryJSON
	var blob []byte
	err = c.queryRow(ctx, `SELECT `+runCols+`, result FROM rightsize_runs WHERE run_key = ?`, []any{ref.Key}, append(e.dest(&cols), &blob)...)
	if errors.Is(err, dialect.ErrNoRows) {
		return nil, Entry{}, fmt.Errorf("%w: %s (deleted meanwhile)", ErrNotFound, ref.Key)
	}
	if err != nil {
		return nil, Entry{}, c.fail(err)
	}
	if err := e.unpack(cols); err != nil {
		return nil, Entry{}, c.fail(err)
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
	err = c.queryRow(ctx, `SELECT `+sweepCols+`, sweep FROM rightsize_sweeps WHERE sweep_key = ?`, []any{ref.Key}, append(e.dest(), &blob)...)
	if errors.Is(err, dialect.ErrNoRows) {
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
	var n int64
	err = c.do(func(conn dialect.Conn) error {
		var err error
		n, err = conn.Exec(ctx, query, ref.Key)
		return err
	})
	if err != nil {
		return c.fail(err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %s (deleted meanwhile)", ErrNotFound, ref.Key)
	}
	return nil
}
