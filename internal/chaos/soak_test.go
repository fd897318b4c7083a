package chaos

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/cli"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/testenv"
)

// TestSoakPostgres is issue 8's soak on a database server, where the
// process's memory is rightsize's alone (an embedded SQLite's page caches
// and allocator are the database's memory, in the same process): 1,000
// virtual users of oltp_point_select for 10 minutes against the package's
// private PostgreSQL (max_connections 1100), the resident set sampled every
// 10 s, with the Go heap live at the last collection. After the first
// minute neither the live heap (what rightsize holds) nor the RSS may grow
// 10 %; no latency may be clamped, silently or not. RIGHTSIZE_SOAK=1 runs
// it; RIGHTSIZE_SOAK_TIME shortens it (e.g. 3m).
func TestSoakPostgres(t *testing.T) { soak(t, "PostgreSQL", postgresServer) }

// TestSoakMariaDB is the same soak against the package's private MariaDB
// (max_connections 1100), through go-sql-driver/mysql.
func TestSoakMariaDB(t *testing.T) { soak(t, "MariaDB", mariadbServer) }

func soak(t *testing.T, name string, server func(testing.TB) *server) {
	if os.Getenv("RIGHTSIZE_SOAK") != "1" {
		t.Skip("the 10-minute soak runs with RIGHTSIZE_SOAK=1")
	}
	length := 10 * time.Minute
	if v := os.Getenv("RIGHTSIZE_SOAK_TIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		length = d
	}
	srv := server(t)
	db := srv.FreshDB(t)
	url := srv.AdminURL(db)
	mustRun(t, "prepare", "oltp_point_select", "--target", url, "--table-size", "10000")
	out := filepath.Join(t.TempDir(), "soak.json")
	r := start(context.Background(), "run", "oltp_point_select", "--target", url, "--table-size", "10000", "--prepare", "never",
		"--threads", "1000", "--time", length.String(), "--out", out)
	begun := r.clockStarted(t, time.Second, 5*time.Minute)
	type sample struct {
		at   time.Duration
		rss  int64 // KiB
		live int64 // KiB: the Go heap live at the last GC
		// classes is where the runtime's memory is, in KiB, in the order
		// of memClasses.
		classes []int64
	}
	memClasses := []string{"/gc/heap/goal:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes",
		"/memory/classes/heap/free:bytes", "/memory/classes/heap/released:bytes", "/memory/classes/heap/stacks:bytes",
		"/memory/classes/metadata/other:bytes", "/memory/classes/other:bytes"}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for _, c := range memClasses {
		live = append(live, metrics.Sample{Name: c})
	}
	// RIGHTSIZE_SOAK_PPROF names a directory for heap profiles at minute 1
	// and at the end, to compare (go tool pprof -base).
	profile := func(name string) {
		dir := os.Getenv("RIGHTSIZE_SOAK_PPROF")
		if dir == "" {
			return
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
	}
	profiled := false
	var series []sample
	done := false
	for next := begun; !done; next = next.Add(10 * time.Second) {
		select {
		case o := <-r.done:
			r.done <- o // for wait
			done = true
		case <-time.After(time.Until(next)):
			kb, err := testenv.RSSKiB(os.Getpid())
			if err != nil {
				t.Fatal(err)
			}
			metrics.Read(live)
			s := sample{at: time.Since(begun).Round(time.Second), rss: kb, live: int64(live[0].Value.Uint64() / 1024)}
			for _, c := range live[1:] {
				s.classes = append(s.classes, int64(c.Value.Uint64()/1024))
			}
			series = append(series, s)
			if s.at >= time.Minute && !profiled {
				profile("heap-1m.pprof")
				profiled = true
			}
		}
	}
	o := r.wait()
	profile("heap-end.pprof")
	var b, l strings.Builder
	for _, s := range series {
		fmt.Fprintf(&b, " %v:%d", s.at, s.rss/1024)
		fmt.Fprintf(&l, " %v:%d", s.at, s.live/1024)
	}
	t.Logf("1000 virtual users on %s for %v; RSS MiB every 10 s:%s", name, length, b.String())
	t.Logf("Go heap live at the last GC, MiB:%s", l.String())
	if o.code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	// growth compares what v reads after the first minute, while the run
	// goes on, with its value at the first minute: the samples from the
	// window's end on (the run then writes its result, a one-off the size of
	// the result) are logged above but not judged. With floors, each minute
	// is represented by its lowest sample (minutes of 3 samples or more):
	// what stays held, not a buffer that happened to be live at a
	// collection (a checkpoint being encoded is a few MiB, proportional to
	// the series so far).
	running := slices.DeleteFunc(slices.Clone(series), func(s sample) bool { return s.at >= length })
	growth := func(what string, v func(sample) int64, floors bool, limit float64, allowKiB int64) {
		pts := running
		if floors {
			pts = nil
			byMinute := map[time.Duration][]sample{}
			for _, s := range running {
				m := s.at.Truncate(time.Minute)
				byMinute[m] = append(byMinute[m], s)
			}
			for _, m := range slices.Sorted(maps.Keys(byMinute)) {
				if ss := byMinute[m]; len(ss) >= 3 {
					pts = append(pts, slices.MinFunc(ss, func(a, b sample) int { return cmp.Compare(v(a), v(b)) }))
				}
			}
		}
		var base, peak sample
		for _, s := range pts {
			switch {
			case s.at < time.Minute:
			case v(base) == 0:
				base, peak = s, s
			case v(s) > v(peak):
				peak = s
			}
		}
		if v(base) == 0 {
			t.Fatalf("no sample after the first minute: %v", series)
		}
		g := float64(v(peak)-v(base)-allowKiB) / float64(v(base))
		kind := ""
		if floors {
			kind = " (each minute's floor)"
		}
		if allowKiB > 0 {
			kind += fmt.Sprintf(", less %d KiB the result's series holds", allowKiB)
		}
		t.Logf("%s%s: %d KiB at %v, peak after it %d KiB at %v: growth %.1f %%", what, kind, v(base), base.at, v(peak), peak.at, 100*g)
		for i, c := range memClasses {
			t.Logf("  %-40s %6d → %6d KiB", c, base.classes[i], peak.classes[i])
		}
		if g >= limit {
			t.Errorf("%s grew %.1f %% after the first minute, want under %.0f %%", what, 100*g, 100*limit)
		}
	}
	// Issue 8's bar: after the first minute, neither what rightsize holds
	// (the live heap) nor the process's memory (RSS) grows 10 %. Measured
	// (10 minutes, 1,000 virtual users, 2 CPUs), PostgreSQL: RSS 111 → 119
	// MiB (7.1 %), then in two later runs 10.1 % (9.6 % before the window's
	// end) and 8.2 %, rising for some 7 minutes and then flat, while the
	// live heap's floor stays within 1-3 % (34-38 MiB): the runtime keeping
	// more of its heap resident, up to a tenth over its goal, not
	// rightsize holding more. MariaDB: RSS 99 → 103 MiB (4.8 %), live heap
	// 21-26 MiB. Before pgx's statement caches were sized for
	// what rightsize sends, the live heap was 86-92 MiB, 54 MB of it their
	// empty maps, and the RSS grew 19.7 % (190 → 227 MiB): the heap took
	// longer to reach the collector's goal (twice the live heap), which the
	// RSS follows, plus up to a tenth more the runtime keeps before
	// returning pages; the memory classes logged above show where it is.
	res := readResult(t, out)
	t.Logf("%d transactions, %.0f/s, p99 %.1f ms, max %.1f ms, clamped %d, errors %d",
		res.Summary.Count, res.Summary.Throughput, res.Summary.Latency.P99Ms, res.Summary.Latency.MaxMs, res.Summary.Clamped, res.Summary.Errors)
	// The run keeps its series (an interval a second, for the whole run and
	// for each instance) by design: the live heap may grow by what the
	// series gained after the first minute, taken as its encoded size, on
	// top of the 10 %. A leak of a byte per transaction would be some 5 MiB
	// here.
	var seriesKiB int64
	for _, ivs := range append([][]result.Interval{res.Intervals}, instanceSeries(res)...) {
		b, err := json.Marshal(ivs)
		if err != nil {
			t.Fatal(err)
		}
		seriesKiB += int64(len(b)) / 1024
	}
	seriesKiB = seriesKiB * int64(length-time.Minute) / int64(length)
	growth("Go live heap", func(s sample) int64 { return s.live }, true, 0.10, seriesKiB)
	growth("RSS", func(s sample) int64 { return s.rss }, false, 0.10, 0)
	if res.Partial || res.Summary.Count == 0 || res.Summary.Clamped != 0 {
		t.Errorf("partial %v (%s), %d transactions, %d clamped", res.Partial, res.PartialReason, res.Summary.Count, res.Summary.Clamped)
	}
}

func instanceSeries(r *result.Run) [][]result.Interval {
	var out [][]result.Interval
	for _, in := range r.Instances {
		out = append(out, in.Intervals)
	}
	return out
}
