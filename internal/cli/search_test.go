package cli

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// A rate search on the embedded SQLite: it starts from the measured
// baseline, probes each rate as a step, and the sweep file holds the
// answer, the probes in the order they ran and one step per rate in
// rising order; the console and the headline lead with the capacity.
func TestSweepSearchRate(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--table-size", "500", "--rate", "search", "--threads", "4", "--slo", "p95=2ms", "--max-steps", "5",
		"--warmup", "0s", "--time", "400ms", "--report-interval", "200ms", "--out", out, "--no-history", "--prepare", "always")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	sw := readSweep(t, filepath.Join(dir, "s-sweep.json"))
	a := sw.Search
	if a == nil {
		t.Fatalf("no search in the sweep file:\n%s", o.stdout)
	}
	t.Logf("%+v\n%s", a, o.stdout)
	if a.Axis != "rate" || a.Percentile != "p95" || a.SLOMs != 2 || len(a.Probes) == 0 || len(a.Probes) > 5 {
		t.Errorf("search %+v: want a rate search on p95 <= 2 ms in at most 5 probes", a)
	}
	if !slices.Contains([]string{"found", "always_met", "never_met"}, a.Outcome) || a.Stopped == "" {
		t.Errorf("outcome %q, stopped %q", a.Outcome, a.Stopped)
	}
	if base := sw.BaselineRate; base <= 0 || math.Abs(a.Probes[0].X-base) > 0.005*base {
		t.Errorf("first probe at %v/s, baseline %v/s: the search starts from the baseline", a.Probes[0].X, base)
	}
	for _, p := range a.Probes {
		if p.Result == "" || p.Offered <= 0 {
			t.Errorf("probe %+v: want its result file and its rate offered", p)
		}
	}
	if !slices.IsSortedFunc(sw.Steps, func(x, y result.SweepStep) int { return int(x.X - y.X) }) {
		t.Errorf("steps not in rising rate: %+v", sw.Steps)
	}
	if a.Outcome == "found" && (a.X >= a.Next || a.Capacity <= 0) {
		t.Errorf("bracket %v..%v, capacity %v", a.X, a.Next, a.Capacity)
	}
	for _, want := range []string{"== probe 1 (of at most 5): rate ", "probe rate ", "Capacity at p95 <= 2 ms", "the search's probes, in the order they ran"} {
		if a.Outcome != "found" && want == "Capacity at p95 <= 2 ms" {
			want = "apacity at p95 <= 2 ms"
		}
		if !strings.Contains(o.stdout, want) {
			t.Errorf("console lacks %q:\n%s", want, o.stdout)
		}
	}
}

// A threads search: a closed loop from one virtual user, whole counts,
// the sweep's steps one per count in rising order.
func TestSweepSearchThreads(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--table-size", "500", "--threads", "search", "--slo", "50ms", "--max-steps", "4",
		"--warmup", "0s", "--time", "300ms", "--report-interval", "300ms", "--out", out, "--no-history", "--prepare", "always")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	sw := readSweep(t, filepath.Join(dir, "s-sweep.json"))
	a := sw.Search
	if a == nil || a.Axis != "threads" || len(a.Probes) == 0 || len(a.Probes) > 4 || a.Probes[0].X != 1 {
		t.Fatalf("search %+v: want a threads search from 1 in at most 4 probes\n%s", a, o.stdout)
	}
	for _, p := range a.Probes {
		if p.X != math.Trunc(p.X) || p.Offered != 0 {
			t.Errorf("probe %+v: want whole virtual users, a closed loop", p)
		}
	}
	if sw.Axis != "threads" || sw.BaselineRate != 0 {
		t.Errorf("axis %q, baseline %v", sw.Axis, sw.BaselineRate)
	}
}
