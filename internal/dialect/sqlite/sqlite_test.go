package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/dialecttest"
	"github.com/rightsize/rightsize/internal/errclass"
)

func TestConformance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conf.db")
	d := Dialect{}
	tg, err := d.ParseTarget("sqlite:"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if created, err := d.EnsureDatabase(context.Background(), tg); err != nil || !created {
		t.Fatalf("EnsureDatabase on a new file = %v, %v; want true, nil", created, err)
	}
	dialecttest.RunWith(t, d, "sqlite:"+path, dialecttest.Hooks{
		// A CPU-bound query of many seconds that takes no lock.
		SleepSQL: "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2000000000) SELECT count(*) FROM r",
	})
}

func TestParseTarget(t *testing.T) {
	d := Dialect{}
	for _, tc := range []struct{ raw, path string }{
		{"sqlite:bench.db", "bench.db"},
		{"sqlite:./data/bench.db", "data/bench.db"},
		{"sqlite://data/bench.db", "data/bench.db"},
		{"sqlite:///abs/bench.db", "/abs/bench.db"},
		{"sqlite:/abs/bench.db", "/abs/bench.db"},
		{"SQLite:x.db", "x.db"},
		{"sqlite:with%20space.db", "with space.db"},
	} {
		tg, err := d.ParseTarget(tc.raw, nil)
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", tc.raw, err)
			continue
		}
		if tg.Database != tc.path || tg.Dialect != "sqlite" || tg.String() != "sqlite:"+tc.path {
			t.Errorf("ParseTarget(%q) = %+v, want path %q", tc.raw, tg, tc.path)
		}
	}
	for _, raw := range []string{"", "sqlite:", "sqlite://", "sqlite::memory:", "postgres://x/y", "sqlite:x.db?mode=ro", "sqlite:dir/", "sqlite:file:x.db", "sqlite:a#b"} {
		if _, err := d.ParseTarget(raw, nil); !errors.Is(err, dialect.ErrBadTarget) {
			t.Errorf("ParseTarget(%q) = %v, want ErrBadTarget", raw, err)
		}
	}
}

// TestEscapedQueryCharacters: a '?' or '#' typed percent-encoded in the path
// is refused as a typed one is. The driver reads everything after the first
// '?' of its DSN as parameters: sqlite:a%3Fb.db would open the file "a",
// without the busy timeout its pragmas set.
func TestEscapedQueryCharacters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"a%3Fb.db", "a%3fb.db", "a%23b.db"} {
		tg, err := Dialect{}.ParseTarget("sqlite:"+filepath.Join(dir, name), nil)
		if err == nil {
			_, err = Dialect{}.EnsureDatabase(ctx, tg)
			entries, _ := os.ReadDir(dir)
			var files []string
			for _, e := range entries {
				files = append(files, e.Name())
			}
			t.Errorf("sqlite:%s accepted as %q (EnsureDatabase: %v); the directory holds %q", name, tg.Database, err, files)
			continue
		}
		if !errors.Is(err, dialect.ErrBadTarget) || !strings.Contains(err.Error(), "'?' and '#' are not allowed") {
			t.Errorf("sqlite:%s: %v", name, err)
		}
	}
}

// TestConnectStore: a store's connection creates the file and its
// directory, waits dialect.StoreLockWait for locks, runs in WAL mode, and
// its times are fixed-width text that sorts in time order.
func TestConnectStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a", "b", "store.db")
	d := Dialect{}
	tg, err := d.ParseTarget("sqlite:"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.ConnectStore(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	var busy int64
	var mode string
	if err := c.QueryRow(ctx, "PRAGMA busy_timeout", nil, &busy); err != nil || busy != dialect.StoreLockWait.Milliseconds() {
		t.Errorf("busy_timeout = %d, %v; want %d", busy, err, dialect.StoreLockWait.Milliseconds())
	}
	if err := c.QueryRow(ctx, "PRAGMA journal_mode", nil, &mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v", mode, err)
	}
	if _, ok := c.(dialect.WriteBeginner); !ok {
		t.Error("a store's connection is not a WriteBeginner")
	}
	t1 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.FixedZone("x", 3600))
	a, b := d.StoreTime(t1), d.StoreTime(t1.Add(1500*time.Nanosecond))
	if a != "2025-03-01T08:00:00.000000Z" || b != "2025-03-01T08:00:00.000001Z" {
		t.Errorf("StoreTime = %v, %v", a, b)
	}
}

