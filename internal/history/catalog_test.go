package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/testenv"
)

// catalogs runs a test on a fresh SQLite catalog and a fresh PostgreSQL one.
func catalogs(t *testing.T, test func(t *testing.T, c *Catalog)) {
	t.Run("sqlite", func(t *testing.T) {
		test(t, open(t, "sqlite:"+filepath.Join(t.TempDir(), "history.db")))
	})
	t.Run("postgres", func(t *testing.T) {
		test(t, open(t, testenv.PostgresURL(t)))
	})
}

func open(t *testing.T, dsn string) *Catalog {
	t.Helper()
	c, err := Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

// synthetic returns a result with every headline field set, its times to the
// microsecond (the catalog's precision).
func synthetic(id, workload, label string, started time.Time, tps float64) *result.Run {
	lat := result.Latency{AvgMs: 1.25, P50Ms: 1.1, P95Ms: 2.5, P99Ms: 4.75, P999Ms: 9.5, MaxMs: 20}
	r := &result.Run{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "rightsize", Version: "test", GoVersion: "go1.26"},
		ID:            id, Label: label, Workload: workload, Event: "transaction",
		Options: map[string]any{"tables": float64(1)},
		Load: result.Load{Mode: "closed", Threads: 4, DurationS: 10, IntervalS: 1, Seed: 7,
			SteadyState: &result.SteadyState{WindowS: 5, TolerancePct: 5, ThroughputDriftPct: math.NaN(), P99DriftPct: 1.5}},
		Started: started, Ended: started.Add(10 * time.Second),
		Partial: true, PartialReason: "interrupted",
		Summary: result.Summary{Unit: "transactions", Throughput: tps, Count: int64(tps * 10), Latency: lat,
			Errors: 3, ErrorsByClass: map[string]int64{"deadlock": 3}, DurationS: 10, Partial: true},
		Ops: []result.Op{{Name: "transaction", Kind: "event", Count: int64(tps * 10), Rate: tps, Latency: lat}},
		Instances: []result.InstancePart{
			{Index: 0, Target: "postgres://bob@db1:5432/sbtest", Dialect: "postgres", ServerProduct: "PostgreSQL", ServerVersion: "15.20 (Debian 15.20-0+deb12u1)"},
			{Index: 1, Target: "postgres://bob@db2:5432/sbtest", Dialect: "postgres", ServerProduct: "PostgreSQL", ServerVersion: "16.4"},
		},
	}
	for i := range 10 {
		r.Intervals = append(r.Intervals, result.Interval{EndS: float64(i + 1), DurationS: 1, Phase: "measure",
			Events: int64(tps), Rate: tps + float64(i%3), Latency: lat})
	}
	return r
}

func encode(t *testing.T, r *result.Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := result.Encode(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRoundTrip(t *testing.T) {
	catalogs(t, func(t *testing.T, c *Catalog) {
		ctx := context.Background()
		r := synthetic("20250301T120000Z-a1b2c3", "oltp_read_write", "v1 threads 4", t0, 1234.5)
		if err := c.Record(ctx, r, "/results/a.json"); err != nil {
			t.Fatal(err)
		}
		key := "20250301T120000Z-a1b2c3-oltp_read_write-v1threads4"
		if Key(r) != key {
			t.Fatalf("Key = %q, want %q", Key(r), key)
		}
		got, e, err := c.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := encode(t, r), encode(t, got); a != b {
			t.Errorf("result JSON differs after the round trip:\n%s\nvs\n%s", a, b)
		}
		want := Entry{Key: key, ID: r.ID, Workload: r.Workload, Label: r.Label, Started: t0, Ended: t0.Add(10 * time.Second),
			Targets: []string{"postgres://bob@db1:5432/sbtest", "postgres://bob@db2:5432/sbtest"}, Unit: "transactions",
			Throughput: 1234.5, AvgMs: 1.25, P50Ms: 1.1, P95Ms: 2.5, P99Ms: 4.75, P999Ms: 9.5, Errors: 3, Partial: true,
			Path: "/results/a.json"}
		if !e.Started.Equal(want.Started) || !e.Ended.Equal(want.Ended) || time.Since(e.Recorded) > time.Minute {
			t.Errorf("times: started %v ended %v recorded %v", e.Started, e.Ended, e.Recorded)
		}
		e.Started, e.Ended, e.Recorded = want.Started, want.Ended, time.Time{}
		if strings.Join(e.Targets, " ") != strings.Join(want.Targets, " ") {
			t.Errorf("targets %q, want %q", e.Targets, want.Targets)
		}
		e.Targets = want.Targets
		if strings.Join(e.Servers, ", ") != "PostgreSQL 15.20, PostgreSQL 16.4" {
			t.Errorf("servers %q", e.Servers)
		}
		if es, err := c.List(ctx, Filter{}); err != nil || len(es) != 1 || strings.Join(es[0].Servers, ", ") != "PostgreSQL 15.20, PostgreSQL 16.4" {
			t.Errorf("listed: %+v, %v", es, err)
		}
		if e.Key != want.Key || e.ID != want.ID || e.Workload != want.Workload || e.Label != want.Label || e.Unit != want.Unit ||
			e.Throughput != want.Throughput || e.AvgMs != want.AvgMs || e.P50Ms != want.P50Ms || e.P95Ms != want.P95Ms ||
			e.P99Ms != want.P99Ms || e.P999Ms != want.P999Ms || e.Errors != want.Errors || e.Partial != want.Partial ||
			e.Path != want.Path || e.SweepID != "" || e.SweepStep != "" {
			t.Errorf("entry\n got %+v\nwant %+v", e, want)
		}
	})
}

func TestRecordIsIdempotent(t *testing.T) {
	catalogs(t, func(t *testing.T, c *Catalog) {
		ctx := context.Background()
		r := synthetic("20250301T120000Z-a1b2c3", "oltp_read_write", "", t0, 100)
		for range 3 {
			if err := c.Record(ctx, r, "/x.json"); err != nil {
				t.Fatal(err)
			}
		}
		es, err := c.List(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 1 || es[0].Key != "20250301T120000Z-a1b2c3-oltp_read_write" {
			t.Fatalf("after three records: %+v", es)
		}
		if ok, err := c.Has(ctx, es[0].Key); !ok || err != nil {
			t.Errorf("Has = %v, %v", ok, err)
		}
		if ok, err := c.Has(ctx, "20250301T120000Z"); ok || err != nil {
			t.Errorf("Has(prefix) = %v, %v; want false (exact keys only)", ok, err)
		}
	})
}

func TestListOrderAndFilter(t *testing.T) {
	catalogs(t, func(t *testing.T, c *Catalog) {
		ctx := context.Background()
		runs := []*result.Run{
			synthetic("20250301T120000Z-aaaaaa", "oltp_read_write", "v1", t0, 100),
			synthetic("20250301T130000Z-bbbbbb", "oltp_read_write", "v2", t0.Add(time.Hour), 110),
			synthetic("20250301T140000Z-cccccc", "tpcc", "v1", t0.Add(2*time.Hour), 120),
			synthetic("20250301T150000Z-dddddd", "oltp_read_write", "v1", t0.Add(3*time.Hour), 130),
		}
		// Recorded out of order: List sorts by start time.
		for _, i := range []int{2, 0, 3, 1} {
			if err := c.Record(ctx, runs[i], ""); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(f Filter) string {
			t.Helper()
			es, err := c.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, e := range es {
				s = append(s, e.ID[len(e.ID)-1:])
			}
			return strings.Join(s, "")
		}
		for _, tc := range []struct {
			f    Filter
			want string
		}{
			{Filter{}, "dcba"},
			{Filter{Limit: 2}, "dc"},
			{Filter{Workload: "oltp_read_write"}, "dba"},
			{Filter{Label: "v1"}, "dca"},
			{Filter{Workload: "oltp_read_write", Label: "v1", Limit: 1}, "d"},
			{Filter{Workload: "nope"}, ""},
		} {
			if got := ids(tc.f); got != tc.want {
				t.Errorf("List(%+v) = %q, want %q", tc.f, got, tc.want)
			}
		}
	})
}

func TestPrefixGetAmbiguityAndDelete(t *testing.T) {
	catalogs(t, func(t *testing.T, c *Catalog) {
		ctx := context.Background()
		a := synthetic("20250301T120000Z-aaaaaa", "oltp_read_write", "", t0, 100)
		b := synthetic("20250301T120000Z-abbbbb", "oltp_read_write", "", t0.Add(time.Second), 110)
		for _, r := range []*result.Run{a, b} {
			if err := c.Record(ctx, r, ""); err != nil {
				t.Fatal(err)
			}
		}
		r, e, err := c.Get(ctx, "20250301T120000Z-ab")
		if err != nil || e.Key != Key(b) || r.Summary.Throughput != 110 {
			t.Fatalf("Get(unique prefix) = %v, %+v, %v", r, e, err)
		}
		_, _, err = c.Get(ctx, "20250301T120000Z-a")
		if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), Key(a)) || !strings.Contains(err.Error(), Key(b)) {
			t.Errorf("Get(ambiguous prefix) error %v: want ErrAmbiguous naming both keys", err)
		}
		if _, _, err := c.Get(ctx, "2024"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(unknown) error %v, want ErrNotFound", err)
		}
		if err := c.Delete(ctx, "20250301T120000Z-a"); !errors.Is(err, ErrAmbiguous) {
			t.Errorf("Delete(ambiguous) error %v, want ErrAmbiguous", err)
		}
		if err := c.Delete(ctx, "20250301T120000Z-aa"); err != nil {
			t.Fatal(err)
		}
		es, err := c.List(ctx, Filter{})
		if err != nil || len(es) != 1 || es[0].Key != Key(b) {
			t.Fatalf("after delete: %+v, %v", es, err)
		}
		if err := c.Delete(ctx, Key(a)); !errors.Is(err, ErrNotFound) {
			t.Errorf("Delete(deleted) error %v, want ErrNotFound", err)
		}
	})
}

func TestExactKeyWinsOverLongerOnes(t *testing.T) {
	catalogs(t, func(t *testing.T, c *Catalog) {
		ctx := context.Background()
		// "<id>-fileio" is a prefix of "<id>-fileio-read70".
		short := synthetic("20250301T120000Z-aaaaaa", "fileio", "", t0, 1)
		long := synthetic("20250301T120000Z-aaaaaa", "fileio", "read 70%", t0, 2)
		for _, r := range []*result.Run{short, long} {
			if err := c.Record(ctx, r, ""); err != nil {
				t.Fatal(err)
			}
		}
		if _, e, err := c.Get(ctx, Key(short)); err != nil || e.Key != Key(short) {
			t.Errorf("Get(%s) = %+v, %v", Key(short), e, err)
		}
		if Key(long) != "20250301T120000Z-aaaaaa-fileio-read70" {
			t.Errorf("Key = %s", Key(long))
		}
	})
}

func sweep(id string) *result.Sweep {
	return &result.Sweep{SchemaVersion: result.SchemaVersion, ID: id, Workload: "oltp_read_write", Axis: "rate", BaselineRate: 50,
		Steps: []result.SweepStep{
			{Label: "rate 1x", X: 1, Throughput: 50, P99Ms: 2, Result: "results/" + id + "-oltp_read_write-rate1x.json"},
			{Label: "rate 2x", X: 2, Throughput: 99, P99Ms: 3},
		},
		SLOMs: 7}
}

func TestSweeps(t *testing.T) {
	catalogs(t, func(t *testing.T, c *Catalog) {
		ctx := context.Background()
		id := "20250301T120000Z-aaaaaa"
		step1 := synthetic(id, "oltp_read_write", "mine rate 1x", t0, 50)
		step1.Options["sweep_step"] = "rate 1x"
		base := synthetic(id, "oltp_read_write", "mine baseline", t0, 50)
		if err := c.Record(ctx, step1, ""); err != nil {
			t.Fatal(err)
		}
		if err := c.Record(ctx, base, ""); err != nil {
			t.Fatal(err)
		}
		sw := sweep(id)
		for range 2 {
			if err := c.RecordSweep(ctx, sw, "/r/s.json"); err != nil {
				t.Fatal(err)
			}
		}
		// Recorded after the sweep: tied by its label.
		step2 := synthetic(id, "oltp_read_write", "mine rate 2x", t0.Add(time.Minute), 99)
		if err := c.Record(ctx, step2, ""); err != nil {
			t.Fatal(err)
		}
		other := synthetic(id, "oltp_read_write", "unrelated", t0, 1)
		if err := c.Record(ctx, other, ""); err != nil {
			t.Fatal(err)
		}
		es, err := c.List(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		steps := map[string]string{}
		for _, e := range es {
			steps[e.Label] = e.SweepID + "/" + e.SweepStep
		}
		want := map[string]string{"mine rate 1x": id + "/rate 1x", "mine baseline": id + "/baseline", "mine rate 2x": id + "/rate 2x", "unrelated": "/"}
		for l, w := range want {
			if steps[l] != w {
				t.Errorf("run %q: sweep %q, want %q", l, steps[l], w)
			}
		}
		ss, err := c.ListSweeps(ctx, Filter{})
		if err != nil || len(ss) != 1 {
			t.Fatalf("ListSweeps = %+v, %v", ss, err)
		}
		if s := ss[0]; s.Key != id+"-oltp_read_write-sweep" || s.Axis != "rate" || s.Steps != 2 || s.Path != "/r/s.json" {
			t.Errorf("sweep entry %+v", s)
		}
		got, _, err := c.GetSweep(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.BaselineRate != 50 || len(got.Steps) != 2 || got.Steps[0].Result != sw.Steps[0].Result || got.SLOMs != 7 || got.Steps[1].Throughput != 99 {
			t.Errorf("sweep back: %+v", got)
		}
		// The id prefixes the runs and the sweep alike.
		if _, err := c.Resolve(ctx, id); !errors.Is(err, ErrAmbiguous) {
			t.Errorf("Resolve(id) error %v, want ErrAmbiguous", err)
		}
		ref, err := c.Resolve(ctx, SweepKey(sw))
		if err != nil || ref != (Ref{KindSweep, SweepKey(sw)}) {
			t.Errorf("Resolve(sweep key) = %+v, %v", ref, err)
		}
		if err := c.Delete(ctx, SweepKey(sw)); err != nil {
			t.Fatal(err)
		}
		if ss, _ := c.ListSweeps(ctx, Filter{}); len(ss) != 0 {
			t.Errorf("sweep still listed after delete: %+v", ss)
		}
		if es, _ := c.List(ctx, Filter{}); len(es) != 4 {
			t.Errorf("deleting the sweep removed runs: %d left", len(es))
		}
	})
}

func TestReopenKeepsData(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	ctx := context.Background()
	c, err := Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Record(ctx, synthetic("20250301T120000Z-aaaaaa", "w", "", t0, 1), ""); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c = open(t, dsn)
	if es, err := c.List(ctx, Filter{}); err != nil || len(es) != 1 {
		t.Fatalf("after reopening: %+v, %v", es, err)
	}
	// A catalog from a newer rightsize is refused, not written to.
	if _, err := c.conn.Exec(ctx, `UPDATE rightsize_schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := Open(ctx, dsn, nil); err == nil || !strings.Contains(err.Error(), "schema version is 99") {
		t.Errorf("newer schema: error %v", err)
	}
}

func TestOpenRefusesAndRedacts(t *testing.T) {
	ctx := context.Background()
	for _, dsn := range []string{"", "mysql://root@h/db", "sqlite:", "sqlite:x.db?mode=memory"} {
		if _, err := Open(ctx, dsn, nil); !errors.Is(err, ErrBadDSN) {
			t.Errorf("Open(%q) error %v, want ErrBadDSN", dsn, err)
		}
	}
	// Port 1 refuses connections: the error names the catalog without its password.
	_, err := Open(ctx, "postgres://bob:hunter2@127.0.0.1:1/db?sslmode=disable", nil)
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "postgres://bob@127.0.0.1:1/db") {
		t.Errorf("error %v: want the redacted location and no password", err)
	}
	for in, want := range map[string]string{
		"postgres://bob:hunter2@h:5432/db?sslmode=require":          "postgres://bob@h:5432/db?sslmode=require",
		"postgresql://h/db?password=hunter2&application_name=x":     "postgresql://h/db?application_name=x",
		"sqlite:/var/lib/h.db":                                      "sqlite:/var/lib/h.db",
		"sqlite:rel/h.db":                                           "sqlite:rel/h.db",
		"postgres://bob@h/db":                                       "postgres://bob@h/db",
		"postgres://bob:p%40ss@h/db":                                "postgres://bob@h/db",
		"postgres://bob:hunter2@h/db?sslpassword=hunter2&sslmode=x": "postgres://bob@h/db?sslmode=x",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestConcurrentOpenAndRecord(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "h.db") },
		"postgres": func(t *testing.T) string { return testenv.PostgresURL(t) },
	} {
		t.Run(name, func(t *testing.T) {
			url := dsn(t)
			ctx := context.Background()
			const n = 4
			errs := make(chan error, n)
			for i := range n {
				go func() {
					// Each as its own process would: open a new catalog, record, close.
					c, err := Open(ctx, url, nil)
					if err != nil {
						errs <- err
						return
					}
					defer c.Close()
					errs <- c.Record(ctx, synthetic("20250301T120000Z-aaaaa"+string(rune('0'+i)), "w", "", t0, 1), "")
				}()
			}
			for range n {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			if es, err := open(t, url).List(ctx, Filter{}); err != nil || len(es) != n {
				t.Errorf("List after %d concurrent records: %d entries, %v", n, len(es), err)
			}
		})
	}
}

// TestConcurrentWriters: catalogs open at once (as processes would be) each
// record runs and sweeps in transactions that read before they write; none
// fails with a lock error (SQLite: a deferred BEGIN fails at once with
// SQLITE_BUSY when another connection wrote in between; the catalog's write
// transactions take the lock at BEGIN and wait for it), and none is lost.
func TestConcurrentWriters(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "h.db") },
		"postgres": func(t *testing.T) string { return testenv.PostgresURL(t) },
	} {
		t.Run(name, func(t *testing.T) {
			url := dsn(t)
			ctx := context.Background()
			const writers, each = 6, 10
			errs := make(chan error, writers)
			for w := range writers {
				go func() {
					c, err := Open(ctx, url, nil)
					if err != nil {
						errs <- err
						return
					}
					defer c.Close()
					for i := range each {
						id := fmt.Sprintf("20250301T120000Z-w%di%02d", w, i)
						if err := c.Record(ctx, synthetic(id, "oltp_read_write", "mine rate 2x", t0, 1), ""); err != nil {
							errs <- err
							return
						}
						if err := c.RecordSweep(ctx, sweep(id), ""); err != nil {
							errs <- err
							return
						}
					}
					errs <- nil
				}()
			}
			for range writers {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			c := open(t, url)
			es, err := c.List(ctx, Filter{})
			if err != nil || len(es) != writers*each {
				t.Fatalf("List: %d entries, %v; want %d", len(es), err, writers*each)
			}
			for _, e := range es {
				if e.SweepStep != "rate 2x" {
					t.Errorf("run %s not tied to its sweep: %q", e.Key, e.SweepStep)
				}
			}
		})
	}
}

// TestSharedCatalog: one Catalog used by several goroutines at once (they
// take turns on its connection), and closed twice.
func TestSharedCatalog(t *testing.T) {
	c := open(t, "sqlite:"+filepath.Join(t.TempDir(), "h.db"))
	ctx := context.Background()
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			id := fmt.Sprintf("20250301T120000Z-s%05d", i)
			err := c.Record(ctx, synthetic(id, "w", "", t0, 1), "")
			if err == nil {
				_, err = c.List(ctx, Filter{Limit: 3})
			}
			if err == nil {
				_, _, err = c.Get(ctx, id)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.List(ctx, Filter{}); err == nil {
		t.Error("List after Close succeeded")
	}
}

// TestPostgresSessionSettings: a PostgreSQL catalog reads its times, figures
// and results back whatever DateStyle, TimeZone, bytea_output and
// extra_float_digits its URL (or the server) sets.
func TestPostgresSessionSettings(t *testing.T) {
	raw := testenv.PostgresURL(t)
	sep := "?"
	if strings.Contains(raw, "?") {
		sep = "&"
	}
	c := open(t, raw+sep+"DateStyle=SQL,DMY&timezone=Asia/Kolkata&bytea_output=escape&extra_float_digits=-3")
	ctx := context.Background()
	a, b := 0.1, 0.2
	tps := a + b // 0.30000000000000004: 17 significant digits
	r := synthetic("20250301T120000Z-aaaaaa", "w", "", t0, tps)
	r.Shard = &result.Shard{RunID: "20250301T120000Z", Index: 0, Count: 1}
	r.ID = "20250301T120000Z-shard0of1"
	if err := c.Record(ctx, r, ""); err != nil {
		t.Fatal(err)
	}
	es, err := c.List(ctx, Filter{})
	if err != nil || len(es) != 1 || !es[0].Started.Equal(t0) || es[0].Throughput != tps {
		t.Fatalf("List = %+v, %v; want one run started at %v, throughput %v", es, err, t0, tps)
	}
	if _, e, err := c.Get(ctx, Key(r)); err != nil || !e.Started.Equal(t0) || !e.Ended.Equal(r.Ended) {
		t.Errorf("Get: started %v ended %v, %v", e.Started, e.Ended, err)
	}
	if rs, err := c.ShardResults(ctx, "20250301T120000Z"); err != nil || len(rs) != 1 {
		t.Errorf("ShardResults: %d, %v", len(rs), err)
	}
}

// A SQLite catalog's folder is made only for the default catalog
// (datahome.HistoryFile); elsewhere a missing folder is refused, by
// Validate as by Open, wrapping ErrBadDSN, and none is made.
func TestFolderMadeOnlyForTheDefault(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "new", "dir")
	dsn := "sqlite:" + filepath.Join(missing, "x.db")
	getenv := func(k string) string { return map[string]string{"XDG_DATA_HOME": filepath.Join(dir, "data")}[k] }
	if err := Validate(dsn, getenv); !errors.Is(err, ErrBadDSN) || !strings.Contains(err.Error(), "the folder "+missing+" of the history catalog does not exist") {
		t.Errorf("Validate(%s) = %v", dsn, err)
	}
	if c, err := Open(context.Background(), dsn, getenv); !errors.Is(err, ErrBadDSN) {
		if c != nil {
			c.Close()
		}
		t.Errorf("Open(%s) = %v", dsn, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("a folder was made: %v", err)
	}
	def := "sqlite:" + filepath.Join(dir, "data", "rightsize", "history.db")
	c, err := Open(context.Background(), def, getenv)
	if err != nil {
		t.Fatalf("Open(the default %s) = %v", def, err)
	}
	c.Close()
}