func TestEnsureDatabaseCreatesDirectory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a", "b", "x.db")
	d := Dialect{}
	tg, _ := d.ParseTarget("sqlite:"+path, nil)
	if _, err := d.Connect(ctx, tg); err == nil {
		t.Fatal("Connect succeeded without the directory")
	}
	created, err := d.EnsureDatabase(ctx, tg)
	if err != nil || !created {
		t.Fatalf("EnsureDatabase = %v, %v", created, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if created, err := d.EnsureDatabase(ctx, tg); err != nil || created {
		t.Fatalf("second EnsureDatabase = %v, %v", created, err)
	}
	c, err := d.Connect(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mode string
	var sync, busy int64
	if err := c.QueryRow(ctx, "PRAGMA journal_mode", nil, &mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v", mode, err)
	}
	if err := c.QueryRow(ctx, "PRAGMA synchronous", nil, &sync); err != nil || sync != 1 {
		t.Errorf("synchronous = %d, %v; want 1 (NORMAL)", sync, err)
	}
	if err := c.QueryRow(ctx, "PRAGMA busy_timeout", nil, &busy); err != nil || busy != BusyTimeoutMS {
		t.Errorf("busy_timeout = %d, %v", busy, err)
	}
	if info := c.Info(); info.ServerProduct != "SQLite" || !strings.HasPrefix(info.ServerVersion, "3.") {
		t.Errorf("Server %q, ServerVersion %q; want SQLite 3.x", info.ServerProduct, info.ServerVersion)
	}
}

func TestClassify(t *testing.T) {
	d := Dialect{}
	if d.Classify(nil) != errclass.None {
		t.Error("nil not None")
	}
	if d.Classify(context.Canceled) != errclass.Canceled || d.Classify(fmt.Errorf("x: %w", context.DeadlineExceeded)) != errclass.Timeout {
		t.Error("context errors misclassified")
	}
	if d.Classify(errors.New("plain")) != errclass.Other {
		t.Error("plain error not Other")
	}
}

// TestWriterContention checks the single-writer behaviour the capabilities
// promise: with BEGIN IMMEDIATE a second writer waits for the first instead of
// failing, and a deferred reader is not blocked by the writer.
func TestWriterContention(t *testing.T) {
	ctx := context.Background()
	d := Dialect{}
	tg, _ := d.ParseTarget("sqlite:"+filepath.Join(t.TempDir(), "w.db"), nil)
	conns := make([]dialect.Conn, 3)
	for i := range conns {
		c, err := d.Connect(ctx, tg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	if _, err := conns[0].Exec(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conns[0].Exec(ctx, "INSERT INTO t VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	w0 := conns[0].(dialect.WriteBeginner)
	if err := w0.BeginWrite(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := conns[0].Exec(ctx, "UPDATE t SET v = v + 1"); err != nil {
		t.Fatal(err)
	}
	// A reader sees the committed snapshot while the writer holds the lock.
	if err := conns[2].Begin(ctx); err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := conns[2].QueryRow(ctx, "SELECT v FROM t", nil, &v); err != nil || v != 0 {
		t.Fatalf("reader: %d, %v", v, err)
	}
	_ = conns[2].Commit(ctx)

	var wg sync.WaitGroup
	var err1 error
	var waited time.Duration
	wg.Go(func() {
		start := time.Now()
		err1 = conns[1].(dialect.WriteBeginner).BeginWrite(ctx)
		waited = time.Since(start)
		if err1 == nil {
			_, err1 = conns[1].Exec(ctx, "UPDATE t SET v = v + 1")
		}
		if err1 == nil {
			err1 = conns[1].Commit(ctx)
		}
	})
	time.Sleep(100 * time.Millisecond)
	if err := conns[0].Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err1 != nil {
		t.Fatalf("second writer: %v", err1)
	}
	if waited < 50*time.Millisecond {
		t.Errorf("second writer did not wait for the lock (%v)", waited)
	}
	if err := conns[2].QueryRow(ctx, "SELECT v FROM t", nil, &v); err != nil || v != 2 {
		t.Fatalf("v = %d, %v; want 2", v, err)
	}

	// A deferred transaction that read an old snapshot cannot upgrade after
	// another connection wrote: BUSY_SNAPSHOT, classified retryable.
	if err := conns[2].Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := conns[2].QueryRow(ctx, "SELECT v FROM t", nil, &v); err != nil {
		t.Fatal(err)
	}
	if _, err := conns[0].Exec(ctx, "UPDATE t SET v = v + 1"); err != nil {
		t.Fatal(err)
	}
	_, err := conns[2].Exec(ctx, "UPDATE t SET v = v + 1")
	var se *msqlite.Error
	if !errors.As(err, &se) {
		t.Fatalf("stale upgrade: %v, want a sqlite error", err)
	}
	if got := d.Classify(err); got != errclass.Serialization && got != errclass.LockTimeout {
		t.Errorf("Classify(%v) = %v", err, got)
	}
	if err := conns[2].Rollback(ctx); err != nil {
		t.Errorf("Rollback: %v", err)
	}
	if err := conns[2].Rollback(ctx); err != nil {
		t.Errorf("second Rollback: %v", err)
	}
}

// TestIdentity: one file by relative and absolute names has one identity.
func TestIdentity(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	id := func(raw string) string {
		t.Helper()
		tg, err := Dialect{}.ParseTarget(raw, nil)
		if err != nil || tg.Identity == "" {
			t.Fatalf("%s: %v, identity %q", raw, err, tg.Identity)
		}
		return tg.Identity
	}
	one := id("sqlite:data/a.db")
	for _, raw := range []string{"sqlite:./data/a.db", "sqlite://data//a.db", "sqlite:" + filepath.Join(wd, "data", "a.db"), "sqlite:data/x/../a.db"} {
		if got := id(raw); got != one {
			t.Errorf("%s: identity %q, want %q", raw, got, one)
		}
	}
	if id("sqlite:data/b.db") == one {
		t.Error("two files, one identity")
	}
}

// TestTimeArgumentsAsLoaded: a time bound to a statement is stored as the
// load stores one (rowscan.TimeLayout), not as Go's debug form, so rows a
// run writes compare with rows prepare loaded; the caller's arguments are
// left as they were.
func TestTimeArgumentsAsLoaded(t *testing.T) {
	ctx := context.Background()
	d := Dialect{}
	tg, _ := d.ParseTarget("sqlite:"+filepath.Join(t.TempDir(), "t.db"), nil)
	c, err := d.Connect(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(ctx, "CREATE TABLE t (n INTEGER, at TIMESTAMP)"); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 6, 18, 8, 22, 906225778, time.UTC)
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (1, ?)", at); err != nil {
		t.Fatal(err)
	}
	st, err := c.Prepare(ctx, "INSERT INTO t VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	args := []any{int64(2), time.Now()}
	if _, err := st.Exec(ctx, args...); err != nil {
		t.Fatal(err)
	}
	if _, ok := args[1].(time.Time); !ok {
		t.Errorf("the caller's argument became %T", args[1])
	}
	var text string
	if err := c.QueryRow(ctx, "SELECT CAST(at AS TEXT) FROM t WHERE n = 1", nil, &text); err != nil || text != "2026-12-06 18:08:22.906225778" {
		t.Errorf("stored %q, %v; want 2026-12-06 18:08:22.906225778", text, err)
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM t WHERE at > ?", []any{at}, &n); err != nil || n != 1 {
		t.Errorf("rows after the first one's time: %d, %v; want the second", n, err)
	}
}
